package bridge_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahptest"
	"github.com/ahpls-dev/ahpls/bridge"
	"github.com/ahpls-dev/ahpls/internal/lspeditor"
	"github.com/ahpls-dev/ahpls/virtualplugin"
)

// waitLimit only guards against a hung test; assertions never depend on it.
const waitLimit = 30 * time.Second

// hosted is a copy of the example workspace, the in-repo AHP host on
// loopback with a session on it, and an editor stand-in speaking LSP to a
// real server with the bridge installed.
type hosted struct {
	t       testing.TB
	ws      string
	host    *ahptest.Host
	url     string
	session string
	ed      *lspeditor.Editor

	mu         sync.Mutex
	violations []error
}

func newHosted(t testing.TB, settings map[string]any) *hosted {
	t.Helper()
	return newHostedWith(t, settings, 20*time.Millisecond)
}

// newHostedWith sets the link's rebuild debounce too.
func newHostedWith(t testing.TB, settings map[string]any, linkDebounce time.Duration) *hosted {
	t.Helper()
	src, err := filepath.Abs(filepath.Join("..", "examples", "workspace"))
	require.NoError(t, err)
	h := &hosted{t: t, ws: filepath.Join(t.TempDir(), "ws")}
	require.NoError(t, os.CopyFS(h.ws, os.DirFS(src)))
	h.host = ahptest.New(ahptest.Options{ProtocolVersions: []string{"1.0.0", "0.9.0", "0.8.0"}, OnViolation: func(err error) {
		h.mu.Lock()
		h.violations = append(h.violations, err)
		h.mu.Unlock()
	}})
	h.url, err = h.host.Start()
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.host.Close() })
	h.session = h.host.CreateSession(ahptest.SessionSpec{Title: t.Name(), WorkingDirectories: []string{virtualplugin.FolderURI(h.ws)}})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	h.ed, err = lspeditor.StartEditor(ctx, lspeditor.EditorOptions{
		Folders:  []string{h.ws},
		Settings: h.settings(settings),
		Bridge:   bridge.Config{StateDir: t.TempDir(), LinkDebounce: linkDebounce, Getenv: func(string) string { return "" }},
	})
	require.NoError(t, err)
	t.Cleanup(h.ed.Close)
	t.Cleanup(func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		assert.Empty(t, h.violations, "protocol violations seen by the host")
	})
	return h
}

// settings are the host keys for this workspace plus extra.
func (h *hosted) settings(extra map[string]any) map[string]any {
	st := map[string]any{"host": h.url, "sessions": []string{h.session}}
	for k, v := range extra {
		st[k] = v
	}
	return st
}

func (h *hosted) wait(what string, cond func() bool) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	require.NoError(h.t, h.ed.Wait(ctx, cond), "waiting for %s", what)
}

// TestRulesSettingReachesPublication is the regression test of #14: a
// change of ahpls.rules (workspace/didChangeConfiguration) changes which
// files are left out of publication, not only the editor's diagnostics.
func TestRulesSettingReachesPublication(t *testing.T) {
	h := newHosted(t, nil)
	broken := filepath.Join(h.ws, ".github", "skills", "db-migrate", "SKILL.md")
	h.wait("db-migrate left out", func() bool { _, ok := h.ed.Excluded()[broken]; return ok })

	ctx := context.Background()
	require.NoError(t, h.ed.Configure(ctx, h.settings(map[string]any{"rules": map[string]string{"skill/desc-missing": "off"}})))
	h.wait("the rule's own diagnostic gone", func() bool {
		p, ok := h.ed.Diagnostics(broken)
		return ok && !p.Has("skill/desc-missing")
	})
	h.wait("db-migrate published once its only error is off", func() bool { _, ok := h.ed.Excluded()[broken]; return !ok })

	// And back: the rule on again leaves the file out again.
	require.NoError(t, h.ed.Configure(ctx, h.settings(nil)))
	h.wait("db-migrate left out again", func() bool { _, ok := h.ed.Excluded()[broken]; return ok })
}

