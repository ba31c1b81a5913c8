package server

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/model"
)

const (
	cleanSkill  = "---\nname: lead\ndescription: Checks at the leading edge.\n---\n# Body\n"
	brokenSkill = "---\nname: Lead Edge\ndescription: Checks at the leading edge.\n---\n# Body\n"
)

// A keystroke on an idle file is checked and published at once, not after
// the debounce: with an hour of debounce the edit still publishes.
func TestLeadingEdgeEditPublishesAtOnce(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{opts: Options{Debounce: time.Hour}, folders: []string{root}})
	u := skillURI(root, "lead")
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, cleanSkill)))
	c.waitPublish(u, ptr(1), nil)
	require.NoError(t, c.notify("textDocument/didChange", didChangeFull(u, 2, brokenSkill)))
	p := c.waitPublish(u, ptr(2), func(ds []wireDiag) bool { return len(withCode(ds, "skill/name-charset")) == 1 })
	assert.Equal(t, 2, *p.Version)
}

// A burst of edits while a check runs: never two checks of one file at
// once, versions published only forward, the final text published, and
// the whole burst coalesced into one follow-up check. The first check of
// the burst is held until every edit has been sent, so the test does not
// depend on how fast checks are.
func TestBurstCoalescesIntoOneFollowUp(t *testing.T) {
	root := t.TempDir()
	var mu sync.Mutex
	inflight, maxInflight := map[uri.URI]int{}, 0
	var gate chan struct{} // when set, the next check to start waits on it
	c := newTestClient(t, clientSetup{opts: Options{Debounce: time.Hour}, folders: []string{root}, noInit: true})
	c.srv.checkHook = func(u uri.URI, d int) {
		mu.Lock()
		inflight[u] += d
		maxInflight = max(maxInflight, inflight[u])
		g := gate
		if d > 0 {
			gate = nil
		}
		mu.Unlock()
		if d > 0 && g != nil {
			<-g
		}
	}
	c.initialize(clientSetup{folders: []string{root}})
	u := skillURI(root, "lead")
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, cleanSkill)))
	c.waitPublish(u, ptr(1), nil)
	before := c.srv.Checks()
	release := make(chan struct{})
	mu.Lock()
	gate = release
	mu.Unlock()
	const edits = 50
	for v := 2; v <= edits+1; v++ {
		// Every broken version names itself, so its findings differ from
		// every other version's (identical sets are not re-sent).
		text := cleanSkill
		if v == edits+1 || v%2 == 0 {
			text = strings.Replace(brokenSkill, "Lead Edge", fmt.Sprintf("Lead Edge %d", v), 1)
		}
		require.NoError(t, c.notify("textDocument/didChange", didChangeFull(u, v, text)))
	}
	// The edits are applied on the read loop in order; a request after
	// them returns once they all are.
	require.NoError(t, c.call("workspace/executeCommand", `{"command":"test.sync"}`, nil))
	close(release)
	c.waitPublish(u, ptr(edits+1), func(ds []wireDiag) bool { return len(withCode(ds, "skill/name-charset")) == 1 })
	time.Sleep(50 * time.Millisecond) // a late stale publication would show now

	last := 0
	c.mu.Lock()
	for _, n := range c.notes {
		var p wirePublish
		if n.Method != "textDocument/publishDiagnostics" || json.Unmarshal(n.Params, &p) != nil || p.URI != string(u) || p.Version == nil {
			continue
		}
		assert.Greater(t, *p.Version, last, "versions are published only forward")
		last = *p.Version
	}
	c.mu.Unlock()
	assert.Equal(t, edits+1, last, "the final version is the last published")
	mu.Lock()
	assert.Equal(t, 1, maxInflight, "checks of one file in flight at once")
	mu.Unlock()
	// The held check and one follow-up for the whole burst; the follow-up
	// may even reuse the held one's rules run, which read the newest text.
	assert.LessOrEqual(t, c.srv.Checks()-before, int64(2), "rules runs for a burst of %d edits", edits)
}

// External findings tagged with the hash of the text they came from are
// published only with that text: v2 never shows v1's host finding, and a
// late set for v1 is dropped.
func TestExternalFindingsFollowTheirText(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}})
	u := skillURI(root, "lead")
	path, _ := uriPath(u)
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, brokenSkill)))
	c.waitPublish(u, ptr(1), nil)
	host := []model.Diagnostic{{Rule: "publish/excluded", Severity: model.SeverityWarning, Message: "left out", Span: model.Span{Start: 0, End: 3}}}
	c.srv.SetExternalFindingsFor("ahpls-host", path, sha256.Sum256([]byte(brokenSkill)), host)
	c.waitPublish(u, ptr(1), func(ds []wireDiag) bool { return len(withCode(ds, "publish/excluded")) == 1 })

	mark := c.mark()
	require.NoError(t, c.notify("textDocument/didChange", didChangeFull(u, 2, cleanSkill)))
	p := c.waitPublishFrom(mark, u, ptr(2), nil)
	assert.Empty(t, withCode(p.diags(t), "publish/excluded"), "v2 shows a finding of v1's text")

	c.srv.SetExternalFindingsFor("ahpls-host", path, sha256.Sum256([]byte(brokenSkill)), host) // late
	c.srv.SetExternalFindingsFor("ahpls-host", path, sha256.Sum256([]byte(cleanSkill)), host)  // current
	c.waitPublish(u, ptr(2), func(ds []wireDiag) bool { return len(withCode(ds, "publish/excluded")) == 1 })
}
