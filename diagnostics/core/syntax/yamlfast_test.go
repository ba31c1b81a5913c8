package syntax_test

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// sameAsYAMLv3 checks the fast path's promise on src: when it accepts src,
// yaml.v3 parses src to the very same tree.
func sameAsYAMLv3(t testing.TB, src []byte) (accepted bool) {
	t.Helper()
	got, ok := syntax.FastYAML(src)
	if !ok {
		return false
	}
	var want yaml.Node
	if err := yaml.Unmarshal(src, &want); err != nil {
		t.Fatalf("fastYAML accepted what yaml.v3 refuses (%v):\n%s", err, src)
	}
	if !reflect.DeepEqual(got, &want) {
		t.Fatalf("fastYAML and yaml.v3 disagree on\n%s\nfast: %s\nv3:   %s", src, dumpNode(got), dumpNode(&want))
	}
	return true
}

func dumpNode(n *yaml.Node) string {
	if n == nil {
		return "nil"
	}
	var parts []string
	for _, c := range n.Content {
		parts = append(parts, dumpNode(c))
	}
	return fmt.Sprintf("{k%d s%d %s %q %d:%d [%s] a%q h%q l%q f%q}", n.Kind, n.Style, n.Tag, n.Value, n.Line, n.Column,
		strings.Join(parts, " "), n.Anchor, n.HeadComment, n.LineComment, n.FootComment)
}

func TestFastYAMLMatchesYAMLv3(t *testing.T) {
	for _, tc := range []struct {
		src    string
		accept bool
	}{
		{"name: pdf\ndescription: Reads PDFs.\n", true},
		{"name: pdf\ndescription: \"Reads: PDFs, forms\"\n", true},
		{"name: pdf\ndescription: 'It''s fine'\n", true},
		{"name: pdf\ndescription: Ünïcode — dashes “quoted” 日本語\nlicense: MIT\n", true},
		{"name: x\ntags: [a, \"b c\", 'd']\n", true},
		{"name: x\ntags: []\n", true},
		{"name: x\nallowed-tools: Bash(git:*), Read\n", true},
		{"name: x\nmetadata:\n  author: someone\n  tags: [a, b]\n", true},
		{"name: x\nmetadata:\n    author: someone\nlicense: MIT\n", true},
		{"name: x\ntools:\n  - Read\n  - Grep\nmodel: sonnet\n", true},
		{"name: x\ntools:\n- Read\n- Grep\nmodel: sonnet\n", true},
		{"\nname: x\n\ndescription: y\n\n", true},
		{"name: x\ndescription: y", true},
		{"name: x  \ndescription: y   \n", true},
		{"name: x\ndescription: a,b {c} [d] %e @f `g` it's \"q\"\n", true},

		// Outside the fast path: yaml.v3 decides.
		{"name: x # comment\n", false},
		{"version: 1.0\n", false},
		{"created: 2026-03-06\n", false},
		{"enabled: true\n", false},
		{"name: ~\n", false},
		{"name: x\ndescription: >\n  folded\n", false},
		{"name: x\ndescription: |\n  literal\n", false},
		{"name: x\ndescription: a\n  continued\n", false},
		{"name: \"esc\\n\"\n", false},
		{"name: x\r\ndescription: y\r\n", false},
		{"name:\tx\n", false},
		{"name: &a x\nother: *a\n", false},
		{"name: !!str x\n", false},
		{"name: x\nempty:\n", false},
		{"name: x\nk: a: b\n", false},
		{"name: x\nk: [a, b,]\n", false},
		{"name: x\nk: {a: b}\n", false},
		{"- a\n- b\n", false},
		{"", false},
		{"   \n", false},
		{"name: x\nmeta:\n  a: b\n    c: d\n", false},
		{"name: x\nmeta:\n  a:\n    b: c\n", false},
		{"name: x\nlist:\n  - a\n - b\n", false},
		{"name: x\nname: y\n", true},
	} {
		t.Run(tc.src, func(t *testing.T) {
			if got := sameAsYAMLv3(t, []byte(tc.src)); got != tc.accept {
				t.Errorf("accepted = %v, want %v", got, tc.accept)
			}
		})
	}
}

// TestFastYAMLOnRealHeaders compares the fast path with yaml.v3 on every
// header of a folder of real repositories (AHPLS_YAML_CORPUS, e.g. a
// checkout of public skill repositories) and reports how many it takes.
func TestFastYAMLOnRealHeaders(t *testing.T) {
	root := os.Getenv("AHPLS_YAML_CORPUS")
	if root == "" {
		t.Skip("set AHPLS_YAML_CORPUS to a folder of repositories")
	}
	seen, taken := 0, 0
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil || len(b) > core.MaxFileSize {
			return nil
		}
		fm := syntax.SplitFrontmatter(b)
		if !fm.Present || !fm.Closed {
			return nil
		}
		seen++
		if sameAsYAMLv3(t, b[fm.Body.Start:fm.Body.End]) {
			taken++
		}
		return nil
	})
	t.Logf("%d headers, %d (%.0f%%) on the fast path, all identical to yaml.v3", seen, taken, 100*float64(taken)/float64(max(seen, 1)))
}

func FuzzFastYAML(f *testing.F) {
	for _, s := range []string{
		"name: pdf\ndescription: Reads PDFs.\n",
		"name: x\ntags: [a, \"b c\", 'd']\nmetadata:\n  author: a\n",
		"name: x\ntools:\n- Read\n- Grep\nmodel: sonnet\n",
		"a: 'it''s'\nb: \"q\"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		sameAsYAMLv3(t, src)
	})
}
