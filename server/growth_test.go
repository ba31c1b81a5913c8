package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/internal/growth"
)

// Complexity tests (#42) of the editor's paths: publication, document
// symbols and links, open documents, edits. Each runs at n and 4n through
// a real client over loopback and fails when the process's CPU grows more
// than linearly (internal/growth; AHPLS_GROWTH_INJECT=quadratic runs the
// quadratic variants, which must fail).

// publishCounter counts publications per URI for a test client.
type publishCounter struct {
	mu      sync.Mutex
	byURI   map[string]int
	changed chan struct{}
}

func countPublishes(c *testClient) *publishCounter {
	pc := &publishCounter{byURI: map[string]int{}, changed: make(chan struct{}, 1)}
	c.mu.Lock()
	c.onNote = func(n note) {
		if n.Method != "textDocument/publishDiagnostics" {
			return
		}
		var p struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(n.Params, &p) != nil {
			return
		}
		pc.mu.Lock()
		pc.byURI[p.URI]++
		pc.mu.Unlock()
		select {
		case pc.changed <- struct{}{}:
		default:
		}
	}
	c.mu.Unlock()
	return pc
}

// waitAll waits until every URI in us was published at least once more
// than in before.
func (pc *publishCounter) waitAll(tb testing.TB, us []uri.URI, before map[string]int) {
	deadline := time.After(waitLimit)
	for {
		pc.mu.Lock()
		done := true
		for _, u := range us {
			if pc.byURI[string(u)] <= before[string(u)] {
				done = false
				break
			}
		}
		pc.mu.Unlock()
		if done {
			return
		}
		select {
		case <-pc.changed:
		case <-deadline:
			tb.Fatalf("timed out waiting for %d publications", len(us))
		}
	}
}

func (pc *publishCounter) snapshot() map[string]int {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	m := make(map[string]int, len(pc.byURI))
	for k, v := range pc.byURI {
		m[k] = v
	}
	return m
}

// openRun opens fresh documents (texts(n) of them) and waits for each
// one's first publication, then closes them: a fresh URI per run, so
// every run checks and publishes.
func openRun(texts func(n int) []string) growth.Build {
	return func(tb testing.TB, n int) func() {
		root := tb.TempDir()
		c := newTestClient(tb, clientSetup{folders: []string{root}})
		pc := countPublishes(c)
		ts := texts(n)
		runs := 0
		return func() {
			runs++
			us := make([]uri.URI, len(ts))
			before := pc.snapshot()
			for i, text := range ts {
				us[i] = skillURI(root, fmt.Sprintf("r%d-d%d", runs, i))
				if err := c.notify("textDocument/didOpen", didOpen(us[i], 1, text)); err != nil {
					tb.Fatal(err)
				}
			}
			pc.waitAll(tb, us, before)
			for _, u := range us {
				if err := c.notify("textDocument/didClose", docParams(u)); err != nil {
					tb.Fatal(err)
				}
			}
		}
	}
}

// TestGrowthPublishFindingsPerLine: an open document with n broken links
// on one line, checked, converted to LSP ranges and published.
func TestGrowthPublishFindingsPerLine(t *testing.T) {
	growth.Linear(t, 1500, openRun(func(n int) []string {
		var sb strings.Builder
		sb.WriteString("---\nname: x\ndescription: Many links.\n---\n")
		for i := range n {
			fmt.Fprintf(&sb, "[l](missing%d.md) ", i)
		}
		return []string{sb.String()}
	}))
}

// TestGrowthOpenDocuments: n documents opened at once, each checked and
// published.
func TestGrowthOpenDocuments(t *testing.T) {
	growth.Linear(t, 60, openRun(func(n int) []string {
		ts := make([]string, n)
		for i := range ts {
			ts[i] = fmt.Sprintf("---\nname: Doc %d\ndescription: x\n---\n# Doc\n[a](missing.md)\n", i)
		}
		return ts
	}))
}

// TestGrowthEditsPerBurst (edits per second): n edits of one open document sent as fast as
// the pipe takes them (the editor's keystrokes), then the last version's
// publication.
func TestGrowthEditsPerBurst(t *testing.T) {
	growth.Linear(t, 300, func(tb testing.TB, n int) func() {
		root := tb.TempDir()
		c := newTestClient(tb, clientSetup{folders: []string{root}})
		u := skillURI(root, "edits")
		v := 1
		if err := c.notify("textDocument/didOpen", didOpen(u, v, skill4K(0))); err != nil {
			tb.Fatal(err)
		}
		return func() {
			mark := c.mark()
			for range n {
				v++
				// Insert one character at the start of the body; the
				// name changes too, so every check's set differs.
				if err := c.notify("textDocument/didChange", didChangeRange(u, v, 1, 6, 1, 6, "x")); err != nil {
					tb.Fatal(err)
				}
			}
			// The publication carrying the last version ends the run.
			c.waitPublishFrom(mark, u, ptr(v), nil)
		}
	})
}

// requestRun opens text(n) once and measures reps requests of method.
func requestRun(method string, reps int, text func(n int) string) growth.Build {
	return func(tb testing.TB, n int) func() {
		root := tb.TempDir()
		c := newTestClient(tb, clientSetup{folders: []string{root}})
		u := skillURI(root, "req")
		if err := c.notify("textDocument/didOpen", didOpen(u, 1, text(n))); err != nil {
			tb.Fatal(err)
		}
		return func() {
			for range reps {
				var out json.RawMessage
				if err := c.call(method, docParams(u), &out); err != nil {
					tb.Fatal(err)
				}
			}
		}
	}
}

// TestGrowthSymbolsPerFile: documentSymbol over n headings.
func TestGrowthSymbolsPerFile(t *testing.T) {
	growth.Linear(t, 1000, requestRun("textDocument/documentSymbol", 5, func(n int) string {
		var sb strings.Builder
		sb.WriteString("---\nname: req\ndescription: Symbols.\n---\n")
		for i := range n {
			fmt.Fprintf(&sb, "## Section %d\nText of section %d.\n", i, i)
		}
		return sb.String()
	}))
}

// TestGrowthLinksPerRequest: documentLink over n links, one per line,
// half of them to files that exist.
func TestGrowthLinksPerRequest(t *testing.T) {
	growth.Linear(t, 500, requestRun("textDocument/documentLink", 3, func(n int) string {
		var sb strings.Builder
		sb.WriteString("---\nname: req\ndescription: Links.\n---\n")
		for i := range n {
			fmt.Fprintf(&sb, "- [ref %d](references/r%d.md)\n", i, i)
		}
		return sb.String()
	}))
}
