// Command scanbench drives `ahpls serve` as an editor would on a big
// workspace and prints what #30 asks to measure: the time from sending
// initialize to the last textDocument/publishDiagnostics of the first
// scan (its $/progress end marks the scan's end), how many publications
// came, the server process's CPU, and how long hovers on a file opened
// right after initialized took while the scan ran. -hoverlog keeps each
// hover's start and duration, -stderr the server's stderr (with
// GODEBUG=gctrace=1, its collections), to line slow hovers up with them.
//
//	go run ./scripts/scanbench -ahpls /tmp/ahpls -ws /tmp/ws10k -open g0000/.claude/skills/skill-00001/SKILL.md
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	bin := flag.String("ahpls", "ahpls", "the ahpls binary")
	ws := flag.String("ws", "", "workspace folder")
	open := flag.String("open", "", "file to open (relative to -ws) and hover during the scan")
	hoverLog := flag.String("hoverlog", "", "write each hover's start (since initialize) and duration to this file")
	stderrFile := flag.String("stderr", "", "write the server's stderr to this file (with GODEBUG=gctrace=1: its GCs)")
	flag.Parse()
	root, err := filepath.Abs(*ws)
	if err != nil || *ws == "" {
		fail("-ws is required")
	}
	cmd := exec.Command(*bin, "serve")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if *stderrFile != "" {
		f, err := os.Create(*stderrFile)
		if err != nil {
			fail(err.Error())
		}
		defer f.Close()
		cmd.Stderr = f
	}
	if err := cmd.Start(); err != nil {
		fail(err.Error())
	}
	var wmu sync.Mutex
	send := func(v any) {
		b, _ := json.Marshal(v)
		wmu.Lock()
		defer wmu.Unlock()
		fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(b), b)
	}
	type msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	var (
		mu       sync.Mutex
		pubs     int
		first    time.Duration
		last     time.Duration
		replies  = map[string]chan struct{}{}
		scanDone = make(chan struct{})
		doneOnce sync.Once
		pubBytes int
	)
	start := time.Now()
	go func() {
		br := bufio.NewReaderSize(stdout, 1<<16)
		for {
			n := -1
			for {
				line, err := br.ReadString('\n')
				if err != nil {
					return
				}
				line = strings.TrimRight(line, "\r\n")
				if line == "" {
					break
				}
				if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
					n, _ = strconv.Atoi(v)
				}
			}
			body := make([]byte, n)
			if _, err := io.ReadFull(br, body); err != nil {
				return
			}
			var m msg
			if json.Unmarshal(body, &m) != nil {
				continue
			}
			switch {
			case m.Method == "textDocument/publishDiagnostics":
				mu.Lock()
				pubs++
				pubBytes += n
				last = time.Since(start)
				if first == 0 {
					first = last
				}
				mu.Unlock()
			case m.Method == "$/progress" && strings.Contains(string(m.Params), `"end"`):
				doneOnce.Do(func() { close(scanDone) })
			case m.Method != "" && m.ID != nil: // a request from the server
				var res any
				if m.Method == "workspace/configuration" {
					res = []any{nil}
				}
				send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": res})
			case m.Method == "" && m.ID != nil:
				mu.Lock()
				if ch := replies[string(m.ID)]; ch != nil {
					close(ch)
					delete(replies, string(m.ID))
				}
				mu.Unlock()
			}
		}
	}()
	nextID := 0
	call := func(method string, params any) time.Duration {
		nextID++
		ch := make(chan struct{})
		mu.Lock()
		replies[strconv.Itoa(nextID)] = ch
		mu.Unlock()
		t := time.Now()
		send(map[string]any{"jsonrpc": "2.0", "id": nextID, "method": method, "params": params})
		<-ch
		return time.Since(t)
	}
	folderURI := "file://" + root
	call("initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": folderURI,
		"workspaceFolders": []any{map[string]any{"uri": folderURI, "name": filepath.Base(root)}},
		// As VS Code: progress, and file watching by the editor (else the
		// server walks the tree once more to set up its own watches).
		"capabilities": map[string]any{
			"window":    map[string]any{"workDoneProgress": true},
			"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}},
		},
	})
	send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
	var hovers []time.Duration
	var hoverAt []time.Duration
	if *open != "" {
		p := filepath.Join(root, filepath.FromSlash(*open))
		text, err := os.ReadFile(p)
		if err != nil {
			fail(err.Error())
		}
		u := "file://" + p
		send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
			"textDocument": map[string]any{"uri": u, "languageId": "markdown", "version": 1, "text": string(text)}}})
	hover:
		for {
			hoverAt = append(hoverAt, time.Since(start))
			hovers = append(hovers, call("textDocument/hover", map[string]any{
				"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": 1, "character": 8}}))
			select {
			case <-scanDone:
				break hover
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	<-scanDone
	if *hoverLog != "" {
		var b strings.Builder
		for i, d := range hovers {
			fmt.Fprintf(&b, "%.3f %.3f\n", hoverAt[i].Seconds()*1000, d.Seconds()*1000)
		}
		if err := os.WriteFile(*hoverLog, []byte(b.String()), 0o644); err != nil {
			fail(err.Error())
		}
	}
	call("shutdown", nil)
	send(map[string]any{"jsonrpc": "2.0", "method": "exit"})
	_ = stdin.Close()
	_ = cmd.Wait()
	st := cmd.ProcessState
	mu.Lock()
	defer mu.Unlock()
	fmt.Printf("publication_bytes=%d ", pubBytes)
	fmt.Printf("publications=%d first=%s last=%s server_cpu=%.2fs (user %.2fs, sys %.2fs)",
		pubs, first.Round(time.Millisecond), last.Round(time.Millisecond),
		(st.UserTime() + st.SystemTime()).Seconds(), st.UserTime().Seconds(), st.SystemTime().Seconds())
	if len(hovers) > 0 {
		fmt.Printf(" first_hover=%s", hovers[0].Round(time.Microsecond))
		slices.Sort(hovers)
		fmt.Printf(" hovers=%d p50=%s p95=%s max=%s", len(hovers), hovers[len(hovers)/2].Round(time.Microsecond),
			hovers[len(hovers)*95/100].Round(time.Microsecond), hovers[len(hovers)-1].Round(time.Microsecond))
	}
	fmt.Println()
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "scanbench:", msg)
	os.Exit(2)
}
