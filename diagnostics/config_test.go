package diagnostics

import (
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
5:29-5:37 error config/invalid ahpls ignores this config file: 'md/lnk' is not an ahpls rule id (` + "`ahpls rules`" + ` lists them).
5:57-5:63 error config/invalid ahpls ignores this config file: the level of 'md/link' must be one of off, error, warning, info, hint.
5:66-5:73 warning config/unknown-key ahpls does not read 'paths' in an override; it reads files and rules.
6:5-6:34 error config/invalid ahpls ignores this config file: overrides[1] has no "files": say which files it covers.
7:5-7:6 error config/invalid ahpls ignores this config file: overrides[2] must be an object with "files" and "rules", not a number.
`
	check := func(text string) string {
		return renderGolden([]byte(text), Check(File{Path: ".ahpls/config.json", Text: []byte(text)}, Options{}))
	}
	assert.Equal(t, want, check(bad))
	assert.Equal(t, "", check(`{"exclude": ["a/**"], "gitignore": false, "overrides": [{"files": ["docs/**"], "rules": {"md/link": "off", "skill/name-dir": "Error"}}]}`))
	assert.Contains(t, check(`{"exclude": ["a/[b"]}`), "config/invalid")
	assert.Contains(t, check(`{"exclude": [], // a comment
}`), "strict JSON")
}
