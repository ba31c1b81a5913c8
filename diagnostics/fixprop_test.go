package diagnostics

// Property tests and fuzz targets, one per fix family: each builds files
// around arbitrary values and checks that every fix offered as safe passes
// the independent verifier (fixverify_test.go). The fuzz seeds run as
// ordinary tests in CI.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"errors"
	"maps"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ahpls-dev/ahpls/model"
)

// trickyValues are texts that stress YAML quoting, flow collections and
// consumers' list splitting.
var trickyValues = []string{
	"Read", "Bash(git status:*)", "Bash(npm run *)", "Edit,Write", "a, b", "src/{a,b}/**/*.ts", "docs/**", "*.ts",
	" x", "1", "1.0", "0x1F", "true", "null", "~", "'q'", `"d"`, "# c", "a: b", "[x]", "{k: v}", "-", "x # y",
	"é", "a'b", `a"b`, "@x", "*", "&a", "!t", "%p", "`t`", "|", ">", "?", "a,b", "{a,{b,c}}", "[a,b]", "x\\y",
}

// fixFile is one file a family builds.
type fixFile struct{ rel, text string }

// render writes v as a YAML scalar in one of three styles; a plain v that
// is not valid YAML just makes a file the rules report otherwise.
func render(v string, style int) string {
	switch style % 3 {
	case 1:
		return "'" + strings.ReplaceAll(v, "'", "''") + "'"
	case 2:
		return strconv.Quote(v)
	}
	return v
}

// fixFamilies build files for each fix family from a few values.
var fixFamilies = map[string]func(a, b string, style int) []fixFile{
	// Quoting a value: metadata in flow and block maps, a flow list hint,
	// a plain value with ': ' or ' #'.
	"quote": func(a, b string, style int) []fixFile {
		return []fixFile{
			{".github/skills/s/SKILL.md", "---\nname: s\ndescription: d\nmetadata: {k: " + a + ", j: " + render(b, style) + "}\n---\n"},
			{".github/skills/s/SKILL.md", "---\nname: s\ndescription: d\nmetadata:\n  k: " + a + "\n  j: " + b + " # c\n---\n"},
			{".claude/commands/c.md", "---\ndescription: d\nargument-hint: [" + a + "] [" + b + "]\n---\n"},
			{".claude/commands/c.md", "---\ndescription: d\nargument-hint: [" + a + ", " + render(b, style) + "]\n---\n"},
			{".github/skills/s/SKILL.md", "---\nname: s\ndescription: Use when: " + a + "\nlicense: " + b + "\n---\n"},
			{".github/prompts/p.prompt.md", "---\ndescription: " + a + "\nname: " + b + "\n---\n"},
		}
	},
	// Joining a list into one string.
	"join": func(a, b string, style int) []fixFile {
		return []fixFile{
			{".claude/skills/s/SKILL.md", "---\nname: s\ndescription: d\nallowed-tools: [" + render(a, style) + ", " + render(b, style+1) + "]\n---\n"},
			{".claude/skills/s/SKILL.md", "---\nname: s\ndescription: d\nallowed-tools:\n  - " + render(a, style) + "\n  - " + render(b, style+2) + "\n---\n"},
			{".github/instructions/x.instructions.md", "---\napplyTo: [" + render(a, style) + ", " + render(b, style+1) + "]\n---\nBody.\n"},
			{".github/instructions/x.instructions.md", "---\napplyTo:\n  - " + render(a, style+2) + "\n  - " + render(b, style) + "\n---\nBody.\n"},
		}
	},
	// Building a one-item list from a string.
	"list": func(a, b string, style int) []fixFile {
		return []fixFile{
			{".claude/rules/r.md", "---\npaths: " + render(a, style) + "\n---\nBody.\n"},
			{".claude/rules/r.md", "---\npaths: " + render(a+","+b, style) + "\ndescription: x\n---\nBody.\n"},
		}
	},
	// Form only: a BOM, CRLF line ends, tab indentation.
	"text": func(a, b string, style int) []fixFile {
		return []fixFile{
			{".github/skills/s/SKILL.md", "\ufeff---\nname: s\ndescription: " + render(a, style) + "\n---\n" + b + "\n"},
			{".github/skills/s/SKILL.md", "---\r\nname: s\r\ndescription: " + render(a, style) + "\r\n---\r\n" + b + "\r\n"},
			{".github/skills/s/SKILL.md", "---\nname: s\ndescription: d\nmetadata:\n\tk: " + render(a, style) + "\n\tj: " + render(b, style) + "\n---\n"},
		}
	},
	// JSON: a quoted number, paths without './'.
	"json": func(a, b string, style int) []fixFile {
		q := func(s string) string { return strconv.Quote(s) }
		return []fixFile{
			{".claude/settings.json", `{"hooks": {"PreToolUse": [{"matcher": ` + q(b) + `, "hooks": [{"type": "command", "command": "x", "timeout": ` + q(a) + `}]}]}}`},
			{"p/.claude-plugin/plugin.json", `{"name": "p", "commands": ` + q(a) + `, "agents": ` + q(b) + `}`},
			{".claude-plugin/marketplace.json", `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "p", "source": ` + q(a) + `}]}`},
			{".agents/plugins/marketplace.json", `{"name": "m", "plugins": [{"name": "p", "source": {"source": "local", "path": ` + q(a) + `}}, {"name": "q", "source": ` + q(b) + `}]}`},
		}
	},
}

