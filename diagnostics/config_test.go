package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAhplsConfig: every mistake that makes settings ignore
// .ahpls/config.json is a config/invalid Error where it stands; an unknown
// key is a Warning; a good file has no finding.
func TestAhplsConfig(t *testing.T) {
	bad := `{
  "exclude": "fixtures/**",
  "gitignor": false,
  "overrides": [
    {"files": [], "rules": {"md/lnk": "off", "md/link": "loud"}, "paths": ["x"]},
    {"rules": {"md/link": "off"}},
    3
  ]
}
`
	want := `2:14-2:27 error config/invalid ahpls ignores this config file: 'exclude' must be a list of globs, not a string.
3:3-3:13 warning config/unknown-key ahpls does not read 'gitignor' in this file; it reads exclude, gitignore and overrides.
5:15-5:17 error config/invalid ahpls ignores this config file: overrides[0]: "files" lists no glob.
5:29-5:37 warning config/unknown-rule 'md/lnk' is not an ahpls rule id (` + "`ahpls rules`" + ` lists them); ahpls ignores this key and applies the rest of the file.
5:57-5:63 error config/invalid ahpls ignores this config file: the level of 'md/link' must be one of off, error, warning, info, hint.
5:66-5:73 warning config/unknown-key ahpls does not read 'paths' in an override; it reads files and rules.
6:5-6:34 error config/invalid ahpls ignores this config file: overrides[1] has no "files": say which files it covers.
7:5-7:6 error config/invalid ahpls ignores this config file: overrides[2] must be an object with "files" and "rules", not a number.
`
	check := func(text string) string {
		return renderGolden([]byte(text), Check(core.File{Path: ".ahpls/config.json", Text: []byte(text)}, core.Options{}))
	}
	assert.Equal(t, want, check(bad))
	assert.Equal(t, "", check(`{"exclude": ["a/**"], "gitignore": false, "overrides": [{"files": ["docs/**"], "rules": {"md/link": "off", "skill/name-dir": "Error"}}]}`))
	assert.Contains(t, check(`{"exclude": ["a/[b"]}`), "config/invalid")
	assert.Contains(t, check(`{"exclude": [], // a comment
}`), "strict JSON")
}

// TestConfigRuleLifecycle: an override naming a renamed rule by its old id
// is a Hint on the key (settings applies it to the new id), a removed
// rule's id a Hint, an unknown id a Warning; none is config/invalid, so
// the rest of the file applies.
func TestConfigRuleLifecycle(t *testing.T) {
	defer SetRuleHistoryForTest(map[string]string{"md/old-link": "md/link"}, map[string]string{"md/gone": "merged into md/link"})()
	text := `{"overrides": [{"files": ["docs/**"], "rules": {"md/old-link": "off", "md/gone": "off", "md/nope": "off", "skill/name-dir": "info"}}]}`
	got := renderGolden([]byte(text), Check(core.File{Path: ".ahpls/config.json", Text: []byte(text)}, core.Options{}))
	want := "1:49-1:62 hint config/rule-renamed 'md/old-link' is now 'md/link'; ahpls applies this level to 'md/link'. Rename the key.\n" +
		"1:71-1:80 hint config/rule-removed 'md/gone' is no longer an ahpls rule (merged into md/link); this key has no effect.\n" +
		"1:89-1:98 warning config/unknown-rule 'md/nope' is not an ahpls rule id (`ahpls rules` lists them); ahpls ignores this key and applies the rest of the file.\n"
	assert.Equal(t, want, got)
}

func TestResolveRule(t *testing.T) {
	defer SetRuleHistoryForTest(map[string]string{"a/one": "a/two", "a/two": "md/link", "b/old": "b/gone"}, map[string]string{"b/gone": "no consumer reads it"})()
	for _, c := range []struct {
		id, to string
		st     RuleStatus
	}{
		{"md/link", "md/link", RuleCurrent},
		{"a/one", "md/link", RuleRenamed}, // a chain of renames
		{"a/two", "md/link", RuleRenamed},
		{"b/gone", "", RuleRemoved},
		{"b/old", "", RuleRemoved}, // renamed, then removed
		{"c/never", "", RuleUnknown},
	} {
		to, st := ResolveRule(c.id)
		assert.Equal(t, c.to, to, c.id)
		assert.Equal(t, c.st, st, c.id)
	}
	assert.Equal(t, "no consumer reads it", RemovedWhy("b/old"))
}
