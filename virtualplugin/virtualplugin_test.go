package virtualplugin

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/wsfs"
)

func write(t testing.TB, root, rel, content string) string {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// sampleWorkspace lays out one of every source kind plus a plugin folder
// and a skill the checker rejects.
func sampleWorkspace(t testing.TB, parent string) string {
	root := filepath.Join(parent, "My Project")
	write(t, root, ".github/skills/lint/SKILL.md", "---\nname: lint\ndescription: Lint the code.\n---\nRun the linter.\n")
	write(t, root, ".github/skills/lint/scripts/run.sh", "#!/bin/sh\necho lint\n")
	write(t, root, ".claude/skills/review/SKILL.md", "---\nname: review\ndescription: Review.\n---\n")
	write(t, root, ".claude/skills/lint/SKILL.md", "---\nname: lint\ndescription: shadowed by .github.\n---\n")
	write(t, root, ".github/skills/broken/SKILL.md", "---\nname: Broken Skill\n---\n")
	write(t, root, ".github/skills/broken/notes.txt", "left out with its skill\n")
	write(t, root, ".github/agents/planner.agent.md", "---\ndescription: Plans.\n---\n")
	write(t, root, ".claude/agents/tester.md", "---\nname: tester\ndescription: Tests.\n---\n")
	write(t, root, ".github/prompts/release.prompt.md", "---\ndescription: Release.\n---\n")
	write(t, root, ".claude/commands/deploy/prod.md", "Deploy to prod.\n")
	write(t, root, ".github/instructions/go.instructions.md", "---\napplyTo: '**/*.go'\n---\n")
	write(t, root, ".claude/rules/style.md", "Be terse.\n")
	write(t, root, ".github/hooks/a.json", `{"hooks":{"PostToolUse":[{"type":"command","command":"fmt"}]}}`)
	write(t, root, ".github/hooks/b.json", `{"hooks":{"PostToolUse":[{"type":"command","command":"lint"}],"Stop":[{"type":"command","command":"bye"}]}}`)
	write(t, root, ".mcp.json", `{"mcpServers":{"docs":{"command":"docs-server"},"db":{"command":"db"}}}`)
	write(t, root, "AGENTS.md", "always on; read by the host from the workspace itself\n")
	write(t, root, "src/main.go", "package main\n")
	write(t, root, "plugins/toolbox/.claude-plugin/plugin.json", `{"name":"toolbox","version":"1.0.0"}`)
	write(t, root, "plugins/toolbox/skills/fmt/SKILL.md", "---\nname: fmt\ndescription: Format.\n---\n")
	write(t, root, "plugins/toolbox/hooks/hooks.json", `{"hooks":{}}`)
	return root
}

func rejectTitleCase(rel string, kind model.Kind, text []byte) string {
	if strings.Contains(string(text), "name: Broken Skill") {
		return "skill name 'Broken Skill' may use only a–z, 0–9 and '-'"
	}
	return ""
}

func build(t testing.TB, root string) (*Builder, *Snapshot) {
	b, err := NewBuilder(root, Options{Check: rejectTitleCase})
	require.NoError(t, err)
	snap, err := b.Build()
	require.NoError(t, err)
	return b, snap
}

func vpaths(p *Plugin) []string {
	var out []string
	for _, f := range p.Files {
		out = append(out, f.VPath)
	}
	return out
}

func TestSynthesisLayout(t *testing.T) {
	root := sampleWorkspace(t, t.TempDir())
	_, snap := build(t, root)
	require.Len(t, snap.Plugins, 2)
	ws, tb := snap.Plugins[0], snap.Plugins[1]
	assert.True(t, ws.Synth)
	assert.Equal(t, "my-project", ws.Name)
	assert.Equal(t, PluginURI(FolderKey(root), "my-project"), ws.URI)
	assert.Equal(t, []string{
		".mcp.json",
		".plugin/plugin.json",
		"agents/planner.agent.md",
		"agents/tester.md",
		"commands/deploy/prod.md",
		"commands/release.prompt.md",
		"hooks/hooks.json",
		"rules/go.instructions.md",
		"rules/style.md",
		"skills/lint/SKILL.md",
		"skills/lint/scripts/run.sh",
		"skills/review/SKILL.md",
	}, vpaths(ws))
	assert.Equal(t, []string{"db", "docs"}, ws.MCPServers)

	assert.Equal(t, "toolbox", tb.Name)
	assert.False(t, tb.Synth)
	assert.Equal(t, []string{".claude-plugin/plugin.json", "hooks/hooks.json", "skills/fmt/SKILL.md"}, vpaths(tb))

	var excluded []string
	for _, e := range snap.Exclusions {
		excluded = append(excluded, e.Path)
	}
	sort.Strings(excluded)
	assert.Equal(t, []string{".claude/skills/lint/SKILL.md", ".github/skills/broken/SKILL.md"}, excluded)
	for _, e := range snap.Exclusions {
		if e.Path == ".github/skills/broken/SKILL.md" {
			assert.Contains(t, e.Reason, "Broken Skill")
		}
	}
}

func TestMergedHooksAreDeterministic(t *testing.T) {
	root := sampleWorkspace(t, t.TempDir())
	_, snap := build(t, root)
	srv := NewServer()
	srv.Publish(snap)
	res, err := srv.Read(snap.Plugins[0].URI+"/hooks/hooks.json", "utf-8")
	require.NoError(t, err)
	assert.JSONEq(t, `{"hooks":{"PostToolUse":[{"type":"command","command":"fmt"},{"type":"command","command":"lint"}],"Stop":[{"type":"command","command":"bye"}]}}`, res.Data)
}

func TestNonceIsContentOnly(t *testing.T) {
	a := sampleWorkspace(t, t.TempDir())
	b := sampleWorkspace(t, t.TempDir())
	// Different mtimes, different absolute paths, same content.
	require.NoError(t, os.Chtimes(filepath.Join(b, ".github/skills/lint/SKILL.md"), nowMinusHour(), nowMinusHour()))
	_, sa := build(t, a)
	_, sb := build(t, b)
	require.Len(t, sb.Plugins, len(sa.Plugins))
	for i := range sa.Plugins {
		assert.Equal(t, sa.Plugins[i].Nonce, sb.Plugins[i].Nonce, sa.Plugins[i].Name)
	}
	assert.NotEqual(t, sa.Plugins[0].URI, sb.Plugins[0].URI, "two folders never share a plugin URI")
}

func TestNonceChangesExactlyWithContent(t *testing.T) {
	root := sampleWorkspace(t, t.TempDir())
	b, before := build(t, root)
	skill := filepath.Join(root, ".github/skills/lint/SKILL.md")
	orig, err := os.ReadFile(skill)
	require.NoError(t, err)

	cases := []struct {
		name   string
		change func()
		revert func()
	}{
		{"one byte", func() { write(t, root, ".github/skills/lint/SKILL.md", strings.Replace(string(orig), "Run", "Ran", 1)) },
			func() { write(t, root, ".github/skills/lint/SKILL.md", string(orig)) }},
		{"new supporting file", func() { write(t, root, ".github/skills/lint/extra.md", "x") },
			func() { require.NoError(t, os.Remove(filepath.Join(root, ".github/skills/lint/extra.md"))) }},
		{"renamed path", func() {
			require.NoError(t, os.Rename(filepath.Join(root, ".github/skills/lint/scripts/run.sh"), filepath.Join(root, ".github/skills/lint/scripts/go.sh")))
		}, func() {
			require.NoError(t, os.Rename(filepath.Join(root, ".github/skills/lint/scripts/go.sh"), filepath.Join(root, ".github/skills/lint/scripts/run.sh")))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.change()
			b.Changed(filepath.Join(root, ".github/skills/lint/SKILL.md"), filepath.Join(root, ".github/skills/lint/extra.md"),
				filepath.Join(root, ".github/skills/lint/scripts/run.sh"), filepath.Join(root, ".github/skills/lint/scripts/go.sh"))
			mid, err := b.Build()
			require.NoError(t, err)
			assert.NotEqual(t, before.Plugins[0].Nonce, mid.Plugins[0].Nonce, "workspace plugin changed")
			assert.Equal(t, before.Plugins[1].Nonce, mid.Plugins[1].Nonce, "the other plugin did not")
			c.revert()
			b.Changed(filepath.Join(root, ".github/skills/lint/SKILL.md"), filepath.Join(root, ".github/skills/lint/extra.md"),
				filepath.Join(root, ".github/skills/lint/scripts/run.sh"), filepath.Join(root, ".github/skills/lint/scripts/go.sh"))
			after, err := b.Build()
			require.NoError(t, err)
			assert.Equal(t, before.Plugins[0].Nonce, after.Plugins[0].Nonce, "revert restores the nonce")
		})
	}
}

func TestOverlayWinsOverDisk(t *testing.T) {
	root := sampleWorkspace(t, t.TempDir())
	skill := filepath.Join(root, ".claude/skills/review/SKILL.md")
	buffers := map[string][]byte{}
	b, err := NewBuilder(root, Options{Check: rejectTitleCase, Overlay: func(abs string) ([]byte, bool) { d, ok := buffers[abs]; return d, ok }})
	require.NoError(t, err)
	s1, err := b.Build()
	require.NoError(t, err)
	buffers[skill] = []byte("---\nname: review\ndescription: Unsaved edit.\n---\n")
	b.Changed(skill)
	s2, err := b.Build()
	require.NoError(t, err)
	assert.NotEqual(t, s1.Plugins[0].Nonce, s2.Plugins[0].Nonce)
	srv := NewServer()
	srv.Publish(s2)
	res, err := srv.Read(s2.Plugins[0].URI+"/skills/review/SKILL.md", "")
	require.NoError(t, err)
	assert.Equal(t, string(buffers[skill]), res.Data)
	// Typing a Title-Case name into the buffer unpublishes the skill.
	buffers[skill] = []byte("---\nname: Broken Skill\n---\n")
	b.Changed(skill)
	s3, err := b.Build()
	require.NoError(t, err)
	assert.NotContains(t, vpaths(s3.Plugins[0]), "skills/review/SKILL.md")
}

// TestServeWholeTreeByteIdentical walks every plugin the way a host does
// (resolve, list, read) and compares each file with the disk.
func TestServeWholeTreeByteIdentical(t *testing.T) {
	root := sampleWorkspace(t, t.TempDir())
	write(t, root, ".github/skills/lint/logo.bin", "\x89PNG\x00\x01\xff")
	_, snap := build(t, root)
	srv := NewServer()
	srv.Publish(snap)
	for _, p := range snap.Plugins {
		res, err := srv.Resolve(p.URI)
		require.NoError(t, err)
		assert.Equal(t, "directory", res.Type)
		assert.Equal(t, p.Nonce, res.Etag)
		read := 0
		var walk func(uri string)
		walk = func(uri string) {
			l, err := srv.List(uri)
			require.NoError(t, err, uri)
			for _, e := range l.Entries {
				child := uri + "/" + e.Name
				r, err := srv.Resolve(child)
				require.NoError(t, err, child)
				assert.Equal(t, e.Type, r.Type)
				if e.Type == "directory" {
					walk(child)
					continue
				}
				vpath := strings.TrimPrefix(child, p.URI+"/")
				f, ok := p.File(vpath)
				require.True(t, ok)
				want := f.Data
				if want == nil {
					want, err = os.ReadFile(f.Source)
					require.NoError(t, err)
				}
				for _, enc := range []string{"", "utf-8", "base64"} {
					rr, err := srv.Read(child, enc)
					require.NoError(t, err)
					got := []byte(rr.Data)
					if rr.Encoding == "base64" {
						got, err = base64.StdEncoding.DecodeString(rr.Data)
						require.NoError(t, err)
					} else {
						assert.NotEqual(t, "base64", enc, "base64 requested, base64 served")
					}
					assert.Equal(t, want, got, child)
				}
				read++
			}
		}
		walk(p.URI)
		assert.Equal(t, len(p.Files), read, "every file reached by walking")
	}
}

func TestAttackPathsAreRefused(t *testing.T) {
	parent := t.TempDir()
	root := sampleWorkspace(t, parent)
	secret := write(t, parent, "secret.txt", "top secret")
	// Links planted before the scan: out of the workspace, to a device, to a
	// directory outside, and a dangling one. None is published.
	require.NoError(t, os.Symlink(secret, filepath.Join(root, ".github/skills/lint/leak.md")))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(root, ".github/skills/lint/zero")))
	require.NoError(t, os.Symlink(parent, filepath.Join(root, ".github/skills/lint/up")))
	require.NoError(t, os.Symlink(filepath.Join(root, "nope"), filepath.Join(root, ".github/skills/lint/dangling")))
	_, snap := build(t, root)
	srv := NewServer()
	srv.Publish(snap)
	ws := snap.Plugins[0].URI
	notFound, denied := CodeNotFound, CodePermissionDenied
	attacks := []struct {
		uri  string
		code int
	}{
		{ws + "/../secret.txt", denied},
		{ws + "/skills/../../secret.txt", denied},
		{ws + "/%2e%2e/secret.txt", denied},
		{ws + "/%2E%2E%2Fsecret.txt", denied},
		{ws + "/skills%2f..%2f..%2fsecret.txt", denied},
		{ws + "/skills/lint/..%5c..%5csecret.txt", denied},
		{ws + "/./skills/lint/SKILL.md", denied},
		{ws + "//skills/lint/SKILL.md", denied},
		{ws + "/skills/lint/SKILL.md%00.txt", denied},
		{ws + "/skills/lint/SKILL.md?x=1", denied},
		{ws + "/skills/lint/SKILL.md#frag", denied},
		{ws + "/skills\\lint\\SKILL.md", denied},
		{"file://" + secret, denied},
		{"virtual://other/" + FolderKey(root) + "/my-project/.mcp.json", denied},
		{"virtual://ahpls/" + FolderKey(root) + "/" + strings.Repeat("a/", 3000) + "x", denied},
		{ws + "/" + filepath.ToSlash(secret), denied},
		{ws + "/skills/lint/leak.md", notFound},
		{ws + "/skills/lint/zero", notFound},
		{ws + "/skills/lint/up/secret.txt", notFound},
		{ws + "/skills/lint/dangling", notFound},
		{ws + "/src/main.go", notFound},
		{ws + "/AGENTS.md", notFound},
		{ws + "/skills/broken/SKILL.md", notFound},
		{"virtual://ahpls/00000000/my-project/.mcp.json", notFound},
	}
	require.GreaterOrEqual(t, len(attacks), 15)
	for _, a := range attacks {
		t.Run(a.uri[:min(len(a.uri), 90)], func(t *testing.T) {
			_, err := srv.Read(a.uri, "")
			var ae *Error
			require.True(t, errors.As(err, &ae), "refused with an AHP error, got %v", err)
			assert.Equal(t, a.code, ae.Code, ae.Message)
			assert.NotContains(t, ae.Message, "top secret")
			_, err = srv.Resolve(a.uri)
			require.Error(t, err)
		})
	}
}

