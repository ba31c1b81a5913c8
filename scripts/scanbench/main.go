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
	c := &client{stdin: stdin, replies: map[string]chan struct{}{}, scanDone: make(chan struct{}), start: time.Now()}
	go c.read(stdout)
	folderURI := "file://" + root
	c.call("initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": folderURI,
		"workspaceFolders": []any{map[string]any{"uri": folderURI, "name": filepath.Base(root)}},
		// As VS Code: progress, and file watching by the editor (else the
		// server walks the tree once more to set up its own watches).
		"capabilities": map[string]any{
			"window":    map[string]any{"workDoneProgress": true},
			"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}},
		},
	})
	c.send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
	var hovers, hoverAt []time.Duration
	if *open != "" {
		hovers, hoverAt = c.hoverDuringScan(filepath.Join(root, filepath.FromSlash(*open)))
	}
	<-c.scanDone
	if *hoverLog != "" {
		var b strings.Builder
		for i, d := range hovers {
			fmt.Fprintf(&b, "%.3f %.3f\n", hoverAt[i].Seconds()*1000, d.Seconds()*1000)
		}
		if err := os.WriteFile(*hoverLog, []byte(b.String()), 0o644); err != nil {
			fail(err.Error())
		}
	}
	c.call("shutdown", nil)
	c.send(map[string]any{"jsonrpc": "2.0", "method": "exit"})
	_ = stdin.Close()
	_ = cmd.Wait()
	c.report(cmd.ProcessState, hovers)
}

// client is the editor's side of the LSP connection: it sends, reads the
// server's messages and counts the publications.
type client struct {
	stdin io.Writer
	wmu   sync.Mutex // guards writes to stdin
	start time.Time  // when initialize was sent

	mu       sync.Mutex // guards what follows
	pubs     int
	pubBytes int
	first    time.Duration
	last     time.Duration
	replies  map[string]chan struct{}
	nextID   int // the caller's goroutine alone
	scanDone chan struct{}
	doneOnce sync.Once
}

type msg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func (c *client) send(v any) {
	b, _ := json.Marshal(v)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	fmt.Fprintf(c.stdin, "Content-Length: %d\r\n\r\n%s", len(b), b)
}

// read handles the server's messages until its output ends: publications
// are counted, the scan's progress end closes scanDone, the server's
// requests are answered and replies wake their call.
func (c *client) read(stdout io.Reader) {
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
		c.handle(m, n)
	}
}

func (c *client) handle(m msg, n int) {
	switch {
	case m.Method == "textDocument/publishDiagnostics":
		c.mu.Lock()
		c.pubs++
		c.pubBytes += n
		c.last = time.Since(c.start)
		if c.first == 0 {
			c.first = c.last
		}
		c.mu.Unlock()
	case m.Method == "$/progress" && strings.Contains(string(m.Params), `"end"`):
		c.doneOnce.Do(func() { close(c.scanDone) })
	case m.Method != "" && m.ID != nil: // a request from the server
		var res any
		if m.Method == "workspace/configuration" {
			res = []any{nil}
		}
		c.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": res})
	case m.Method == "" && m.ID != nil:
		c.mu.Lock()
		if ch := c.replies[string(m.ID)]; ch != nil {
			close(ch)
			delete(c.replies, string(m.ID))
		}
		c.mu.Unlock()
	}
}

// call sends a request and waits for its reply; it returns how long that took.
func (c *client) call(method string, params any) time.Duration {
	c.nextID++
	ch := make(chan struct{})
	c.mu.Lock()
	c.replies[strconv.Itoa(c.nextID)] = ch
	c.mu.Unlock()
	t := time.Now()
	c.send(map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method, "params": params})
	<-ch
	return time.Since(t)
}

// hoverDuringScan opens file p and hovers on it every 50 ms until the scan
// ends: each hover's duration and its start since initialize.
func (c *client) hoverDuringScan(p string) (hovers, hoverAt []time.Duration) {
	text, err := os.ReadFile(p)
	if err != nil {
		fail(err.Error())
	}
	u := "file://" + p
	c.send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
		"textDocument": map[string]any{"uri": u, "languageId": "markdown", "version": 1, "text": string(text)}}})
	for {
		hoverAt = append(hoverAt, time.Since(c.start))
		hovers = append(hovers, c.call("textDocument/hover", map[string]any{
			"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": 1, "character": 8}}))
		select {
		case <-c.scanDone:
			return hovers, hoverAt
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// report prints the one line of figures.
func (c *client) report(st *os.ProcessState, hovers []time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Printf("publication_bytes=%d ", c.pubBytes)
	fmt.Printf("publications=%d first=%s last=%s server_cpu=%.2fs (user %.2fs, sys %.2fs)",
		c.pubs, c.first.Round(time.Millisecond), c.last.Round(time.Millisecond),
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
