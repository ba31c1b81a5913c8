package wsfs

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMatcher(t *testing.T) {
	cases := []struct {
		glob string
		in   []string
		out  []string
	}{
		{"fixtures", []string{"fixtures", "a/fixtures/x/SKILL.md"}, []string{"fixture", "a/b/SKILL.md"}},
		{"*.draft.md", []string{"x.draft.md", "a/b/y.draft.md"}, []string{"x.md"}},
		{"test/fixtures", []string{"test/fixtures", "test/fixtures/a/SKILL.md"}, []string{"a/test/fixtures/x"}},
		{"/test/fixtures/", []string{"test/fixtures/a"}, []string{"x/test/fixtures"}},
		{"**/testdata/**", []string{"testdata/a", "a/b/testdata/c/SKILL.md", "testdata"}, []string{"a/testdatum/x"}},
		{"docs/*/SKILL.md", []string{"docs/a/SKILL.md"}, []string{"docs/a/b/SKILL.md", "x/docs/a/SKILL.md"}},
		{"docs/**/SKILL.md", []string{"docs/SKILL.md", "docs/a/b/SKILL.md"}, []string{"docs/a/b/README.md"}},
		{"**", []string{"a", "a/b"}, nil},
	}
	for _, c := range cases {
		t.Run(c.glob, func(t *testing.T) {
			m, err := NewMatcher([]string{c.glob})
			require.NoError(t, err)
			for _, p := range c.in {
				assert.True(t, m.Match(p), "%s should match %s", c.glob, p)
			}
			for _, p := range c.out {
				assert.False(t, m.Match(p), "%s should not match %s", c.glob, p)
			}
		})
	}
	m, _ := NewMatcher(nil)
	assert.True(t, m.Match(".git/config"))
	assert.True(t, m.Match("a/node_modules/x"))
	_, err := NewMatcher([]string{"a/[b"})
	assert.ErrorContains(t, err, `"a/[b"`)
	_, err = NewMatcher([]string{"  "})
	assert.Error(t, err)
	var nilM *Matcher
	assert.False(t, nilM.Match("a"))
	assert.False(t, strings.Contains(strings.Join(m.Globs(), ","), "/"))
}
