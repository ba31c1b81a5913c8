package settings

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name     string
		raw      string
		targets  []model.Target
		implied  bool
		rules    map[string]model.Severity
		warnings int
	}{
		{"empty", ``, nil, true, nil, 0},
		{"null", `null`, nil, true, nil, 0},
		{"wrapped", `{"ahpls":{"targets":["claude-code"]}}`, []model.Target{model.TargetClaudeCode}, true, nil, 0},
		{"bare section", `{"targets":["vscode","copilot-cli"],"impliedTargets":false}`, []model.Target{model.TargetVSCode, model.TargetCopilotCLI}, false, nil, 0},
		{"unknown target", `{"targets":["vscode","nope","zed"]}`, []model.Target{model.TargetVSCode}, true, nil, 1},
		{"rules", `{"rules":{"skill/name-dir":"off","fm/crlf":"Error"}}`, nil, true, map[string]model.Severity{"skill/name-dir": 0, "fm/crlf": model.SeverityError}, 0},
		{"bad level", `{"rules":{"x/y":"loud"}}`, nil, true, nil, 1},
		{"wrong types", `{"targets":"vscode","impliedTargets":"yes","rules":[]}`, nil, true, nil, 3},
		{"not an object", `[1,2]`, nil, true, nil, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, warnings := Parse([]byte(c.raw))
			assert.Equal(t, c.targets, st.Targets)
			assert.Equal(t, c.implied, st.ImpliedTargets)
			assert.Equal(t, c.rules, st.Rules)
			assert.Len(t, warnings, c.warnings, "%v", warnings)
		})
	}
}

// The host keys are decoded with the rest of the section, once, into the
// one Settings value the bridge reads.
func TestParseHostSettings(t *testing.T) {
	cases := []struct {
		name     string
		raw      string
		want     Host
		warnings int
	}{
		{"none", `{}`, Host{}, 0},
		{"all", `{"ahpls":{"host":"ws://127.0.0.1:1/ahp","hostHeaders":{"Authorization":"Bearer t"},"sessions":["ahp-session:/s1"],"trustWorkspaceTools":true,"tools":{"tools":[]}}}`,
			Host{URL: "ws://127.0.0.1:1/ahp", Headers: map[string]string{"Authorization": "Bearer t"}, Sessions: []string{"ahp-session:/s1"}, TrustWorkspaceTools: true, Tools: []byte(`{"tools":[]}`)}, 0},
		{"auto sessions", `{"sessions":"auto"}`, Host{}, 0},
		{"empty session list is auto", `{"sessions":[]}`, Host{}, 0},
		{"nulls", `{"host":null,"hostHeaders":null,"sessions":null,"trustWorkspaceTools":null,"tools":null}`, Host{}, 0},
		{"wrong types", `{"host":1,"hostHeaders":["x"],"sessions":"some","trustWorkspaceTools":"yes"}`, Host{}, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, warnings := Parse([]byte(c.raw))
			assert.Equal(t, c.want.URL, st.Host.URL)
			assert.Equal(t, c.want.Headers, st.Host.Headers)
			assert.Equal(t, c.want.Sessions, st.Host.Sessions)
			assert.Equal(t, c.want.TrustWorkspaceTools, st.Host.TrustWorkspaceTools)
			assert.Equal(t, string(c.want.Tools), string(st.Host.Tools))
			assert.Len(t, warnings, c.warnings, "%v", warnings)
		})
	}
}

// The environment fills only what the settings leave empty.
func TestHostWithEnv(t *testing.T) {
	env := map[string]string{"AHPLS_HOST": "ws://env/ahp", "AHPLS_HOST_AUTHORIZATION": "Bearer env"}
	getenv := func(k string) string { return env[k] }
	h := Host{}.WithEnv(getenv)
	assert.Equal(t, "ws://env/ahp", h.URL)
	assert.Equal(t, "Bearer env", h.Header().Get("Authorization"))
	set := Host{URL: "ws://set/ahp", Headers: map[string]string{"authorization": "Bearer set"}}
	h = set.WithEnv(getenv)
	assert.Equal(t, "ws://set/ahp", h.URL)
	assert.Equal(t, "Bearer set", h.Header().Get("Authorization"))
	assert.True(t, h.Auto())
}

// A folder's exclusions are the settings' plus its config file's; a bad
// file leaves the settings' alone, with the error.
func TestFolderExclude(t *testing.T) {
	root := t.TempDir()
	st := Settings{Exclude: []string{"a/**"}}
	got, err := st.FolderExclude(root)
	require.NoError(t, err)
	assert.Equal(t, []string{"a/**"}, got)
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".ahpls"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, filepath.FromSlash(ConfigFile)), []byte(`{"exclude":["b/**"]}`), 0o644))
	got, err = st.FolderExclude(root)
	require.NoError(t, err)
	assert.Equal(t, []string{"a/**", "b/**"}, got)
	require.NoError(t, os.WriteFile(filepath.Join(root, filepath.FromSlash(ConfigFile)), []byte(`{`), 0o644))
	got, err = st.FolderExclude(root)
	require.Error(t, err)
	assert.Equal(t, []string{"a/**"}, got)
}

// TestParseRenamedRule: `ahpls.rules` naming a renamed rule by its old id
// sets the rule's id now; the id itself, written too, wins.
func TestParseRenamedRule(t *testing.T) {
	defer diagnostics.SetRuleHistoryForTest(map[string]string{"md/old-link": "md/link"}, nil)()
	st, warnings := Parse([]byte(`{"rules": {"md/old-link": "off", "skill/name-dir": "info"}}`))
	assert.Empty(t, warnings)
	assert.Equal(t, map[string]model.Severity{"md/link": 0, "skill/name-dir": model.SeverityInfo}, st.Rules)
	st, _ = Parse([]byte(`{"rules": {"md/old-link": "off", "md/link": "hint"}}`))
	assert.Equal(t, map[string]model.Severity{"md/link": model.SeverityHint}, st.Rules)
}

func TestParseFileWatcher(t *testing.T) {
	st, w := Parse(nil)
	assert.Equal(t, FileWatcherOn, st.FileWatcher, "the default")
	assert.Empty(t, w)
	for _, v := range []string{FileWatcherOn, FileWatcherFallback, FileWatcherOff} {
		st, w = Parse([]byte(`{"fileWatcher":"` + v + `"}`))
		assert.Equal(t, v, st.FileWatcher)
		assert.Empty(t, w)
	}
	for _, bad := range []string{`"sometimes"`, `true`} {
		st, w = Parse([]byte(`{"fileWatcher":` + bad + `}`))
		assert.Equal(t, FileWatcherOn, st.FileWatcher, bad)
		assert.Len(t, w, 1, bad)
	}
}
