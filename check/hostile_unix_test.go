//go:build unix

package check

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/diagnostics"
)

// hostileWorkspace holds one of each file-system hazard a repository can
// carry, each under a name ahpls reads, next to one healthy skill.
func hostileWorkspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	skill := func(rel string) {
		write(t, root, rel, "---\nname: "+filepath.Base(filepath.Dir(rel))+"\ndescription: Fine.\n---\nBody.\n")
	}
	fifo := func(rel string) {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, syscall.Mkfifo(p, 0o644))
	}
	link := func(target, rel string) {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.Symlink(target, p))
	}
	skill(".github/skills/ok/SKILL.md")
	// Manifests the plugin-root detection reads.
	skill("zero/skills/a/SKILL.md")
	link("/dev/zero", "zero/plugin.json")
	skill("pipe/skills/b/SKILL.md")
	fifo("pipe/plugin.json")
	skill("cc/skills/c/SKILL.md")
	fifo("cc/.claude-plugin/plugin.json")
	// Customization files themselves.
	fifo(".github/skills/fifo/SKILL.md")
	link("/dev/zero", ".github/skills/devzero/SKILL.md")
	link("SKILL.md", ".github/skills/loop/SKILL.md")
	link("..", ".github/skills/dirloop/up") // a folder loop: not entered
	p := filepath.Join(root, ".github/skills/sparse/SKILL.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	f, err := os.Create(p)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(1<<30))
	require.NoError(t, f.Close())
	return root
}

// TestHostileWorkspace: on the code before package wsfs, `ahpls check`
// blocked forever on the FIFOs and grew without bound on /dev/zero. Now it
// finishes with one finding per hazard and the usual exit code. The timeout
// is a hang guard, not a speed assertion (the speed is reported, not
// tested).
func TestHostileWorkspace(t *testing.T) {
	root := hostileWorkspace(t)
	type result struct {
		code     int
		out, err string
		took     time.Duration
	}
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		start := time.Now()
		code := Main([]string{root}, &out, &errb, "test", diagnostics.Options{})
		done <- result{code, out.String(), errb.String(), time.Since(start)}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("ahpls check hangs on a hostile workspace")
	}
	t.Logf("hostile workspace checked in %v", r.took)
	requireOnlySummary(t, r.err)
	assert.Equal(t, 0, r.code, "warnings only: the exit code is what it would be without the hazards")

	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(r.out), "\n") {
		rel, rest, ok := strings.Cut(strings.TrimPrefix(line, root+string(filepath.Separator)), ":")
		require.True(t, ok, line)
		_, prev := got[rel]
		assert.False(t, prev, "one finding per hazard, got a second for %s: %s", rel, line)
		got[rel] = rest
	}
	want := map[string]string{
		"zero/plugin.json":                "1:1: warning: ahpls did not read this file: a symlink that leads out of the workspace folder. Only regular files inside the workspace folder are checked. [file/unreadable]",
		"pipe/plugin.json":                "1:1: warning: ahpls did not read this file: a FIFO (named pipe), not a regular file. Only regular files inside the workspace folder are checked. [file/unreadable]",
		"cc/.claude-plugin/plugin.json":   "1:1: warning: ahpls did not read this file: a FIFO (named pipe), not a regular file. Only regular files inside the workspace folder are checked. [file/unreadable]",
		".github/skills/fifo/SKILL.md":    "1:1: warning: ahpls did not read this file: a FIFO (named pipe), not a regular file. Only regular files inside the workspace folder are checked. [file/unreadable]",
		".github/skills/devzero/SKILL.md": "1:1: warning: ahpls did not read this file: a symlink that leads out of the workspace folder. Only regular files inside the workspace folder are checked. [file/unreadable]",
		".github/skills/loop/SKILL.md":    "1:1: warning: ahpls did not read this file: a symlink loop. Only regular files inside the workspace folder are checked. [file/unreadable]",
		".github/skills/sparse/SKILL.md":  "1:1: warning: ahpls does not check files over 4 MiB; this one has 1073741824 bytes. [file/too-large]",
	}
	assert.Equal(t, want, got)
}