func TestFileSwappedForSymlinkAfterPublishIsRefused(t *testing.T) {
	parent := t.TempDir()
	root := sampleWorkspace(t, parent)
	secret := write(t, parent, "secret.txt", "top secret")
	_, snap := build(t, root)
	srv := NewServer()
	srv.Publish(snap)
	skill := filepath.Join(root, ".claude/skills/review/SKILL.md")
	require.NoError(t, os.Remove(skill))
	require.NoError(t, os.Symlink(secret, skill))
	_, err := srv.Read(snap.Plugins[0].URI+"/skills/review/SKILL.md", "")
	var ae *Error
	require.True(t, errors.As(err, &ae))
	assert.Equal(t, CodePermissionDenied, ae.Code)
}

func TestContentChangedAfterPublishIsNotServedUnderOldNonce(t *testing.T) {
	root := sampleWorkspace(t, t.TempDir())
	_, snap := build(t, root)
	srv := NewServer()
	srv.Publish(snap)
	write(t, root, ".claude/skills/review/SKILL.md", "changed")
	_, err := srv.Read(snap.Plugins[0].URI+"/skills/review/SKILL.md", "")
	var ae *Error
	require.True(t, errors.As(err, &ae))
	assert.Equal(t, CodeNotFound, ae.Code)
}

