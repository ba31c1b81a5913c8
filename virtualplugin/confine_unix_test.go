//go:build unix

package virtualplugin

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPublishedFileSwappedForFIFO: the read opened the file before checking
// it was regular, so a FIFO swapped in hung resourceRead forever.
func TestPublishedFileSwappedForFIFO(t *testing.T) {
	root := sampleWorkspace(t, t.TempDir())
	_, snap := build(t, root)
	srv := NewServer()
	srv.Publish(snap)
	skill := filepath.Join(root, ".claude/skills/review/SKILL.md")
	require.NoError(t, os.Remove(skill))
	require.NoError(t, mkfifo(skill))
	done := make(chan error, 1)
	go func() {
		_, err := srv.Read(snap.Plugins[0].URI+"/skills/review/SKILL.md", "")
		done <- err
	}()
	select {
	case err := <-done:
		var ae *Error
		require.True(t, errors.As(err, &ae))
		assert.Equal(t, CodePermissionDenied, ae.Code, ae.Message)
		assert.NotContains(t, ae.Message, root)
	case <-time.After(30 * time.Second):
		t.Fatal("resourceRead of a FIFO hangs")
	}
	// A rebuild leaves the FIFO out, and hooks/manifests read on the way
	// (plugin detection, hooks merge) do not block either.
	require.NoError(t, os.Remove(filepath.Join(root, ".github/hooks/a.json")))
	require.NoError(t, mkfifo(filepath.Join(root, ".github/hooks/a.json")))
	require.NoError(t, os.Remove(filepath.Join(root, "plugins/toolbox/.claude-plugin/plugin.json")))
	require.NoError(t, mkfifo(filepath.Join(root, "plugins/toolbox/.claude-plugin/plugin.json")))
	built := make(chan *Snapshot, 1)
	go func() { _, s := build(t, root); built <- s }()
	select {
	case s := <-built:
		assert.NotContains(t, vpaths(s.Plugins[0]), "skills/review/SKILL.md")
	case <-time.After(30 * time.Second):
		t.Fatal("a rebuild blocks on a FIFO")
	}
}

func mkfifo(p string) error { return syscall.Mkfifo(p, 0o644) }
