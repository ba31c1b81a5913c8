package server

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The first scan publishes the files that have findings and nothing for
// the clean ones, and workspace/symbol knows every file it checked.
func TestScanPublishesFindingsOnly(t *testing.T) {
	root := t.TempDir()
	bad := writeFile(t, root, ".github/skills/bad/SKILL.md", "---\nname: Bad_Name\ndescription: B.\n---\n")
	clean := writeFile(t, root, ".github/skills/clean/SKILL.md", "---\nname: clean\ndescription: C.\n---\n")
	c := newTestClient(t, clientSetup{folders: []string{root}, caps: `{"window":{"workDoneProgress":true}}`})
	c.waitPublish(bad, nil, func(ds []wireDiag) bool { return len(withCode(ds, "skill/name-charset")) > 0 })
	end := c.waitFor("progress end", func(n note) bool {
		return n.Method == "$/progress" && strings.Contains(string(n.Params), `"end"`)
	})
	assert.Contains(t, string(end.Params), "checked 2 customization files, 1 with findings")
	for _, n := range c.notesCopy() {
		if n.Method == "textDocument/publishDiagnostics" {
			var p wirePublish
			require.NoError(t, json.Unmarshal(n.Params, &p))
			assert.NotEqual(t, string(clean), p.URI, "a clean file needs no publication on the first scan")
		}
	}
	got := c.request("workspace/symbol", `{"query":"cln"}`)
	assert.Contains(t, got, string(clean))
	assert.NotContains(t, got, string(bad))
}

func (c *testClient) notesCopy() []note {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]note(nil), c.notes...)
}

// While the scan is held in the middle of the workspace (its check of a
// file does not return), the editor is still served: a file opened now
// is checked and published, hovers and workspace/symbol are answered, and
// the scan finishes once let go. Nothing here may wait for the scan to
// move on (#30: a hover during the first scan answers at once).
func TestRequestsAnsweredWhileTheScanIsHeld(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"alpha", "beta", "gamma"} {
		writeFile(t, root, ".github/skills/"+name+"/SKILL.md", "---\nname: "+name+"\ndescription: D.\n---\n# Body\n")
	}
	opened := skillURI(root, "beta")
	held, release := make(chan string, 1), make(chan struct{})
	var once sync.Once
	c := newTestClient(t, clientSetup{folders: []string{root}, noInit: true})
	c.srv.scanHook = func(rel string) {
		once.Do(func() {
			held <- rel
			<-release
		})
	}
	c.initialize(clientSetup{folders: []string{root}, caps: `{"window":{"workDoneProgress":true}}`})
	at := <-held
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()

	require.NoError(t, c.notify("textDocument/didOpen", didOpen(opened, 1, "---\nname: Beta_Bad\ndescription: D.\n---\n# Body\n")))
	c.waitPublish(opened, ptr(1), func(ds []wireDiag) bool { return len(withCode(ds, "skill/name-charset")) == 1 })
	hover := c.request("textDocument/hover", posParams(opened, 1, 8))
	assert.Contains(t, hover, "name", "the hover on the frontmatter's name field")
	assert.NotEqual(t, "null", hover)
	assert.Contains(t, c.request("workspace/symbol", `{"query":"Beta_Bad"}`), string(opened))
	for _, n := range c.notesCopy() {
		if n.Method == "$/progress" && strings.Contains(string(n.Params), `"end"`) {
			t.Fatalf("the scan ended while held at %s", at)
		}
	}

	close(release)
	end := c.waitFor("progress end", func(n note) bool {
		return n.Method == "$/progress" && strings.Contains(string(n.Params), `"end"`)
	})
	assert.Contains(t, string(end.Params), "checked 3 customization files")
}

// The scan reads each file into a buffer the next file reuses once the
// text is let go (#30). Nothing published or indexed may still point into
// it: every file's findings and symbol name are its own after the scan.
func TestScanKeepsNoSliceOfAReusedBuffer(t *testing.T) {
	root := t.TempDir()
	const n = 40
	files := make([]string, n)
	for i := range n {
		name := fmt.Sprintf("skill-%02d", i)
		// Texts shorter in walk order, so that each is read over an earlier one.
		pad := strings.Repeat("Some words. ", (n-i)*7)
		files[i] = string(writeFile(t, root, ".github/skills/"+name+"/SKILL.md",
			fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n%s\nSee [x](missing-%02d.md).\n", name, name, pad, i)))
	}
	c := newTestClient(t, clientSetup{folders: []string{root}, caps: `{"window":{"workDoneProgress":true}}`})
	c.waitFor("progress end", func(n note) bool {
		return n.Method == "$/progress" && strings.Contains(string(n.Params), `"end"`)
	})
	seen := map[string]bool{}
	for _, nt := range c.notesCopy() {
		if nt.Method != "textDocument/publishDiagnostics" {
			continue
		}
		var p wirePublish
		require.NoError(t, json.Unmarshal(nt.Params, &p))
		i := slices.Index(files, p.URI)
		require.GreaterOrEqual(t, i, 0, p.URI)
		links := withCode(p.diags(t), "md/link")
		require.Len(t, links, 1, p.URI)
		assert.Contains(t, links[0].Message, fmt.Sprintf("missing-%02d.md", i), p.URI)
		seen[p.URI] = true
	}
	assert.Len(t, seen, n)
	for i, f := range files {
		got := c.request("workspace/symbol", fmt.Sprintf(`{"query":"skill-%02d"}`, i))
		assert.Contains(t, got, f)
		assert.Contains(t, got, fmt.Sprintf(`"name":"skill-%02d"`, i))
	}
}
