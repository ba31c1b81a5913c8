package diagnostics

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/roo"
	"github.com/ahpls-dev/ahpls/model"
)

// roomodesRoot holds one workspace per case, each with a root .roomodes
// (Roo Code reads only the root's, so one workspace cannot hold them all).
const roomodesRoot = "testdata/roomodes"

// TestRooModesGolden checks each case's .roomodes against its golden
// file (go test ./diagnostics -run TestRooModesGolden -update rewrites them).
func TestRooModesGolden(t *testing.T) {
	dirs, err := os.ReadDir(roomodesRoot)
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for _, e := range dirs {
		ws := filepath.Join(roomodesRoot, e.Name())
		p := filepath.Join(ws, model.RooModes)
		t.Run(e.Name(), func(t *testing.T) {
			text, err := os.ReadFile(p)
			require.NoError(t, err)
			kind := model.Classify(model.RooModes, dirLayout(ws))
			require.Equal(t, model.KindRooModes, kind)
			got := renderGolden(text, Check(core.File{Path: model.RooModes, Kind: kind, Text: text, FS: dirFS(ws), Layout: dirLayout(ws)}, core.Options{}))
			if *update {
				require.NoError(t, os.WriteFile(p+".golden", []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(p + ".golden")
			require.NoError(t, err, "missing golden file; run go test ./diagnostics -run TestRooModesGolden -update")
			assert.Equal(t, string(want), got)
		})
	}
}

// A .roomodes below the root is not Roo Code's: not classified.
func TestRooModesRootOnly(t *testing.T) {
	assert.Equal(t, model.KindRooModes, model.Classify(".roomodes", nil))
	assert.Equal(t, model.KindNone, model.Classify("sub/.roomodes", nil))
	assert.Equal(t, model.KindNone, model.Classify(".roomodes.bak", nil))
}

func TestJSRegexRefusal(t *testing.T) {
	for _, p := range []string{`*.ts`, `+x`, `?a`, `a**`, `a|*`, `(a`, `a)`, `[a-z`, `\.(ts|tsx$`, `a\`, `(?:*)`, `a???`, `^*`, `[z-a]`, `a{2}*`, `{2}`, `a{3,1}`, `[^9-0]`} {
		assert.NotEmpty(t, roo.JSRegexRefusal(p), p)
	}
	// JavaScript takes these, Go's regexp refuses several of them.
	for _, p := range []string{`\.(md|mdx)$`, `(?<!\.d)\.ts$`, `(?=x)`, `(a)\1`, `\_x`, `a*?`, `a+?`, `a??`, `[]]`, `[^]`, `]`, `{`, `a{2}`, `(?<name>x)`,
		`(?i:x)`, `a{2}?`, `a{,2}`, `{`, `x{a}`, `[a-z0-9_-]`, `[\w-a]`, `[-z]`, `[a-]`, `src/.*\.ts$`, `^(?!.*test).*\.js$`, `\p{L}`, `é+`, ``} {
		assert.Empty(t, roo.JSRegexRefusal(p), p)
	}
}

// The clean-up's offset map points findings at the file's own bytes.
func TestRooModesCleanedSpans(t *testing.T) {
	text := []byte("\uFEFFcustomModes:\n  - slug: a\u2013b c\n    name: \u201cN\u201d\n    roleDefinition: r\n    groups: [read]\n")
	d := Check(core.File{Path: model.RooModes, Kind: model.KindRooModes, Text: text}, core.Options{})
	require.Len(t, d, 1)
	assert.Equal(t, "roomodes/slug", d[0].Rule)
	assert.Equal(t, "a\u2013b c", string(text[d[0].Span.Start:d[0].Span.End]))
}

// FuzzRooModes: the .roomodes checker never panics and keeps every
// finding's span inside the text.
func FuzzRooModes(f *testing.F) {
	for _, s := range []string{
		"customModes:\n  - slug: a\n    name: A\n    roleDefinition: r\n    groups: [read, [edit, {fileRegex: '*.ts'}]]\n",
		"{\"customModes\": [{\"slug\": \"a\", \"slug\": \"b\"}]}", "\uFEFF{\"customModes\": 1}", "customModes: [", "a: 1\n---\nb: 2\n",
		"customModes:\n  - &m {slug: x}\n  - *m\n", "\u201c\u2013\u00a0\u200b", "", "customModes: 0", "- 1", "%YAML 1.2\n---\ncustomModes: []\n", "%YAML 1.",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, d := range Check(core.File{Path: model.RooModes, Kind: model.KindRooModes, Text: b}, core.Options{Targets: []model.Target{model.TargetRoo}}) {
			if d.Span.Start < 0 || d.Span.Start > d.Span.End || d.Span.End > len(b) {
				t.Fatalf("%s span %+v outside %d bytes", d.Rule, d.Span, len(b))
			}
		}
	})
}

// TestRooModesGrowth: the .roomodes checker's allocations grow linearly
// with the number of modes (n against 4n), with smart quotes in every mode
// so the clean-up's offset map is exercised.
func TestRooModesGrowth(t *testing.T) {
	allocs := func(n int) float64 {
		var b strings.Builder
		b.WriteString("customModes:\n")
		for i := range n {
			fmt.Fprintf(&b, "  - slug: m%d\n    name: M\n    roleDefinition: r \u201cx\u201d\n    groups: [read, [edit, {fileRegex: 'a+'}]]\n", i)
		}
		text := []byte(b.String())
		return testing.AllocsPerRun(3, func() {
			Check(core.File{Path: model.RooModes, Kind: model.KindRooModes, Text: text}, core.Options{})
		})
	}
	small, big := allocs(200), allocs(800)
	assert.Less(t, big, 5*small, "allocations: %v for 200 modes, %v for 800", small, big)
}

// A built-in slug in a file Roo Code refuses replaces nothing.
func TestRooModesBuiltinOnlyWhenLoaded(t *testing.T) {
	ok := []byte("customModes:\n  - slug: code\n    name: C\n    roleDefinition: r\n    groups: [read]\n")
	bad := append(append([]byte(nil), ok...), "  - slug: x y\n    name: X\n    roleDefinition: r\n    groups: [read]\n"...)
	rules := func(text []byte) (out []string) {
		for _, d := range Check(core.File{Path: model.RooModes, Kind: model.KindRooModes, Text: text}, core.Options{}) {
			out = append(out, d.Rule)
		}
		return out
	}
	assert.Equal(t, []string{"roomodes/builtin-slug"}, rules(ok))
	assert.Equal(t, []string{"roomodes/slug"}, rules(bad))
}

// npm yaml reads a `%YAML 1.2` directive, which yaml.v3 refuses as an
// incompatible version: the file still parses, and spans stay in place.
func TestRooModesYAML12Directive(t *testing.T) {
	text := []byte("# modes\n%YAML 1.2\n---\ncustomModes:\n  - slug: x y\n    name: A\n    roleDefinition: r\n    groups: [read]\n")
	d := Check(core.File{Path: model.RooModes, Kind: model.KindRooModes, Text: text}, core.Options{})
	require.Len(t, d, 1)
	assert.Equal(t, "roomodes/slug", d[0].Rule)
	assert.Equal(t, "x y", string(text[d[0].Span.Start:d[0].Span.End]))
}

// TestRooModesJudged: hand-made edge cases with the verdict of Roo Code's
// own loading steps (scripts/agree/roo-validate.mjs: npm yaml 2, JSON.parse,
// @roo-code/types 1.115.0's customModesSettingsSchema). loads: Roo Code
// loads the file's modes, so ahpls reports no Error; otherwise it reports one.
// (An empty or comment-only file loads nothing and gets no finding: there
// is no mode to lose.)
func TestRooModesJudged(t *testing.T) {
	for _, c := range []struct {
		name  string
		text  string
		loads bool
	}{
		{"anchors", "x: &g [read]\ncustomModes:\n  - slug: a\n    name: A\n    roleDefinition: r\n    groups: *g\n", true},
		{"bom-json", "\ufeff{\"customModes\": [{\"slug\": \"a\", \"name\": \"A\", \"roleDefinition\": \"r\", \"groups\": [\"read\"]}]}\n", true},
		{"dupkey-yaml", "customModes:\n  - slug: a\n    slug: b\n    name: A\n    roleDefinition: r\n    groups: [read]\n", false},
		{"emptylist", "customModes: []\n", true},
		{"lookbehind", "customModes:\n  - slug: a\n    name: A\n    roleDefinition: r\n    groups: [[edit, {fileRegex: \"(?<=src/).*\\\\.ts$\"}]]\n", true},
		{"merge", "base: &b {name: A, roleDefinition: r, groups: [read]}\ncustomModes:\n  - <<: *b\n    slug: a\n", false},
		{"multidoc", "customModes:\n  - slug: a\n    name: A\n    roleDefinition: r\n    groups: [read]\n---\nfoo: 1\n", false},
		{"name-dot5", "customModes:\n  - slug: a\n    name: .5\n    roleDefinition: r\n    groups: [read]\n", false},
		{"name-hex", "customModes:\n  - slug: a\n    name: 0x1F\n    roleDefinition: r\n    groups: [read]\n", false},
		{"name-num", "customModes:\n  - slug: a\n    name: 123\n    roleDefinition: r\n    groups: [read]\n", false},
		{"name-tagged", "customModes:\n  - slug: a\n    name: !!str 5\n    roleDefinition: r\n    groups: [read]\n", true},
		{"name-underscore", "customModes:\n  - slug: a\n    name: 1_000\n    roleDefinition: r\n    groups: [read]\n", true},
		{"name-yes", "customModes:\n  - slug: a\n    name: yes\n    roleDefinition: r\n    groups: [read]\n", true},
		{"nbsp-slug", "customModes:\n  - slug: a\u00a0b\n    name: A\n    roleDefinition: r\n    groups: [read]\n", false},
		{"range-rev", "customModes:\n  - slug: a\n    name: A\n    roleDefinition: r\n    groups: [[edit, {fileRegex: \"[z-a]\"}]]\n", false},
		{"regex-star", "customModes:\n  - slug: a\n    name: A\n    roleDefinition: r\n    groups: [[edit, {fileRegex: \"a{2}*\"}]]\n", false},
		{"source-bad", "customModes:\n  - slug: a\n    name: A\n    roleDefinition: r\n    groups: [read]\n    source: global2\n", false},
		{"str", "customModes: \"x\"\n", false},
		{"tabjson", "{\n\t\"customModes\": [\n\t\t{\"slug\": \"a\", \"name\": \"A\", \"roleDefinition\": \"r\", \"groups\": [\"read\"]}\n\t]\n}\n", true},
		{"toplist", "- customModes: []\n", false},
		{"tuple3", "customModes:\n  - slug: a\n    name: A\n    roleDefinition: r\n    groups: [[edit, {}, 1]]\n", false},
		{"when-null", "customModes:\n  - slug: a\n    name: A\n    whenToUse: ~\n    roleDefinition: r\n    groups: [read]\n", false},
		{"zero", "customModes: 0\n", false},
		{"bigint", "customModes:\n  - slug: a\n    name: 123456789012345678901234567890\n    roleDefinition: r\n    groups: [read]\n", false},
		{"colon-in-value", "customModes:\n  - slug: a\n    name: A: B\n    roleDefinition: r\n    groups: [read]\n", false},
		{"complex-key", "customModes:\n  - ? slug\n    : a\n    name: A\n    roleDefinition: r\n    groups: [read]\n", true},
		{"crlf", "customModes:\r\n  - slug: a\r\n    name: A\r\n    roleDefinition: r\r\n    groups: [read]\r\n", true},
		{"directive", "%YAML 1.2\n---\ncustomModes:\n  - slug: a\n    name: A\n    roleDefinition: r\n    groups: [read]\n", true},
		{"doc-end", "customModes:\n  - slug: a\n    name: A\n    roleDefinition: r\n    groups: [read]\n...\n", true},
		{"flow-multi", "customModes: [{slug: a,\n  name: A, roleDefinition: r,\n  groups: [read]}]\n", true},
		{"folded", "customModes:\n  - slug: a\n    name: >-\n      A\n      B\n    roleDefinition: r\n    groups: [read]\n", true},
		{"hash-in-value", "customModes:\n  - slug: a\n    name: A #b\n    roleDefinition: r#x\n    groups: [read]\n", true},
		{"json-comment", "{\n  // c\n  \"customModes\": []\n}\n", false},
		{"null-slug-key", "customModes:\n  - slug:\n    name: A\n    roleDefinition: r\n    groups: [read]\n", false},
		{"num-slug", "customModes:\n  - slug: 42\n    name: A\n    roleDefinition: r\n    groups: [read]\n", false},
		{"quoted-num-slug", "customModes:\n  - slug: '42'\n    name: A\n    roleDefinition: r\n    groups: [read]\n", true},
		{"smartquote-yaml", "customModes:\n  - slug: a\n    name: \u201cA: b\u201d\n    roleDefinition: r\n    groups: [read]\n", true},
		{"tab-after-colon", "customModes:\n  - slug: a\n    name:\tA\n    roleDefinition: r\n    groups: [read]\n", true},
		{"tab-indent", "customModes:\n\t- slug: a\n    roleDefinition: r\n    groups: [read]\n", false},
		{"trailing-comma", "{\"customModes\": [{\"slug\": \"a\", \"name\": \"A\", \"roleDefinition\": \"r\", \"groups\": [\"read\"],}]}\n", true},
	} {
		refused := false
		for _, d := range Check(core.File{Path: model.RooModes, Kind: model.KindRooModes, Text: []byte(c.text)}, core.Options{}) {
			if d.Severity == model.SeverityError {
				refused = true
			}
		}
		assert.Equal(t, !c.loads, refused, "%s: Roo Code loads it: %v", c.name, c.loads)
	}
}
