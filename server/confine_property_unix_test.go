//go:build unix

package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/uri"
)

// edgeTree builds base/ws with an AGENTS.md, a CLAUDE.md of a random sort,
// skills (some behind symlinks) and Markdown links of every kind, next to
// base/out, the files an edit must never reach.
func edgeTree(t *testing.T, r *rand.Rand, base string) (ws string, open []string) {
	t.Helper()
	ws = filepath.Join(base, "ws")
	out := filepath.Join(base, "out")
	writeFile(t, out, "notes.md", "Someone else's notes.\n")
	writeFile(t, out, "skills/o/SKILL.md", "\ufeff---\nname: o\ndescription: Out.\n---\n")
	link := func(target, rel string) {
		p := filepath.Join(ws, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.Symlink(target, p))
	}
	links := []string{"[a](CLAUDE.md)", "[b](etc/passwd)", "[c](.github/skills/s0/SKILL.md)", "[d](up/notes.md)", "[e](gone.md)", "[f](loop.md)"}
	writeFile(t, ws, "AGENTS.md", "# Rules\n\n"+strings.Join(links, " ")+"\n")
	open = append(open, "AGENTS.md")
	switch r.Intn(6) {
	case 0:
		link(filepath.Join(out, "notes.md"), "CLAUDE.md")
	case 1:
		link("AGENTS.md", "CLAUDE.md")
	case 2:
		link("missing.md", "CLAUDE.md")
	case 3:
		link("CLAUDE.md", "CLAUDE.md")
	case 4:
		writeFile(t, ws, "CLAUDE.md", "# Claude\n")
	}
	link("/etc", "etc")
	link(out, "up")
	link("loop.md", "loop.md")
	for i := range 2 + r.Intn(3) {
		rel := fmt.Sprintf(".github/skills/s%d", i)
		switch r.Intn(3) {
		case 0:
			link(filepath.Join(out, "skills/o"), rel)
		default:
			writeFile(t, ws, rel+"/SKILL.md", fmt.Sprintf("\ufeff---\nname: S%d\ndescription: In.\n---\nSee [x](../s0/SKILL.md) and [o](../../../up/skills/o/SKILL.md).\n", i))
		}
		open = append(open, rel+"/SKILL.md")
	}
	return ws, open
}

// editURIs collects every file an LSP result names: link targets,
// locations, edit keys, documentChanges' documents and renames.
func editURIs(v any, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			switch k {
			case "uri", "target", "oldUri", "newUri":
				if s, ok := val.(string); ok {
					*out = append(*out, s)
				}
			case "changes":
				if m, ok := val.(map[string]any); ok {
					for u := range m {
						*out = append(*out, u)
					}
				}
			}
			editURIs(val, out)
		}
	case []any:
		for _, val := range x {
			editURIs(val, out)
		}
	}
}

// realInside reports whether p's real path (a path not there yet: its
// nearest existing parent's) is below root.
func realInside(root, p string) bool {
	for q := p; ; q = filepath.Dir(q) {
		real, err := filepath.EvalSymlinks(q)
		if err == nil {
			return real == root || strings.HasPrefix(real, root+string(filepath.Separator))
		}
		if _, lerr := os.Lstat(q); lerr == nil || !errors.Is(err, fs.ErrNotExist) || filepath.Dir(q) == q {
			return false // a dangling or looping link
		}
	}
}

// TestServerEditsPropertyRandomTrees: over random trees, every file that
// a quick fix, fix-all, rename, document link or definition names has its
// real path inside the workspace folder.
func TestServerEditsPropertyRandomTrees(t *testing.T) {
	runs := 25
	if testing.Short() {
		runs = 5
	}
	named := 0
	for seed := range runs {
		r := rand.New(rand.NewSource(int64(seed)))
		base := t.TempDir()
		ws, open := edgeTree(t, r, base)
		realWS, err := filepath.EvalSymlinks(ws)
		require.NoError(t, err)
		c := newTestClient(t, clientSetup{folders: []string{ws}, caps: renameCaps,
			initOpts: json.RawMessage(`{"ahpls":{"targets":["claude-code","vscode"]}}`)})
		for _, rel := range open {
			u := uri.File(filepath.Join(ws, rel))
			b, err := os.ReadFile(filepath.Join(ws, rel))
			if err != nil {
				continue
			}
			require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, string(b))))
			var results []string
			for _, only := range []string{`"quickfix"`, `"source.fixAll"`} {
				results = append(results, c.request("textDocument/codeAction", fmt.Sprintf(
					`{"textDocument":{"uri":%q},"range":%s,"context":{"diagnostics":[],"only":[%s]}}`, u, rng(0, 0, 9, 0), only)))
			}
			results = append(results, c.request("textDocument/documentLink", docParams(u)))
			for col := 0; col < 80; col += 4 {
				results = append(results, c.request("textDocument/definition", posParams(u, 2, col)))
				results = append(results, c.request("textDocument/definition", posParams(u, 4, col)))
			}
			if strings.HasSuffix(rel, "SKILL.md") {
				var res any
				_ = c.call("textDocument/rename", renameParams(u, 1, 7, "renamed"), &res)
				b, _ := json.Marshal(res)
				results = append(results, string(b))
			}
			for _, res := range results {
				var v any
				if json.Unmarshal([]byte(res), &v) != nil {
					continue
				}
				var uris []string
				editURIs(v, &uris)
				for _, s := range uris {
					p := uri.URI(s).FsPath()
					named++
					assert.True(t, realInside(realWS, p), "seed %d: %s names %s, whose real path is outside the workspace", seed, rel, p)
				}
			}
		}
	}
	assert.NotZero(t, named)
	t.Logf("%d random trees, %d file names in results, all inside", runs, named)
}