// checkFamily checks every safe fix of every file a family builds from
// a and b; it returns how many safe fixes it verified.
func checkFamily(t *testing.T, family, a, b string, style int) int {
	t.Helper()
	n := 0
	for _, ff := range fixFamilies[family](a, b, style) {
		f := core.File{Path: ff.rel, Kind: model.Classify(ff.rel, nil), Text: []byte(ff.text)}
		for _, s := range safeFixes(Check(f, core.Options{})) {
			n++
			if err := verifyFix(f, core.Options{}, s.d, s.fx); err != nil && !errors.Is(err, errUnverifiable) {
				t.Errorf("%s: safe fix %q of %s is not: %v\nfile:\n%s", ff.rel, s.fx.Title, s.d.Rule, err, ff.text)
			}
		}
	}
	return n
}

// TestFixProperty draws values for each family and checks every safe fix
// with the verifier; it also counts the fixes the guard demoted, and with
// the guard off shows that the verifier catches some.
func TestFixProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(39))
	draws := 150
	if testing.Short() {
		draws = 30
	}
	// Families in a fixed order, so one seed draws the same values for
	// each family on every run.
	for _, family := range slices.Sorted(maps.Keys(fixFamilies)) {
		t.Run(family, func(t *testing.T) {
			verified := 0
			for i := 0; i < draws; i++ {
				a, b := trickyValues[rng.Intn(len(trickyValues))], trickyValues[rng.Intn(len(trickyValues))]
				if rng.Intn(3) == 0 {
					a += trickyValues[rng.Intn(len(trickyValues))]
				}
				verified += checkFamily(t, family, a, b, rng.Intn(3))
			}
			if verified == 0 {
				t.Errorf("family %s offered no safe fix in %d draws: the property checked nothing", family, draws)
			}
		})
	}
}

// TestFixPropertyGuardOff: with the guard off, the verifier rejects safe
// fixes the families produce (so the verifier can fail, and the guard is
// what keeps TestFixProperty passing).
func TestFixPropertyGuardOff(t *testing.T) {
	defer func() { fixGuardOff = false }()
	fixGuardOff = true
	caught := 0
	for _, a := range trickyValues {
		for _, family := range []string{"join", "list"} {
			for _, ff := range fixFamilies[family](a, "Read", 0) {
				f := core.File{Path: ff.rel, Kind: model.Classify(ff.rel, nil), Text: []byte(ff.text)}
				for _, s := range safeFixes(Check(f, core.Options{})) {
					if err := verifyFix(f, core.Options{}, s.d, s.fx); err != nil && !errors.Is(err, errUnverifiable) {
						caught++
					}
				}
			}
		}
	}
	if caught == 0 {
		t.Fatal("with the guard off no unsafe join was offered as safe; the guard proves nothing here")
	}
	t.Logf("guard off: the verifier caught %d fixes offered as safe", caught)
}

func fuzzFamily(f *testing.F, family string) {
	for i, v := range trickyValues {
		f.Add(v, trickyValues[(i*7+3)%len(trickyValues)], i)
	}
	f.Fuzz(func(t *testing.T, a, b string, style int) {
		if len(a)+len(b) > 200 || strings.ContainsAny(a+b, "\r\n\x00") {
			return // one-line values; newlines are the block-scalar rules' business
		}
		checkFamily(t, family, a, b, style)
	})
}

func FuzzFixQuote(f *testing.F) { fuzzFamily(f, "quote") }
func FuzzFixJoin(f *testing.F)  { fuzzFamily(f, "join") }
func FuzzFixList(f *testing.F)  { fuzzFamily(f, "list") }
func FuzzFixText(f *testing.F)  { fuzzFamily(f, "text") }
func FuzzFixJSON(f *testing.F)  { fuzzFamily(f, "json") }
