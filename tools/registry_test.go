package tools

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func defsNamed(src Source, names ...string) []*Definition {
	var out []*Definition
	for _, n := range names {
		out = append(out, &Definition{Name: n, Source: src, Command: &Command{Argv: []ArgvItem{{"true"}}}})
	}
	return out
}

func TestResolveNames(t *testing.T) {
	cases := []struct {
		name       string
		defs       []*Definition
		others     []string
		want       []string
		collisions []Collision
	}{
		{
			name: "prefix only",
			defs: defsNamed(SourceWorkspace, "a", "b"),
			want: []string{"ahpls_a", "ahpls_b"},
		},
		{
			name:   "unrelated other names",
			defs:   defsNamed(SourceWorkspace, "a"),
			others: []string{"a", "read_file", "ahpls_b"},
			want:   []string{"ahpls_a"},
		},
		{
			name:   "collision with a server or other client tool is renamed",
			defs:   defsNamed(SourceWorkspace, "a"),
			others: []string{"ahpls_a", "ahpls_a_2"},
			want:   []string{"ahpls_a_3"},
			collisions: []Collision{{Tool: "a", Source: SourceWorkspace, Wanted: "ahpls_a", Final: "ahpls_a_3",
				Message: `tool name "ahpls_a" is already used by another tool of the session; offered as "ahpls_a_3"`}},
		},
		{
			name: "own duplicate: higher precedence wins",
			defs: append(defsNamed(SourceSettings, "x"), defsNamed(SourceWorkspace, "x", "y")...),
			want: []string{"ahpls_x", "ahpls_y"},
			collisions: []Collision{{Tool: "x", Source: SourceWorkspace, Wanted: "ahpls_x",
				Message: `tool "x" from the workspace config is not offered: the settings tool "x" has the same name`}},
		},
		{
			name:   "own duplicate of a renamed tool is still dropped",
			defs:   append(defsNamed(SourceSettings, "x"), defsNamed(SourceWorkspace, "x")...),
			others: []string{"ahpls_x"},
			want:   []string{"ahpls_x_2"},
			collisions: []Collision{
				{Tool: "x", Source: SourceSettings, Wanted: "ahpls_x", Final: "ahpls_x_2",
					Message: `tool name "ahpls_x" is already used by another tool of the session; offered as "ahpls_x_2"`},
				{Tool: "x", Source: SourceWorkspace, Wanted: "ahpls_x",
					Message: `tool "x" from the workspace config is not offered: the settings tool "x" has the same name`},
			},
		},
		{
			name:   "a rename does not take a name our own later tool wants",
			defs:   defsNamed(SourceWorkspace, "a", "a_2"),
			others: []string{"ahpls_a"},
			want:   []string{"ahpls_a_3", "ahpls_a_2"},
			collisions: []Collision{{Tool: "a", Source: SourceWorkspace, Wanted: "ahpls_a", Final: "ahpls_a_3",
				Message: `tool name "ahpls_a" is already used by another tool of the session; offered as "ahpls_a_3"`}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			named, coll := ResolveNames(c.defs, c.others)
			var got []string
			seen := map[string]bool{}
			for _, n := range named {
				got = append(got, n.Name)
				assert.False(t, seen[n.Name], "duplicate final name %s", n.Name)
				seen[n.Name] = true
				for _, o := range c.others {
					assert.NotEqual(t, o, n.Name, "final name collides with another tool")
				}
			}
			assert.Equal(t, c.want, got)
			if c.collisions != nil || len(coll) > 0 {
				assert.Equal(t, c.collisions, coll)
			}
		})
	}
}

type fakeEditor struct {
	diags  []Diagnostic
	shown  []string
	ranges []*Range
}

func (e *fakeEditor) Diagnostics(ctx context.Context, uri string) ([]Diagnostic, error) {
	var out []Diagnostic
	for _, d := range e.diags {
		if uri == "" || d.URI == uri {
			out = append(out, d)
		}
	}
	return out, nil
}

func (e *fakeEditor) ShowDocument(ctx context.Context, uri string, rng *Range) error {
	e.shown = append(e.shown, uri)
	e.ranges = append(e.ranges, rng)
	return nil
}

func TestTrustGatesCommandTools(t *testing.T) {
	root := t.TempDir()
	r, err := NewRegistry(Options{Root: root, Editor: &fakeEditor{}, Environ: testEnviron()})
	require.NoError(t, err)
	text := config(`{"name":"t","command":{"argv":["ahplshelper","touch","marker"]}}`)
	probs := r.SetWorkspaceConfig([]byte(text))
	require.Len(t, probs, 1)
	assert.Equal(t, SeverityWarning, probs[0].Severity)
	assert.Contains(t, probs[0].Message, UntrustedReason)
	assert.Equal(t, []Blocked{{Name: "t", Source: SourceWorkspace, Reason: UntrustedReason}}, r.Blocked())

	tools, _ := r.Resolve(nil)
	assert.Equal(t, []string{"ahpls_diagnostics", "ahpls_open_file"}, wireNames(tools), "only built-ins when untrusted")
	res := r.Run(context.Background(), "ahpls_t", nil, nil)
	assert.Equal(t, CodeUnknownTool, res.ErrorCode)
	assert.NoFileExists(t, filepath.Join(root, "marker"))

	r.SetTrusted(true)
	assert.Empty(t, r.Blocked())
	tools, _ = r.Resolve(nil)
	assert.Equal(t, []string{"ahpls_diagnostics", "ahpls_open_file", "ahpls_t"}, wireNames(tools))

	// Trust withdrawn after the tool was published: the call is refused.
	r.SetTrusted(false)
	res = r.Run(context.Background(), "ahpls_t", nil, nil)
	assert.Contains(t, []string{CodeUnknownTool, CodeUntrusted}, res.ErrorCode)
	assert.NoFileExists(t, filepath.Join(root, "marker"))

	// A call that raced the trust change (looked up while trusted) is refused
	// by the trust check in Run as well.
	r.SetTrusted(true)
	_, _ = r.Resolve(nil)
	d, ok := r.Lookup("ahpls_t")
	require.True(t, ok)
	require.NotNil(t, d.Command)
	r.mu.Lock()
	r.trusted = false // flip without clearing names, as a concurrent SetTrusted might appear
	r.mu.Unlock()
	res = r.Run(context.Background(), "ahpls_t", nil, nil)
	assert.Equal(t, CodeUntrusted, res.ErrorCode)
	assert.NoFileExists(t, filepath.Join(root, "marker"))
}