// TestOneCheckPerChange: with a host connected, a one-file change costs one
// rules run in all (#17): the link's rebuild takes the server's findings
// for the same text instead of checking again.
func TestOneCheckPerChange(t *testing.T) {
	h := newHosted(t, map[string]any{"trustWorkspaceTools": true})
	ctx := context.Background()
	path := filepath.Join(h.ws, ".claude", "skills", "code-review", "SKILL.md")
	orig, err := os.ReadFile(path)
	require.NoError(t, err)
	var nonce string
	h.wait("published", func() bool {
		st, err := h.ed.HostStatus(ctx)
		if err != nil || len(st.Plugins) == 0 {
			return false
		}
		nonce = st.Plugins[0].Nonce
		return true
	})
	require.NoError(t, h.ed.Open(ctx, path, string(orig), 1))
	h.wait("open published", func() bool { p, ok := h.ed.Diagnostics(path); return ok && p.Version != nil && *p.Version == 1 })
	// Let the open settle in the link (same text: no new nonce).
	time.Sleep(200 * time.Millisecond)

	srv, link := h.ed.Server, h.ed.Bridge.Link()
	before := srv.Checks() + link.Checks()
	// A name the VS Code host rejects: a finding for the editor, and the
	// skill leaves the published plugin (a new nonce).
	edited := strings.Replace(string(orig), "name: code-review", "name: Code Review", 1)
	require.NotEqual(t, string(orig), edited)
	require.NoError(t, h.ed.Change(ctx, path, edited, 2))
	h.wait("v2 published to the editor", func() bool { p, ok := h.ed.Diagnostics(path); return ok && p.Version != nil && *p.Version == 2 })
	h.wait("v2 republished to the host", func() bool {
		st, err := h.ed.HostStatus(ctx)
		return err == nil && len(st.Plugins) > 0 && st.Plugins[0].Nonce != nonce
	})
	time.Sleep(200 * time.Millisecond) // nothing else may follow
	assert.Equal(t, int64(1), srv.Checks()+link.Checks()-before,
		"rules runs for one change (server %d, link %d in all)", srv.Checks(), link.Checks())
}

// TestHostFindingsFollowTheText is #15 item 3: open a SKILL.md without a
// description (v1, left out of publication), fix it (v2): no diagnostics published
// for v2 may carry the host side's publish/excluded computed from v1. The
// link's rebuild is slow here (a slow publisher), so the server publishes
// v2 long before the link has looked at it.
func TestHostFindingsFollowTheText(t *testing.T) {
	h := newHostedWith(t, nil, 400*time.Millisecond)
	ctx := context.Background()
	path := filepath.Join(h.ws, ".claude", "skills", "code-review", "SKILL.md")
	orig, err := os.ReadFile(path)
	require.NoError(t, err)
	bad := regexp.MustCompile(`(?m)^description:.*\n`).ReplaceAllString(string(orig), "")
	require.NotEqual(t, string(orig), bad)
	require.NoError(t, h.ed.Open(ctx, path, bad, 1))
	h.wait("v1 left out", func() bool {
		p, ok := h.ed.Diagnostics(path)
		return ok && p.Version != nil && *p.Version == 1 && p.Has("publish/excluded")
	})
	require.NoError(t, h.ed.Change(ctx, path, string(orig), 2))
	h.wait("v2 published", func() bool { p, ok := h.ed.Diagnostics(path); return ok && p.Version != nil && *p.Version == 2 })
	time.Sleep(600 * time.Millisecond) // the link catches up and republishes
	for _, p := range h.ed.History() {
		if p.Path == path && p.Version != nil && *p.Version == 2 {
			assert.False(t, p.Has("publish/excluded"), "v2 carries a host finding computed from v1: %+v", p.Diagnostics)
		}
	}
	_, excluded := h.ed.Excluded()[path]
	assert.False(t, excluded)
}

// The host commands over LSP: argument errors name the shape, a file URI
// toggles that file's item in the joined session, the list shows it off.
func TestHostCommands(t *testing.T) {
	h := newHosted(t, nil)
	ctx := context.Background()
	h.wait("joined", func() bool {
		st, err := h.ed.HostStatus(ctx)
		return err == nil && st.State == "connected" && len(st.Sessions) == 1 && len(st.Plugins) > 0
	})
	err := h.ed.Command(ctx, "ahpls.toggleCustomization", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "takes one argument")
	err = h.ed.Command(ctx, "ahpls.toggleCustomization", nil, map[string]any{"id": "x"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"enabled" is missing`)

	h.wait("the host lists the skill", func() bool {
		var list map[string][]map[string]any
		if h.ed.Command(ctx, "ahpls.listCustomizations", &list) != nil {
			return false
		}
		for _, r := range list[h.session] {
			if r["name"] == "run-tests" {
				return true
			}
		}
		return false
	})
	skill := filepath.Join(h.ws, ".github", "skills", "run-tests", "SKILL.md")
	var rows []map[string]any
	require.NoError(t, h.ed.Command(ctx, "ahpls.toggleCustomization", &rows, map[string]any{"uri": "file://" + filepath.ToSlash(skill), "enabled": false}))
	require.NotEmpty(t, rows)
	var list map[string][]map[string]any
	require.NoError(t, h.ed.Command(ctx, "ahpls.listCustomizations", &list))
	require.Contains(t, list, h.session)
	off := false
	for _, r := range list[h.session] {
		if r["name"] == "run-tests" && r["on"] == false {
			off = true
		}
	}
	assert.True(t, off, "run-tests is off in %v", list[h.session])
}
