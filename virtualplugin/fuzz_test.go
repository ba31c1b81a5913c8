package virtualplugin

import (
	"strings"
	"testing"
)

// FuzzParseURI: whatever a host sends, the parser never panics and never
// yields a path that could climb out of a plugin.
func FuzzParseURI(f *testing.F) {
	for _, s := range []string{
		"virtual://ahpls/0a1b2c3d/ws/skills/lint/SKILL.md",
		"virtual://ahpls/0a1b2c3d/ws/%2e%2e/x",
		"virtual://ahpls/0a1b2c3d/ws//x",
		"virtual://ahpls/../../etc/passwd",
		"file:///etc/passwd",
		"virtual://ahpls/k/n/a%2Fb",
		"virtual://ahpls/k/n/%00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		key, vpath, err := parseURI(raw)
		if err != nil {
			return
		}
		if strings.Count(key, "/") != 1 {
			t.Fatalf("plugin key %q", key)
		}
		if vpath == "" {
			return
		}
		for _, seg := range strings.Split(vpath, "/") {
			if seg == "" || seg == "." || seg == ".." || strings.ContainsAny(seg, "\\\x00") {
				t.Fatalf("unsafe segment %q in %q from %q", seg, vpath, raw)
			}
		}
	})
}
