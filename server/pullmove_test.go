package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/uri"
)

// pullClient keeps what a pulling editor shows, the way
// vscode-languageclient 11 does (client/src/common/diagnostic.ts): one
// collection, filled by document pulls of open documents and by workspace
// reports; a workspace report does not overwrite a document that the
// document pull tracks. Its workspace request carries a partialResultToken
// and stays open: the server streams the reports as partial results.
type pullClient struct {
	c      *testClient
	shown  map[string][]wireDiag // what Problems lists, by URI
	ws     map[string]string     // workspace result ids
	doc    map[string]string     // document pull result ids of tracked documents
	seen   int                   // notifications applied so far
	held   chan error            // the open workspace request's end
	cancel func()                // gives up the open workspace request
}

type pullReport struct {
	Kind     string     `json:"kind"`
	ResultID string     `json:"resultId"`
	Items    []wireDiag `json:"items"`
	URI      string     `json:"uri"`
}

const pullCaps = `{"textDocument":{"diagnostic":{"dynamicRegistration":true}},"workspace":{"diagnostics":{"refreshSupport":true},"didChangeWatchedFiles":{"dynamicRegistration":true}}}`

func newPullClient(t *testing.T, root string) *pullClient {
	c := newTestClient(t, clientSetup{folders: []string{root}, caps: pullCaps})
	c.waitFor("scan done", func(n note) bool {
		return n.Method == "window/logMessage" && strings.Contains(string(n.Params), "scan done")
	})
	p := &pullClient{c: c, shown: map[string][]wireDiag{}, ws: map[string]string{}, doc: map[string]string{}, held: make(chan error, 1)}
	// Cancelled before the connection closes (cleanups run last first):
	// jsonrpc2 closes a connection only when no call of its own is out.
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		var raw json.RawMessage
		_, err := c.conn.Call(ctx, "workspace/diagnostic", json.RawMessage(`{"partialResultToken":"w","previousResultIds":[]}`), &raw)
		p.held <- err
	}()
	p.cancel = cancel
	return p
}

// pullDocument is textDocument/diagnostic; keep says whether the answer is
// shown (vscode-languageclient drops it for a document no tab shows).
func (p *pullClient) pullDocument(t *testing.T, u uri.URI, keep bool) pullReport {
	var r pullReport
	params := `{"textDocument":{"uri":"` + string(u) + `"}`
	if id, ok := p.doc[string(u)]; ok {
		params += `,"previousResultId":"` + id + `"`
	}
	require.NoError(t, p.c.call("textDocument/diagnostic", params+"}", &r))
	if !keep {
		delete(p.doc, string(u))
		return r
	}
	if r.Kind == "full" {
		p.shown[string(u)] = r.Items
	}
	p.doc[string(u)] = r.ResultID
	return r
}

// partial reports whether n is a partial result of the workspace request.
func partial(n note) bool {
	return n.Method == "$/progress" && strings.Contains(string(n.Params), `"token":"w"`)
}

// next waits for the next partial result and applies it.
func (p *pullClient) next(t *testing.T) []pullReport {
	t.Helper()
	n := p.c.waitFrom(p.seen, "a partial result", partial)
	var items []pullReport
	for _, m := range p.c.notesSnapshot()[p.seen:] {
		p.seen++
		if !partial(m) {
			continue
		}
		var pr struct {
			Value struct{ Items []pullReport } `json:"value"`
		}
		require.NoError(t, json.Unmarshal(m.Params, &pr))
		p.apply(pr.Value.Items)
		items = append(items, pr.Value.Items...)
		if string(m.Params) == string(n.Params) {
			break
		}
	}
	return items
}

// apply takes workspace reports.
func (p *pullClient) apply(items []pullReport) {
	for _, it := range items {
		if _, tracked := p.doc[it.URI]; it.Kind == "full" && !tracked {
			p.shown[it.URI] = it.Items
		}
		p.ws[it.URI] = it.ResultID
	}
}

// prevIDs is the previousResultIds the client would send.
func (p *pullClient) prevIDs() string {
	var prev []string
	for u, id := range p.ws {
		if d, ok := p.doc[u]; ok {
			id = d
		}
		prev = append(prev, fmt.Sprintf(`{"uri":%q,"value":%q}`, u, id))
	}
	return `[` + strings.Join(prev, ",") + `]`
}

// until applies partial results until cond holds.
func (p *pullClient) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case err := <-p.held:
			t.Fatalf("the workspace request ended (%v) before: %s", err, what)
		default:
		}
		p.next(t)
	}
}

func (p *pullClient) has(u uri.URI, code string) func() bool {
	return func() bool { return len(withCode(p.shown[string(u)], code)) > 0 }
}

