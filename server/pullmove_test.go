package server

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/uri"
)

// pullClient keeps what a pulling editor shows, the way
// vscode-languageclient 11 does (client/src/common/diagnostic.ts): one
// collection, filled by document pulls of open documents and by workspace
// pulls; a workspace answer does not overwrite a document that the
// document pull tracks; previousResultIds come from the workspace answers
// (the document pull's id when both know the URI), and each workspace pull
// carries a partialResultToken, which the server answers as a long poll.
type pullClient struct {
	c     *testClient
	shown map[string][]wireDiag // what Problems lists, by URI
	ws    map[string]string     // workspace result ids
	doc   map[string]string     // document pull result ids of tracked documents
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
	return &pullClient{c: c, shown: map[string][]wireDiag{}, ws: map[string]string{}, doc: map[string]string{}}
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

// pullWorkspace is one workspace/diagnostic round; the server holds it
// until it has something new.
func (p *pullClient) pullWorkspace(t *testing.T) {
	var r struct{ Items []pullReport }
	require.NoError(t, p.c.call("workspace/diagnostic", `{"partialResultToken":"w","previousResultIds":`+p.prevIDs()+`}`, &r))
	p.apply(r.Items)
}

// apply takes a workspace answer.
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

// until pulls the workspace, as the client does every 2 s, until cond
// holds.
func (p *pullClient) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s; shown: %v", what, p.shown)
		}
		p.pullWorkspace(t)
		time.Sleep(5 * time.Millisecond)
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
// result id. Only the workspace answer can clear the old path's findings;
// it left the path out (no findings, not asked for), so they stayed in
// Problems. Both orders of the client's last document pull and the next
// workspace answer are covered.
func TestPullRenamedOpenDocumentCleared(t *testing.T) {
	for _, lateUntrack := range []bool{false, true} {
		t.Run(fmt.Sprintf("untrack-after-workspace-answer=%v", lateUntrack), func(t *testing.T) {
			m := newFolderMove(t)
			p := newPullClient(t, m.root)
			p.until(t, "the skill's finding from the workspace pull", p.has(m.oldSkill, "file/encoding"))

			dirty := "---\nname: Deploy2\ndescription: Deploys.\n---\n"
			require.NoError(t, p.c.notify("textDocument/didOpen", didOpen(m.oldSkill, 1, dirty)))
			p.pullDocument(t, m.oldSkill, true)
			require.NotEmpty(t, withCode(p.shown[string(m.oldSkill)], "skill/name-charset"))

			// The workspace edit: the folder moves, the editor reports it and
			// moves the document to the new path.
			require.NoError(t, os.Rename(m.oldDir, m.newDir))
			require.NoError(t, p.c.notify("workspace/didRenameFiles", `{"files":[{"oldUri":"`+string(uri.File(m.oldDir))+`","newUri":"`+string(uri.File(m.newDir))+`"}]}`))
			delete(p.ws, string(m.oldSkill)) // forgetDocument drops the workspace id
			require.NoError(t, p.c.notify("textDocument/didClose", `{"textDocument":{"uri":"`+string(m.oldSkill)+`"}}`))
			require.NoError(t, p.c.notify("textDocument/didOpen", didOpen(m.newSkill, 1, dirty)))
			p.pullDocument(t, m.newSkill, true)
			if lateUntrack {
				// A workspace answer arrives while the old document is still
				// tracked: the client skips it but keeps its result id.
				p.pullWorkspace(t)
			}
			last := p.pullDocument(t, m.oldSkill, false)
			assert.Empty(t, last.Items, "the server has nothing for the old path")

			p.until(t, "no finding left on the old path", func() bool { return len(p.shown[string(m.oldSkill)]) == 0 })
			assert.NotEmpty(t, withCode(p.shown[string(m.newSkill)], "skill/name-charset"))
		})
	}
}

// TestPullFolderMovedInShell is #41's mv case for VS Code: the watcher
// reports the folder deleted and another created. The workspace request
// the client has open (nothing was new when it came) is answered with the
// change, not at the client's next round: the old path cleared, the new
// path's finding, the marketplace's missing path.
func TestPullFolderMovedInShell(t *testing.T) {
	m := newFolderMove(t)
	p := newPullClient(t, m.root)
	p.until(t, "the skill's finding", p.has(m.oldSkill, "file/encoding"))

	type answer struct {
		items []pullReport
		err   error
	}
	held := make(chan answer, 1)
	prev := p.prevIDs()
	go func() {
		var r struct{ Items []pullReport }
		err := p.c.call("workspace/diagnostic", `{"partialResultToken":"w","previousResultIds":`+prev+`}`, &r)
		held <- answer{r.Items, err}
	}()
	// The server has the request in flight and holds it: nothing is new.
	require.Eventually(t, func() bool {
		p.c.srv.mu.Lock()
		defer p.c.srv.mu.Unlock()
		return len(p.c.srv.inflight) == 1
	}, waitLimit, time.Millisecond)
	require.NoError(t, p.c.call("workspace/executeCommand", `{"command":"`+syncCommand+`"}`, nil))
	select {
	case a := <-held:
		t.Fatalf("answered with nothing new: %v %v", a.items, a.err)
	default:
	}

	require.NoError(t, os.Rename(m.oldDir, m.newDir))
	require.NoError(t, p.c.notify("workspace/didChangeWatchedFiles", `{"changes":[{"uri":"`+string(uri.File(m.oldDir))+`","type":3},{"uri":"`+string(uri.File(m.newDir))+`","type":1}]}`))
	a := <-held
	require.NoError(t, a.err)
	p.apply(a.items)
	assert.Empty(t, p.shown[string(m.oldSkill)], "the held answer clears the old path")
	p.until(t, "the move seen", func() bool {
		return len(p.shown[string(m.oldSkill)]) == 0 && p.has(m.newSkill, "file/encoding")() && p.has(m.market, "market/path-missing")()
	})

	// Without a partialResultToken (Neovim) the answer comes at once, even
	// with nothing new.
	var r struct{ Items []pullReport }
	require.NoError(t, p.c.call("workspace/diagnostic", `{"previousResultIds":`+p.prevIDs()+`}`, &r))
	for _, it := range r.Items {
		assert.Equal(t, "unchanged", it.Kind, it.URI)
	}
}
