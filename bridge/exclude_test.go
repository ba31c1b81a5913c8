package bridge_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// An `ahpls.exclude` change on a running link (#28: a file excluded stops
// being served): the skill it names leaves the published plugin and the
// host can no longer read it, without a restart of the link; removing the
// glob brings it back.
func TestExcludeSettingStopsServing(t *testing.T) {
	h := newHosted(t, nil)
	ctx := context.Background()
	cid := ""
	var uri string
	h.wait("run-tests served", func() bool {
		st, err := h.ed.HostStatus(ctx)
		if err != nil || st.State != "connected" {
			return false
		}
		cid = st.ClientID
		for _, p := range st.Plugins {
			if _, err := h.host.ResourceRead(ctx, cid, p.URI+"/skills/run-tests/SKILL.md"); err == nil {
				uri = p.URI + "/skills/run-tests/SKILL.md"
				return true
			}
		}
		return false
	})
	link := h.ed.Bridge.Link()

	require.NoError(t, h.ed.Configure(ctx, h.settings(map[string]any{"exclude": []string{".github/skills/run-tests"}})))
	h.wait("run-tests no longer served", func() bool {
		_, err := h.host.ResourceRead(ctx, cid, uri)
		return err != nil
	})
	require.Same(t, link, h.ed.Bridge.Link(), "the link is not restarted (running tool calls would end)")

	require.NoError(t, h.ed.Configure(ctx, h.settings(nil)))
	h.wait("run-tests served again", func() bool {
		_, err := h.host.ResourceRead(ctx, cid, uri)
		return err == nil
	})
}

// The same through the folder's .ahpls/config.json, edited while the link
// runs.
func TestFolderConfigExcludeStopsServing(t *testing.T) {
	h := newHosted(t, nil)
	ctx := context.Background()
	// The folder exists before the file: a file created with its folder
	// reaches the link only through the folder's scan.
	cfg := filepath.Join(h.ws, ".ahpls", "config.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(cfg), 0o755))
	cid := ""
	var uri string
	h.wait("run-tests served", func() bool {
		st, err := h.ed.HostStatus(ctx)
		if err != nil || st.State != "connected" {
			return false
		}
		cid = st.ClientID
		for _, p := range st.Plugins {
			if _, err := h.host.ResourceRead(ctx, cid, p.URI+"/skills/run-tests/SKILL.md"); err == nil {
				uri = p.URI + "/skills/run-tests/SKILL.md"
				return true
			}
		}
		return false
	})
	require.NoError(t, os.WriteFile(cfg, []byte(`{"exclude": [".github/skills/run-tests"]}`), 0o644))
	h.wait("run-tests no longer served", func() bool {
		_, err := h.host.ResourceRead(ctx, cid, uri)
		return err != nil
	})
	require.NoError(t, os.Remove(cfg))
	h.wait("run-tests served again", func() bool {
		_, err := h.host.ResourceRead(ctx, cid, uri)
		return err == nil
	})
}

// A published file deleted while the link runs is no longer served (the
// folder's next build drops it; until then the read finds it missing).
func TestDeletedFileStopsServing(t *testing.T) {
	h := newHosted(t, nil)
	ctx := context.Background()
	cid := ""
	var uri string
	h.wait("run-tests served", func() bool {
		st, err := h.ed.HostStatus(ctx)
		if err != nil || st.State != "connected" {
			return false
		}
		cid = st.ClientID
		for _, p := range st.Plugins {
			if _, err := h.host.ResourceRead(ctx, cid, p.URI+"/skills/run-tests/SKILL.md"); err == nil {
				uri = p.URI + "/skills/run-tests/SKILL.md"
				return true
			}
		}
		return false
	})
	require.NoError(t, os.RemoveAll(filepath.Join(h.ws, ".github", "skills", "run-tests")))
	h.wait("run-tests no longer served", func() bool {
		_, err := h.host.ResourceRead(ctx, cid, uri)
		return err != nil
	})
	h.wait("run-tests left the published plugin", func() bool {
		st, err := h.ed.HostStatus(ctx)
		if err != nil {
			return false
		}
		for _, p := range st.Plugins {
			if p.URI+"/skills/run-tests/SKILL.md" == uri {
				_, err := h.host.Request(ctx, cid, "resourceResolve", map[string]any{"uri": uri})
				return err != nil
			}
		}
		return true
	})
}
