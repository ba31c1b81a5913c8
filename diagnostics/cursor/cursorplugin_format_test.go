package cursor_test

import (
	"testing"

	"github.com/ahpls-dev/ahpls/diagnostics/cursor"
)

// The expectations are ajv-formats' (full mode, as Cursor's validator adds
// it) answers for the same strings, run with ajv 8 (scripts/agree/README.md).
func TestCursorFormats(t *testing.T) {
	uris := map[string]bool{
		"https://example.com": true, "https://example.com/a b": false, "www.example.com": false,
		"mailto:a@b.c": true, "https://ex.com/ä": false, "http://x/%zz": false, "http://x/%2F": true,
		"git+ssh://git@github.com/o/r.git": true, "https://x/#a#b": false, "urn:isbn:123": true,
		"https://github.com/o/r/tree/main/plugins/p": true, "file:///tmp/x": true, "http://[::1]:8080/": true,
		"https:example": true,
	}
	for s, want := range uris {
		if got := cursor.CuURI(s); got != want {
			t.Errorf("cuURI(%q) = %v, ajv-formats says %v", s, got, want)
		}
	}
	emails := map[string]bool{
		"a@example.com": true, "owner at example.com": false, "a@localhost": false, "a.b+c@x.io": true,
		"a..b@x.io": false, "a@-x.io": false, "plugins@cursor.com": true, "ä@x.io": false, "a@x_y.io": false,
	}
	for s, want := range emails {
		if got := cursor.CuEmail(s); got != want {
			t.Errorf("cuEmail(%q) = %v, ajv-formats says %v", s, got, want)
		}
	}
	semver := map[string]bool{"3.13.0": true, "3.13": false, "never": false, "1.0.0-beta.1": true, "01.0.0": false, "1.0.0+b": false}
	for s, want := range semver {
		if got := cursor.CuSemverRe().MatchString(s); got != want {
			t.Errorf("semver %q = %v, want %v", s, got, want)
		}
	}
}