// TestPullRenamedOpenDocumentCleared is #41's F2 case in VS Code, which
// pulls diagnostics: the renamed skill's SKILL.md was open (its findings
// came from a document pull), the rename moved its tab, VS Code closed the
// old document and pulled it a last time, an answer it drops because no
// tab shows the document any more, and forgot the old path's workspace
// result id. Only a workspace report can clear the old path's findings;
// the server left the path out (no findings, not asked for), so they
// stayed in Problems. In the second order a report of the old path comes
// while the document is still tracked (and is skipped): the last document
// pull owes it again.
func TestPullRenamedOpenDocumentCleared(t *testing.T) {
	for _, lateUntrack := range []bool{false, true} {
		t.Run(fmt.Sprintf("report-while-tracked=%v", lateUntrack), func(t *testing.T) {
			m := newFolderMove(t)
			p := newPullClient(t, m.root)
			p.until(t, "the skill's finding from the workspace report", p.has(m.oldSkill, "file/encoding"))

			dirty := "---\nname: Deploy2\ndescription: Deploys.\n---\n"
			require.NoError(t, p.c.notify("textDocument/didOpen", didOpen(m.oldSkill, 1, dirty)))
			p.pullDocument(t, m.oldSkill, true)
			require.NotEmpty(t, withCode(p.shown[string(m.oldSkill)], "skill/name-charset"))

			// The workspace edit: the folder moves, the editor reports it and
			// moves the document to the new path (the wire order of the e2e).
			require.NoError(t, os.Rename(m.oldDir, m.newDir))
			delete(p.ws, string(m.oldSkill)) // forgetDocument drops the workspace id
			require.NoError(t, p.c.notify("textDocument/didClose", `{"textDocument":{"uri":"`+string(m.oldSkill)+`"}}`))
			if lateUntrack {
				p.until(t, "a report of the old path", func() bool { _, ok := p.ws[string(m.oldSkill)]; return ok })
				require.NotEmpty(t, p.shown[string(m.oldSkill)], "skipped: the document pull still tracks it")
			}
			last := p.pullDocument(t, m.oldSkill, false)
			assert.Empty(t, withCode(last.Items, "file/encoding"))
			require.NoError(t, p.c.notify("workspace/didRenameFiles", `{"files":[{"oldUri":"`+string(uri.File(m.oldDir))+`","newUri":"`+string(uri.File(m.newDir))+`"}]}`))
			require.NoError(t, p.c.notify("textDocument/didOpen", didOpen(m.newSkill, 1, dirty)))
			p.pullDocument(t, m.newSkill, true)

			p.until(t, "no finding left on the old path", func() bool { return len(p.shown[string(m.oldSkill)]) == 0 })
			assert.NotEmpty(t, withCode(p.shown[string(m.newSkill)], "skill/name-charset"))
		})
	}
}

// TestPullFolderMovedInShell is #41's mv case for VS Code: the watcher
// reports the folder deleted and another created. The workspace request
// the client keeps open streams the change (VS Code would otherwise see
// it only at its next request, 2 s after an answer): the old path
// cleared, the new path's finding, the marketplace's missing path.
func TestPullFolderMovedInShell(t *testing.T) {
	m := newFolderMove(t)
	p := newPullClient(t, m.root)
	p.until(t, "the skill's finding", p.has(m.oldSkill, "file/encoding"))

	require.NoError(t, os.Rename(m.oldDir, m.newDir))
	require.NoError(t, p.c.notify("workspace/didChangeWatchedFiles", `{"changes":[{"uri":"`+string(uri.File(m.oldDir))+`","type":3},{"uri":"`+string(uri.File(m.newDir))+`","type":1}]}`))
	p.until(t, "the move seen", func() bool {
		return len(p.shown[string(m.oldSkill)]) == 0 && p.has(m.newSkill, "file/encoding")() && p.has(m.market, "market/path-missing")()
	})
	select {
	case err := <-p.held:
		t.Fatalf("the streaming request was answered: %v", err)
	default:
	}

	// Without a partialResultToken (Neovim) the answer comes at once, even
	// with nothing new.
	var r struct{ Items []pullReport }
	require.NoError(t, p.c.call("workspace/diagnostic", `{"previousResultIds":`+p.prevIDs()+`}`, &r))
	require.NotEmpty(t, r.Items)
	for _, it := range r.Items {
		assert.Equal(t, "unchanged", it.Kind, it.URI)
	}

	// The cleanup closes the connection with the request still held: the
	// server must stop all the same (newTestClient's cleanup checks).
}
