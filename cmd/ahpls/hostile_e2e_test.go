package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/ahptest"
)

// procRSS reads a process's VmRSS in bytes.
func procRSS(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// findFile walks our published trees through the host's reverse requests
// and returns the virtual URI of the file with that name.
func findFile(ctx context.Context, t *testing.T, host *ahptest.Host, clientID string, roots []string, name string) string {
	t.Helper()
	var walk func(dir string, depth int) string
	walk = func(dir string, depth int) string {
		if depth > 8 {
			return ""
		}
		res, err := host.Request(ctx, clientID, "resourceList", map[string]any{"uri": dir})
		if err != nil {
			return ""
		}
		var l struct {
			Entries []struct{ Name, Type string } `json:"entries"`
		}
		require.NoError(t, json.Unmarshal(res, &l))
		for _, e := range l.Entries {
			child := strings.TrimSuffix(dir, "/") + "/" + e.Name
			if e.Type == "file" && e.Name == name {
				return child
			}
			if e.Type == "directory" {
				if u := walk(child, depth+1); u != "" {
					return u
				}
			}
		}
		return ""
	}
	for _, r := range roots {
		if u := walk(r, 0); u != "" {
			return u
		}
	}
	return ""
}

// Issue 16, reproduction 1, through the real binary: once the workspace is
// published, the host stops reading its socket and pipelines 2,000
// resourceRead requests for a published 4 MiB file. The server's resident
// memory stays bounded and the editor side keeps answering hovers; the
// numbers are logged (targets: < 100 MB growth, hovers < 200 ms), and only
// boundedness is asserted.
func TestHostileHostFloodKeepsTheEditorResponsive(t *testing.T) {
	if testing.Short() {
		t.Skip("floods a real server with 2,000 large reads")
	}
	bin := buildBinary(t)
	hw := newHostedWorkspace(t, "hostile")
	host, ws, session := hw.host, hw.ws, hw.session
	big := make([]byte, 4<<20)
	for i := range big {
		big[i] = byte(rand.IntN(256))
	}
	require.NoError(t, os.WriteFile(filepath.Join(ws, ".github/skills/release-notes/big.bin"), big, 0o644))
	cmd, rwc, stderr := hw.startServer(t, bin)

	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(rwc))
	conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() == "workspace/configuration" {
			return []any{map[string]any{}}, nil
		}
		return nil, nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	init := fmt.Sprintf(`{"processId":null,"rootUri":%q,"capabilities":{"workspace":{"configuration":true}},"workspaceFolders":[{"uri":%q,"name":"ws"}]}`, uri.File(ws), uri.File(ws))
	_, err := conn.Call(ctx, "initialize", json.RawMessage(init), nil)
	require.NoError(t, err)
	require.NoError(t, conn.Notify(ctx, "initialized", json.RawMessage(`{}`)))

	var clientID string
	var roots []string
	require.NoError(t, host.Wait(ctx, func(v *ahptest.View) bool {
		cs, _ := v.State(session)["customizations"].([]any)
		roots = roots[:0]
		for _, c := range cs {
			m, _ := c.(map[string]any)
			load, _ := m["load"].(map[string]any)
			if id, _ := m["clientId"].(string); id != "" && load["kind"] == "loaded" {
				clientID = id
				roots = append(roots, m["uri"].(string))
			}
		}
		return len(roots) > 0
	}), "the server published and the host loaded it; stderr:\n%s", stderr.String())
	target := findFile(ctx, t, host, clientID, roots, "big.bin")
	require.NotEmpty(t, target, "the 4 MiB file is published")

	skillPath := filepath.Join(ws, ".github/skills/release-notes/SKILL.md")
	skill := uri.File(skillPath)
	text, err := os.ReadFile(skillPath)
	require.NoError(t, err)
	open, _ := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": skill, "languageId": "markdown", "version": 1, "text": string(text)}})
	require.NoError(t, conn.Notify(ctx, "textDocument/didOpen", json.RawMessage(open)))
	hover := func() (time.Duration, error) {
		start := time.Now()
		var res json.RawMessage
		_, err := conn.Call(ctx, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": skill}, "position": map[string]any{"line": 1, "character": 2}}, &res)
		return time.Since(start), err
	}
	_, err = hover()
	require.NoError(t, err)

	pid := cmd.Process.Pid
	time.Sleep(200 * time.Millisecond)
	baseRSS := procRSS(pid)
	accepted := host.Accepted()
	require.NoError(t, host.StopReading(clientID, true))
	var peakRSS int64
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			rss := procRSS(pid)
			peakRSS = max(peakRSS, rss)
			if rss-baseRSS > 1<<30 {
				_ = cmd.Process.Kill() // unbounded: stop before the machine suffers
			}
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	flooded := make(chan error, 1)
	go func() { flooded <- host.Flood(clientID, "resourceRead", map[string]any{"uri": target}, 2000) }()

	// Hovers every 100 ms until the stuck connection is dropped and the
	// server is back, plus a second.
	var lat []time.Duration
	var hoverErrs []error
	var mu sync.Mutex
	until := time.Now().Add(40 * time.Second)
	var back time.Time
	for time.Now().Before(until) {
		d, err := hover()
		mu.Lock()
		lat = append(lat, d)
		if err != nil {
			hoverErrs = append(hoverErrs, err)
		}
		mu.Unlock()
		if back.IsZero() && host.Accepted() > accepted {
			back = time.Now()
		}
		if !back.IsZero() && time.Since(back) > time.Second {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	close(stop)
	<-sampled
	require.NoError(t, <-flooded)
	_ = host.StopReading(clientID, false)

	slices.Sort(lat)
	growth := float64(peakRSS-baseRSS) / (1 << 20)
	t.Logf("2000 pipelined reads of a 4 MiB file, host not reading: server RSS %.1f MB → peak %.1f MB (growth %.1f MB); %d hovers: median %v, max %v; reconnected: %v",
		float64(baseRSS)/(1<<20), float64(peakRSS)/(1<<20), growth, len(lat), lat[len(lat)/2], lat[len(lat)-1], !back.IsZero())
	assert.Empty(t, hoverErrs, "every hover answered")
	assert.Less(t, growth, 300.0, "the server's memory stays bounded (target < 100 MB)")
	assert.False(t, back.IsZero(), "the stuck connection was dropped and the server reconnected")
	assert.Empty(t, hw.Violations())
}
