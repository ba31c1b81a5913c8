package virtualplugin

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/wsfs"
)

// pluginNamed is the snapshot's plugin of that name.
func pluginNamed(t testing.TB, snap *Snapshot, name string) *Plugin {
	t.Helper()
	for _, p := range snap.Plugins {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no plugin %q", name)
	return nil
}

func requireCode(t testing.TB, err error, code int) {
	t.Helper()
	var ae *Error
	require.True(t, errors.As(err, &ae), "want an AHP error, got %v", err)
	assert.Equal(t, code, ae.Code, ae.Message)
}

// republish rebuilds the folder and publishes the new snapshot.
func republish(t testing.TB, b *Builder, srv *Server) *Snapshot {
	t.Helper()
	snap, err := b.Build()
	require.NoError(t, err)
	srv.Publish(snap)
	return snap
}

// A host that captured a plugin at a nonce (an automation) reads that tree
// after the plugin changed: the file the host read before comes back with
// the captured bytes, a file unchanged on disk is read from disk, and a
// read without a nonce gets the current tree.
func TestSupersededVersionStaysReadableByNonce(t *testing.T) {
	root := sampleWorkspace(t, t.TempDir())
	b, snap := build(t, root)
	srv := NewServer()
	srv.Publish(snap)
	old := pluginNamed(t, snap, "toolbox")
	skill := old.URI + "/skills/fmt/SKILL.md"
	first, err := srv.ReadJSONAt(skill, old.Nonce, "")
	require.NoError(t, err, "the host reads the tree when it is published")

	edit(t, b, root, "plugins/toolbox/skills/fmt/SKILL.md", "---\nname: fmt\ndescription: Format, v2.\n---\n")
	snap = republish(t, b, srv)
	cur := pluginNamed(t, snap, "toolbox")
	require.NotEqual(t, old.Nonce, cur.Nonce)

	got, err := srv.ReadJSONAt(skill, old.Nonce, "")
	require.NoError(t, err, "the superseded tree is still served to a read naming its nonce")
	assert.JSONEq(t, string(first), string(got))
	_, err = srv.ReadAt(old.URI+"/hooks/hooks.json", old.Nonce, "")
	require.NoError(t, err, "an unchanged file of the old tree is read from disk")
	res, err := srv.ResolveAt(old.URI, old.Nonce)
	require.NoError(t, err)
	assert.Equal(t, old.Nonce, res.Etag, "the root's etag is the version asked for")
	l, err := srv.ListAt(old.URI+"/skills", old.Nonce)
	require.NoError(t, err)
	assert.Equal(t, []ListEntry{{"fmt", "directory"}}, l.Entries)

	now, err := srv.Read(skill, "")
	require.NoError(t, err)
	assert.Contains(t, now.Data, "v2", "no nonce: the current tree")
	now, err = srv.ReadAt(skill, cur.Nonce, "")
	require.NoError(t, err)
	assert.Contains(t, now.Data, "v2", "the current nonce: the current tree")

	_, err = srv.ReadAt(skill, "sha256-00000000000000000000000000000000", "")
	requireCode(t, err, CodeNotFound)
}

// Kept versions are bounded: at most KeepVersions per plugin, oldest
// dropped first.
func TestKeptVersionsAreBounded(t *testing.T) {
	root := sampleWorkspace(t, t.TempDir())
	b, snap := build(t, root)
	srv := NewServer()
	srv.Publish(snap)
	var nonces []string
	for i := range DefaultKeepVersions + 2 {
		nonces = append(nonces, pluginNamed(t, snap, "toolbox").Nonce)
		edit(t, b, root, "plugins/toolbox/skills/fmt/notes.txt", string(rune('a'+i)))
		snap = republish(t, b, srv)
	}
	uri := pluginNamed(t, snap, "toolbox").URI
	for i, n := range nonces {
		_, err := srv.ResolveAt(uri, n)
		if i < len(nonces)-DefaultKeepVersions {
			requireCode(t, err, CodeNotFound)
		} else {
			require.NoError(t, err, "version %d is among the last %d", i, DefaultKeepVersions)
		}
	}
	assert.Equal(t, DefaultKeepVersions, srv.KeptVersions())
}

// The byte budget counts what kept versions hold in memory; over it, the
// oldest superseded version of any plugin goes first.
func TestKeptVersionsByteBudget(t *testing.T) {
	root := sampleWorkspace(t, t.TempDir())
	b, snap := build(t, root)
	srv := NewServer()
	srv.SetKeepLimits(DefaultKeepVersions, 1) // one byte: nothing fits
	srv.Publish(snap)
	old := pluginNamed(t, snap, "toolbox")
	edit(t, b, root, "plugins/toolbox/skills/fmt/notes.txt", "x")
	republish(t, b, srv)
	_, err := srv.ResolveAt(old.URI, old.Nonce)
	requireCode(t, err, CodeNotFound)
	assert.Zero(t, srv.KeptVersions())
	assert.Zero(t, srv.KeptBytes())
}

// Withdrawal wins over keeping: a file that is deleted or excluded is no
// longer served in any kept version (the versions carrying it go), even
// where the host's earlier read is still cached.
func TestWithdrawnFileLeavesKeptVersions(t *testing.T) {
	for _, tc := range []struct {
		name     string
		withdraw func(t *testing.T, b *Builder, root string)
	}{
		{"deleted", func(t *testing.T, b *Builder, root string) {
			remove(t, b, root, "plugins/toolbox/skills/fmt/SKILL.md")
		}},
		{"excluded", func(t *testing.T, b *Builder, _ string) {
			excludeGlobs(t, b, "plugins/toolbox/skills/fmt")
		}},
		{"merged hook source deleted", func(t *testing.T, b *Builder, root string) {
			remove(t, b, root, ".github/hooks/a.json")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := sampleWorkspace(t, t.TempDir())
			b, snap := build(t, root)
			srv := NewServer()
			srv.Publish(snap)
			tb, ws := pluginNamed(t, snap, "toolbox"), snap.Plugins[0]
			_, err := srv.ReadJSONAt(tb.URI+"/skills/fmt/SKILL.md", tb.Nonce, "")
			require.NoError(t, err)
			_, err = srv.ReadJSONAt(ws.URI+"/hooks/hooks.json", ws.Nonce, "")
			require.NoError(t, err)

			// A change keeps the first versions.
			edit(t, b, root, "plugins/toolbox/skills/fmt/notes.txt", "v2")
			edit(t, b, root, ".claude/rules/style.md", "Be terser.\n")
			republish(t, b, srv)
			require.Equal(t, 2, srv.KeptVersions())

			tc.withdraw(t, b, root)
			republish(t, b, srv)
			switch tc.name {
			case "merged hook source deleted":
				_, err = srv.ReadJSONAt(ws.URI+"/hooks/hooks.json", ws.Nonce, "")
				requireCode(t, err, CodeNotFound)
				_, err = srv.ResolveAt(tb.URI, tb.Nonce)
				require.NoError(t, err, "the other plugin's kept version stays")
			default:
				_, err = srv.ReadJSONAt(tb.URI+"/skills/fmt/SKILL.md", tb.Nonce, "")
				requireCode(t, err, CodeNotFound)
				_, err = srv.ResolveAt(ws.URI, ws.Nonce)
				require.NoError(t, err, "the other plugin's kept version stays")
			}
		})
	}
}

// Between the deletion and the rebuild, a kept version does not serve a
// deleted file from the read cache either.
func TestDeletedFileNotServedFromCacheBeforeRebuild(t *testing.T) {
	root := sampleWorkspace(t, t.TempDir())
	b, snap := build(t, root)
	srv := NewServer()
	srv.Publish(snap)
	tb := pluginNamed(t, snap, "toolbox")
	_, err := srv.ReadJSONAt(tb.URI+"/skills/fmt/SKILL.md", tb.Nonce, "")
	require.NoError(t, err)
	edit(t, b, root, "plugins/toolbox/skills/fmt/notes.txt", "v2")
	republish(t, b, srv)
	require.NoError(t, os.Remove(filepath.Join(root, "plugins/toolbox/skills/fmt/SKILL.md")))
	_, err = srv.ReadJSONAt(tb.URI+"/skills/fmt/SKILL.md", tb.Nonce, "")
	requireCode(t, err, CodeNotFound)
}

// A folder whose workspace trust is revoked keeps no version of a plugin
// carrying hooks or MCP servers (the host would run the workspace's
// commands); other plugins' versions stay, and while untrusted no new
// command-carrying version is kept.
func TestUntrustedFolderKeepsNoCommandPlugins(t *testing.T) {
	root := sampleWorkspace(t, t.TempDir())
	write(t, root, "plugins/plain/.claude-plugin/plugin.json", `{"name":"plain"}`)
	write(t, root, "plugins/plain/skills/x/SKILL.md", "---\nname: x\ndescription: X.\n---\n")
	b, snap := build(t, root)
	srv := NewServer()
	srv.Publish(snap)
	ws, tb, plain := snap.Plugins[0], pluginNamed(t, snap, "toolbox"), pluginNamed(t, snap, "plain")
	edit(t, b, root, ".claude/rules/style.md", "Be terser.\n")
	edit(t, b, root, "plugins/toolbox/skills/fmt/notes.txt", "v2")
	edit(t, b, root, "plugins/plain/skills/x/notes.txt", "v2")
	snap = republish(t, b, srv)
	require.Equal(t, 3, srv.KeptVersions())

	srv.SetTrusted(snap.Key, false)
	for _, p := range []*Plugin{ws, tb} {
		_, err := srv.ResolveAt(p.URI, p.Nonce)
		requireCode(t, err, CodeNotFound)
	}
	_, err := srv.ResolveAt(plain.URI, plain.Nonce)
	require.NoError(t, err, "a plugin without hooks or MCP servers stays kept")

	cur := pluginNamed(t, snap, "toolbox")
	edit(t, b, root, "plugins/toolbox/skills/fmt/notes.txt", "v3")
	republish(t, b, srv)
	_, err = srv.ResolveAt(cur.URI, cur.Nonce)
	requireCode(t, err, CodeNotFound)
	assert.Equal(t, 1, srv.KeptVersions())

	srv.SetTrusted(snap.Key, true)
	cur = pluginNamed(t, republish(t, b, srv), "toolbox")
	edit(t, b, root, "plugins/toolbox/skills/fmt/notes.txt", "v4")
	republish(t, b, srv)
	_, err = srv.ResolveAt(cur.URI, cur.Nonce)
	require.NoError(t, err, "trusted again: kept again")
}

func excludeGlobs(t testing.TB, b *Builder, globs ...string) {
	t.Helper()
	m, err := wsfs.NewMatcher(globs)
	require.NoError(t, err)
	b.SetExclude(m)
}

// edit writes a file and tells the builder.
func edit(t testing.TB, b *Builder, root, rel, content string) {
	t.Helper()
	b.Changed(write(t, root, rel, content))
}

// remove deletes a file and tells the builder.
func remove(t testing.TB, b *Builder, root, rel string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	require.NoError(t, os.Remove(p))
	b.Changed(p)
}

// A version published again is current, not kept twice: A, B, A keeps B
// only, and A's nonce reads the current tree.
func TestRepublishedVersionIsCurrentNotKept(t *testing.T) {
	root := sampleWorkspace(t, t.TempDir())
	b, snap := build(t, root)
	srv := NewServer()
	srv.Publish(snap)
	a := pluginNamed(t, snap, "toolbox")
	edit(t, b, root, "plugins/toolbox/skills/fmt/notes.txt", "b")
	bv := pluginNamed(t, republish(t, b, srv), "toolbox")
	remove(t, b, root, "plugins/toolbox/skills/fmt/notes.txt")
	cur := pluginNamed(t, republish(t, b, srv), "toolbox")
	require.Equal(t, a.Nonce, cur.Nonce)
	assert.Equal(t, 0, srv.KeptVersions(), "B carried notes.txt, which left: withdrawn; A is current")

	edit(t, b, root, "plugins/toolbox/skills/fmt/SKILL.md", "---\nname: fmt\ndescription: Format, v2.\n---\n")
	republish(t, b, srv)
	edit(t, b, root, "plugins/toolbox/skills/fmt/SKILL.md", "---\nname: fmt\ndescription: Format.\n---\n")
	cur = pluginNamed(t, republish(t, b, srv), "toolbox")
	require.Equal(t, a.Nonce, cur.Nonce)
	assert.Equal(t, 1, srv.KeptVersions(), "only the v2 version is kept")
	res, err := srv.ResolveAt(a.URI, a.Nonce)
	require.NoError(t, err)
	assert.Equal(t, a.Nonce, res.Etag)
	_, err = srv.ResolveAt(bv.URI, bv.Nonce)
	requireCode(t, err, CodeNotFound)
}
