package settings

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".ahpls"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".ahpls", "config.json"), []byte(text), 0o644))
	return root
}

func TestOverridesValidated(t *testing.T) {
	for _, c := range []struct{ name, text, err string }{
		{"good", `{"overrides": [{"files": ["docs/**"], "rules": {"md/link": "off", "skill/name-dir": "Error"}}]}`, ""},
		{"bad level", `{"overrides": [{"files": ["docs/**"], "rules": {"md/link": "loud"}}]}`, `level "loud" for md/link`},
		{"no files", `{"overrides": [{"rules": {"md/link": "off"}}]}`, `overrides[0]: "files" lists no glob`},
		{"bad glob", `{"overrides": [{"files": ["a/[b"], "rules": {}}]}`, "overrides[0]"},
		{"not a list", `{"overrides": {"files": []}}`, "config.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadWorkspaceConfig(writeConfig(t, c.text))
			if c.err == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.err)
		})
	}
}

// TestOverridesRuleLifecycle: an unknown rule id in overrides keeps the
// file's other keys in force (excludes, the other rules, other entries);
// a renamed rule's old id sets the rule's level under its id now.
func TestOverridesRuleLifecycle(t *testing.T) {
	defer diagnostics.SetRuleHistoryForTest(map[string]string{"md/old-link": "md/link"}, map[string]string{"md/gone": "merged"})()
	root := writeConfig(t, `{"exclude": ["fixtures/**"], "overrides": [
		{"files": ["docs/**"], "rules": {"md/lnk": "off", "md/gone": "off", "skill/name-dir": "info"}},
		{"files": ["old/**"], "rules": {"md/old-link": "off"}},
		{"files": ["both/**"], "rules": {"md/old-link": "off", "md/link": "hint"}}]}`)
	f, err := Settings{}.FolderOf(root, false)
	require.NoError(t, err)
	assert.Equal(t, []string{"fixtures/**"}, f.Exclude)
	require.Len(t, f.Overrides, 3)
	assert.Equal(t, map[string]model.Severity{"skill/name-dir": model.SeverityInfo}, f.Overrides[0].Rules)
	assert.Equal(t, map[string]model.Severity{"md/link": 0}, f.Overrides[1].Rules)
	assert.Equal(t, map[string]model.Severity{"md/link": model.SeverityHint}, f.Overrides[2].Rules)

	// And the rule engine obeys it: md/link is off under old/.
	text := []byte("---\nname: x\ndescription: y\n---\n[a](missing.md)\n")
	opts := diagnostics.Options{Overrides: f.Overrides}
	rules := func(path string) (out []string) {
		for _, d := range diagnostics.Check(diagnostics.File{Path: path, Text: text, FS: statFS{os.DirFS(root)}}, opts) {
			out = append(out, d.Rule)
		}
		return out
	}
	assert.Contains(t, rules("x/.github/skills/x/SKILL.md"), "md/link")
	assert.NotContains(t, rules("old/.github/skills/x/SKILL.md"), "md/link")
}

func TestFolderOverrides(t *testing.T) {
	root := writeConfig(t, `{"overrides": [
		{"files": ["docs/**"], "rules": {"md/link": "off"}},
		{"files": ["docs/keep/**"], "rules": {"md/link": "info"}}]}`)
	f, err := Settings{}.FolderOf(root, false)
	require.NoError(t, err)
	require.Len(t, f.Overrides, 2)
	assert.True(t, f.Overrides[0].Match("docs/a/SKILL.md"))
	assert.False(t, f.Overrides[0].Match("src/a/SKILL.md"))
	assert.Equal(t, model.Severity(0), f.Overrides[0].Rules["md/link"])
	assert.Equal(t, model.SeverityInfo, f.Overrides[1].Rules["md/link"])
}

// TestConfigAgreesWithItsRule: the file the editor marks config/invalid is
// the file settings ignores, and the other way round.
func TestConfigAgreesWithItsRule(t *testing.T) {
	for _, text := range []string{
		`{}`,
		`{"exclude": ["a/**"], "gitignore": false}`,
		`{"exclude": "a"}`,
		`{"exclude": ["a/[b"]}`,
		`{"gitignore": "no"}`,
		`{"gitignore": null, "other": 1}`,
		`{"overrides": [{"files": ["x/**"], "rules": {"md/link": "off", "skill/name-dir": "WARNING"}}]}`,
		`{"overrides": [{"files": ["x/**"]}]}`,
		`{"overrides": [{"files": [], "rules": {}}]}`,
		`{"overrides": [{"rules": {"md/link": "off"}}]}`,
		`{"overrides": [{"files": ["x"], "rules": {"md/nope": "off"}}]}`,
		`{"overrides": [{"files": ["x"], "rules": {"md/link": "loud"}}]}`,
		`{"overrides": [{"files": ["x"], "rules": {"md/link": 1}}]}`,
		`{"overrides": {"files": ["x"]}}`,
		`{"overrides": [3]}`,
		`{"exclude": [], }`,
		`[1]`,
	} {
		_, err := LoadWorkspaceConfig(writeConfig(t, text))
		invalid := false
		for _, d := range diagnostics.Check(diagnostics.File{Path: ConfigFile, Text: []byte(text)}, diagnostics.Options{}) {
			invalid = invalid || d.Rule == "config/invalid"
		}
		assert.Equal(t, err != nil, invalid, "%s (settings: %v)", text, err)
	}
}

// statFS answers the rules' existence questions from an fs.FS.
type statFS struct{ fsys fs.FS }

func (s statFS) Stat(rel string) (fs.FileInfo, error) { return fs.Stat(s.fsys, rel) }
