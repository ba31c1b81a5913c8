package ahptest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahptest"
	"github.com/ahpls-dev/ahpls/virtualplugin"
)

// TestAhplsPublishedTreesLoad drives the host with what ahpls really
// publishes: a workspace folder scanned by package virtualplugin, served by
// its Server. This is the path `ahpls demo` exercises.
func TestAhplsPublishedTreesLoad(t *testing.T) {
	ws := t.TempDir()
	for rel, text := range map[string]string{
		".github/skills/lint/SKILL.md":     "---\nname: lint\ndescription: Run the linters and explain their findings.\n---\n\nRun `make lint`.\n",
		".mcp.json":                        `{"mcpServers":{"docs":{"command":"docs-server"}}}`,
		"tooling/.plugin/plugin.json":      `{"name":"tooling","version":"1.0.0","description":"Team tooling"}`,
		"tooling/skills/release/SKILL.md":  "---\nname: release\ndescription: Cut a release.\n---\n\nSteps.\n",
		"tooling/agents/reviewer.agent.md": "---\ndescription: Reviews pull requests.\n---\n\nYou review code.\n",
	} {
		p := filepath.Join(ws, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	b, err := virtualplugin.NewBuilder(ws, virtualplugin.Options{})
	require.NoError(t, err)
	snap, err := b.Build()
	require.NoError(t, err)
	require.Len(t, snap.Plugins, 2)
	srv := virtualplugin.NewServer()
	srv.Publish(snap)

	h := newHost(t, ahptest.Options{})
	dir := virtualplugin.FolderURI(ws)
	s := h.CreateSession(ahptest.SessionSpec{WorkingDirectories: []string{dir}})
	c, _ := startClient(t, h, func(o *ahpclient.Options) { o.Folders = []string{dir}; o.WorkspaceKey = dir })
	answer := func(res any, err error) (any, error) {
		var ve *virtualplugin.Error
		if errors.As(err, &ve) {
			return nil, ahpclient.NewError(int64(ve.Code), ve.Message, nil)
		}
		return res, err
	}
	params := func(raw json.RawMessage) (uri, encoding string) {
		var p struct{ URI, Encoding string }
		_ = json.Unmarshal(raw, &p)
		return p.URI, p.Encoding
	}
	c.Handle("resourceResolve", func(_ context.Context, raw json.RawMessage) (any, error) {
		u, _ := params(raw)
		return answer(srv.Resolve(u))
	})
	c.Handle("resourceList", func(_ context.Context, raw json.RawMessage) (any, error) {
		u, _ := params(raw)
		return answer(srv.List(u))
	})
	c.Handle("resourceRead", func(_ context.Context, raw json.RawMessage) (any, error) {
		return answer(srv.Read(params(raw)))
	})
	wait(t, h, "joined", func(v *ahptest.View) bool { return v.Subscribed(c.ClientID(), s) })

	var published []any
	for _, p := range snap.Plugins {
		published = append(published, map[string]any{"type": "plugin", "id": c.ClientID() + ":" + p.Name, "uri": p.URI, "name": p.Name, "enabled": true, "nonce": p.Nonce})
	}
	require.NoError(t, c.SetActiveClient(map[string]any{"tools": []any{}, "customizations": published}))
	for _, p := range snap.Plugins {
		id := c.ClientID() + ":" + p.Name
		wait(t, h, p.Name+" loaded", func(v *ahptest.View) bool { return loadKind(v, s, id) == "loaded" })
		entry := customization(viewOf(h), s, id)
		children := fmt.Sprint(childSummary(entry))
		if p.Synth {
			assert.Contains(t, children, "skill "+id+"/skill/lint lint — Run the linters")
			assert.Equal(t, []string{"docs"}, p.MCPServers)
		} else {
			assert.Contains(t, children, "skill "+id+"/skill/release release")
			assert.Contains(t, children, "agent "+id+"/agent/reviewer reviewer")
		}
		for _, name := range p.MCPServers {
			assert.Contains(t, children, "mcpServer "+id+"/mcpServer/"+name)
		}
		assert.True(t, strings.HasPrefix(p.URI, "virtual://ahpls/"))
	}
}