func TestListAndResolveErrors(t *testing.T) {
	root := sampleWorkspace(t, t.TempDir())
	_, snap := build(t, root)
	srv := NewServer()
	srv.Publish(snap)
	ws := snap.Plugins[0].URI
	_, err := srv.List(ws + "/.mcp.json")
	var ae *Error
	require.True(t, errors.As(err, &ae), "listing a file fails")
	assert.Equal(t, CodeNotFound, ae.Code)
	l, err := srv.List(ws)
	require.NoError(t, err)
	assert.Equal(t, []ListEntry{{".mcp.json", "file"}, {".plugin", "directory"}, {"agents", "directory"}, {"commands", "directory"}, {"hooks", "directory"}, {"rules", "directory"}, {"skills", "directory"}}, l.Entries)
}

func TestEmptyWorkspacePublishesNothing(t *testing.T) {
	root := t.TempDir()
	write(t, root, "main.go", "package main")
	_, snap := build(t, root)
	assert.Empty(t, snap.Plugins)
}

// SetExclude on a built folder: the next Build leaves the newly excluded
// skill out of its plugin (and so out of what a Server serves), and brings
// it back when the glob goes.
func TestSetExclude(t *testing.T) {
	root := sampleWorkspace(t, t.TempDir())
	b, snap := build(t, root)
	has := func(snap *Snapshot, vpath string) bool {
		for _, p := range snap.Plugins {
			if _, ok := p.File(vpath); ok {
				return true
			}
		}
		return false
	}
	require.True(t, has(snap, "skills/review/SKILL.md"))

	m, err := wsfs.NewMatcher([]string{".claude/skills/review"})
	require.NoError(t, err)
	b.SetExclude(m)
	snap, err = b.Build()
	require.NoError(t, err)
	assert.False(t, has(snap, "skills/review/SKILL.md"), "excluded: not in any tree")
	assert.True(t, has(snap, "skills/lint/SKILL.md"), "the rest stays")
	srv := NewServer()
	srv.Publish(snap)
	for _, p := range snap.Plugins {
		_, err := srv.Read(p.URI+"/skills/review/SKILL.md", "")
		require.Error(t, err, "not served")
	}

	b.SetExclude(nil)
	snap, err = b.Build()
	require.NoError(t, err)
	assert.True(t, has(snap, "skills/review/SKILL.md"), "back once the glob goes")
}
