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
	cid, uri := servedRunTests(ctx, h)
	link := h.ed.Bridge.Link()

	require.NoError(t, h.ed.Configure(ctx, h.settings(map[string]any{"exclude": []string{".github/skills/run-tests"}})))
	waitServed(ctx, h, cid, uri, "run-tests no longer served", false)
	require.Same(t, link, h.ed.Bridge.Link(), "the link is not restarted (running tool calls would end)")

	require.NoError(t, h.ed.Configure(ctx, h.settings(nil)))
	waitServed(ctx, h, cid, uri, "run-tests served again", true)
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
	cid, uri := servedRunTests(ctx, h)
	require.NoError(t, os.WriteFile(cfg, []byte(`{"exclude": [".github/skills/run-tests"]}`), 0o644))
	waitServed(ctx, h, cid, uri, "run-tests no longer served", false)
	require.NoError(t, os.Remove(cfg))
	waitServed(ctx, h, cid, uri, "run-tests served again", true)
}

// A published file deleted while the link runs is no longer served (the
// folder's next build drops it; until then the read finds it missing).
func TestDeletedFileStopsServing(t *testing.T) {
	h := newHosted(t, nil)
	ctx := context.Background()
	cid, uri := servedRunTests(ctx, h)
	require.NoError(t, os.RemoveAll(filepath.Join(h.ws, ".github", "skills", "run-tests")))
	waitServed(ctx, h, cid, uri, "run-tests no longer served", false)
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

// servedRunTests waits until the host can read the run-tests skill of the
// published plugin and returns the client id and that file's URI.
func servedRunTests(ctx context.Context, h *hosted) (cid, uri string) {
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
	return cid, uri
}

// waitServed waits until a host read of uri succeeds (served) or fails
// (not served).
func waitServed(ctx context.Context, h *hosted, cid, uri, what string, served bool) {
	h.wait(what, func() bool {
		_, err := h.host.ResourceRead(ctx, cid, uri)
		return (err == nil) == served
	})
}