func wireNames(tools []ToolDefinition) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

func TestSettingsAndWorkspaceConfig(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".ahpls"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, ConfigFile), []byte(config(
		`{"name":"shared","command":{"argv":["ahplshelper","args","workspace"]}}`,
		`{"name":"ws","command":{"argv":["ahplshelper","args","ws"]}}`)), 0o644))
	r, err := NewRegistry(Options{Root: root, Trusted: true, Environ: testEnviron()})
	require.NoError(t, err)
	probs, err := r.LoadWorkspaceConfig()
	require.NoError(t, err)
	require.Empty(t, probs)
	require.Empty(t, r.SetSettings([]byte(config(`{"name":"shared","command":{"argv":["ahplshelper","args","settings"]}}`))))

	tools, coll := r.Resolve([]string{"ahpls_ws"})
	assert.Equal(t, []string{"ahpls_shared", "ahpls_ws_2"}, wireNames(tools))
	require.Len(t, coll, 2)
	assert.Equal(t, SourceWorkspace, coll[0].Source)
	assert.Equal(t, "", coll[0].Final, "workspace 'shared' shadowed by settings")
	assert.Equal(t, "ahpls_ws_2", coll[1].Final)

	got, _ := runArgs(t, r, "ahpls_shared", map[string]any{})
	assert.Equal(t, []string{"settings"}, got, "settings win over the workspace file")
	got, _ = runArgs(t, r, "ahpls_ws_2", map[string]any{})
	assert.Equal(t, []string{"ws"}, got, "renamed tool runs under its final name")
	assert.Equal(t, CodeUnknownTool, r.Run(context.Background(), "ahpls_ws", nil, nil).ErrorCode, "the taken name is not ours")

	// The decoded form of the setting gives the same result.
	require.Empty(t, r.SetSettingsValue(map[string]any{"tools": []any{map[string]any{"name": "shared", "command": map[string]any{"argv": []any{"ahplshelper", "args", "decoded"}}}}}))
	got, _ = runArgs(t, r, "ahpls_shared", map[string]any{})
	assert.Equal(t, []string{"decoded"}, got)

	// Clearing works; a missing file is no tools.
	require.Empty(t, r.SetSettingsValue(nil))
	require.NoError(t, os.Remove(filepath.Join(root, ConfigFile)))
	probs, err = r.LoadWorkspaceConfig()
	require.NoError(t, err)
	assert.Empty(t, probs)
	tools, _ = r.Resolve(nil)
	assert.Empty(t, tools)
	assert.NotNil(t, tools, "always a list, for tools: []")
}

func TestUnknownToolResult(t *testing.T) {
	r, err := NewRegistry(Options{Root: t.TempDir()})
	require.NoError(t, err)
	res := r.Run(context.Background(), "ahpls_gone", nil, nil)
	assert.False(t, res.Success)
	w := res.Wire()
	assert.Equal(t, `Tool "ahpls_gone" is not available on this client`, w.PastTenseMessage)
	require.NotNil(t, w.Error)
	assert.Equal(t, "unknown_tool", w.Error.Code)
}

func TestNewRegistryNeedsADirectory(t *testing.T) {
	_, err := NewRegistry(Options{})
	assert.Error(t, err)
	_, err = NewRegistry(Options{Root: filepath.Join(t.TempDir(), "missing")})
	assert.Error(t, err)
}

// Final names are unique, never one of the others, and every definition is
// either named or reported.
func FuzzResolveNames(f *testing.F) {
	f.Add("a,b,a,a_2", "ahpls_a,ahpls_a_2,ahpls_b")
	f.Fuzz(func(t *testing.T, ours, others string) {
		var defs []*Definition
		for i, n := range splitComma(ours) {
			defs = append(defs, &Definition{Name: n, Source: Source(i % 3)})
		}
		oth := splitComma(others)
		named, coll := ResolveNames(defs, oth)
		seen := map[string]bool{}
		for _, o := range oth {
			seen[o] = true
		}
		for _, n := range named {
			if seen[n.Name] {
				t.Fatalf("name %q given twice or taken", n.Name)
			}
			seen[n.Name] = true
		}
		dropped := 0
		for _, c := range coll {
			if c.Final == "" {
				dropped++
			}
		}
		if len(named)+dropped != len(defs) {
			t.Fatalf("%d defs, %d named, %d dropped", len(defs), len(named), dropped)
		}
	})
}

func splitComma(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	start := 0
	for i := 0; i <= len(s) && len(out) < 50; i++ {
		if i == len(s) || s[i] == ',' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}
