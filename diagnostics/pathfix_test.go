package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/model"
)

// A skill folder moved from skills/deploy to skills/deploy2 (its SKILL.md
// still named deploy): the marketplace's and the manifest's entries get a
// fix pointing at the new folder and one removing the entry, each leaving
// valid JSON that changed only that entry.
func TestMissingPathFixes(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	write("skills/deploy2/SKILL.md", "---\nname: deploy\ndescription: Deploys.\n---\n")
	write("skills/other/SKILL.md", "---\nname: other\ndescription: Other.\n---\n")
	for _, tc := range []struct {
		name, rel, rule, text string
		kind                  model.Kind
		moved, removed        string
	}{
		{"marketplace list", ".claude-plugin/marketplace.json", "market/path-missing",
			`{"name":"m","owner":{"name":"o"},"plugins":[{"name":"p","source":"./","skills":["./skills/other", "./skills/deploy"]}]}`, model.KindMarketplace,
			`{"name":"m","owner":{"name":"o"},"plugins":[{"name":"p","source":"./","skills":["./skills/other", "./skills/deploy2"]}]}`,
			`{"name":"m","owner":{"name":"o"},"plugins":[{"name":"p","source":"./","skills":["./skills/other"]}]}`},
		{"manifest string, trailing slash", ".claude-plugin/plugin.json", "plugin/path-missing",
			"{\n  \"name\": \"p\",\n  \"skills\": \"./skills/deploy/\"\n}", model.KindPlugin,
			"{\n  \"name\": \"p\",\n  \"skills\": \"./skills/deploy2/\"\n}",
			"{\n  \"name\": \"p\"\n}"},
		{"manifest list, first", ".claude-plugin/plugin.json", "plugin/path-missing",
			"{\"name\": \"p\", \"skills\": [\n  \"./skills/deploy\",\n  \"./skills/other\"\n]}", model.KindPlugin,
			"{\"name\": \"p\", \"skills\": [\n  \"./skills/deploy2\",\n  \"./skills/other\"\n]}",
			"{\"name\": \"p\", \"skills\": [\n  \"./skills/other\"\n]}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := Check(core.File{Path: tc.rel, Kind: tc.kind, Text: []byte(tc.text), FS: dirFS(root), Layout: dirLayout(root)}, core.Options{Targets: model.AllTargets})
			var d *model.Diagnostic
			for i := range ds {
				if ds[i].Rule == tc.rule {
					d = &ds[i]
				}
			}
			require.NotNil(t, d, "%v", ds)
			require.Len(t, d.Fixes, 2, "%+v", d.Fixes)
			assert.Contains(t, d.Fixes[0].Title, "deploy2")
			assert.Equal(t, tc.moved, applyFix(tc.text, d.Fixes[0]))
			assert.Equal(t, tc.removed, applyFix(tc.text, d.Fixes[1]))
			for _, fx := range d.Fixes {
				assert.True(t, json.Valid([]byte(applyFix(tc.text, fx))), fx.Title)
				assert.False(t, fx.Preferred && fx.Title == d.Fixes[1].Title, "removing is never the preferred fix")
			}
		})
	}
	// Two folders claim the name: no guess, only removal.
	write("skills/deploy3/SKILL.md", "---\nname: deploy\ndescription: Deploys too.\n---\n")
	text := `{"name":"p","skills":["./skills/deploy"]}`
	ds := Check(core.File{Path: ".claude-plugin/plugin.json", Kind: model.KindPlugin, Text: []byte(text), FS: dirFS(root), Layout: dirLayout(root)}, core.Options{Targets: model.AllTargets})
	found := false
	for _, d := range ds {
		if d.Rule == "plugin/path-missing" {
			found = true
			require.Len(t, d.Fixes, 1)
			assert.Contains(t, d.Fixes[0].Title, "Remove")
		}
	}
	assert.True(t, found, "%v", ds)
}
