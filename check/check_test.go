package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/diagnostics"
)

// The rule fixtures of package diagnostics are a workspace folder.
const rulesWS = "../diagnostics/testdata/ws"

// TestGoldenRulesWorkspace runs `ahpls check` on the rule fixtures and
// compares the text output with what the rule room's per-file goldens
// (`line:col-line:col severity rule message`) say, in `ahpls check`'s
// order and format. The expected output is built from those goldens, so a
// new rule fixture needs no second golden here.
func TestGoldenRulesWorkspace(t *testing.T) {
	var out, errb bytes.Buffer
	code := Main([]string{rulesWS}, &out, &errb, "test", diagnostics.Options{})
	requireOnlySummary(t, errb.String())
	want := expectedFromRuleGoldens(t)
	if want != out.String() {
		t.Errorf("output differs from the rule goldens under %s:\n%s", rulesWS, lineDiff(want, out.String()))
	}
	if strings.Contains(out.String(), ": error: ") {
		assert.Equal(t, 1, code, "an error finding fails the run")
	}
}

// expectedFromRuleGoldens prints every line of every per-file golden as
// `path:line:col: severity: message [rule]`, sorted like Run sorts.
func expectedFromRuleGoldens(t *testing.T) string {
	type line struct {
		path            string
		line, col       int
		rule, formatted string
	}
	var lines []line
	require.NoError(t, filepath.WalkDir(rulesWS, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, ".golden") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		file := strings.TrimSuffix(p, ".golden")
		for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			if l == "" {
				continue
			}
			f := strings.SplitN(l, " ", 4)
			require.Len(t, f, 4, "%s: malformed golden line %q", p, l)
			var ln, col int
			_, err := fmt.Sscanf(f[0], "%d:%d-", &ln, &col)
			require.NoError(t, err, "%s: %q", p, l)
			lines = append(lines, line{file, ln, col, f[2], fmt.Sprintf("%s:%d:%d: %s: %s [%s]\n", file, ln, col, f[1], f[3], f[2])})
		}
		return nil
	}))
	sort.SliceStable(lines, func(i, j int) bool {
		a, b := lines[i], lines[j]
		if a.path != b.path {
			return a.path < b.path
		}
		if a.line != b.line {
			return a.line < b.line
		}
		if a.col != b.col {
			return a.col < b.col
		}
		return a.rule < b.rule
	})
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.formatted)
	}
	return b.String()
}

// Every line `ahpls check` prints for the rule fixtures agrees with the
// rule room's own per-file golden (`line:col-line:col severity rule
// message`): same position, severity, rule and message.
func TestAgreesWithRuleGoldens(t *testing.T) {
	found, err := Run([]string{rulesWS}, diagnostics.Options{})
	require.NoError(t, err)
	require.NotEmpty(t, found)
	cache := map[string]string{}
	for _, f := range found {
		g, ok := cache[f.Path]
		if !ok {
			b, err := os.ReadFile(f.Path + ".golden")
			if err != nil {
				t.Logf("no rule golden for %s", f.Path)
				continue
			}
			g = string(b)
			cache[f.Path] = g
		}
		prefix := fmt.Sprintf("%d:%d-", f.Line, f.Column)
		suffix := fmt.Sprintf(" %s %s %s", f.Level, f.Rule, f.Message)
		hit := false
		for _, l := range strings.Split(g, "\n") {
			if strings.HasPrefix(l, prefix) && strings.HasSuffix(l, suffix) {
				hit = true
				break
			}
		}
		assert.True(t, hit, "%s:%d:%d %s not in the rule golden", f.Path, f.Line, f.Column, f.Rule)
	}
}

// A small workspace of our own with hand-computed positions.
func TestTextPositions(t *testing.T) {
	root := t.TempDir()
	write(t, root, ".github/skills/demo/SKILL.md", "---\nname: d😀mo\x00\n---\n")
	write(t, root, "README.md", "not ours \x00")
	write(t, root, "node_modules/x/.github/skills/y/SKILL.md", "\x00")

	var out, errb bytes.Buffer
	code := Main([]string{root}, &out, &errb, "test", diagnostics.Options{})
	// "name: d" is 7 units, 😀 two more, "mo" two: the NUL is at 0-based
	// UTF-16 column 11, printed as 12 (UTF-8 would say 14).
	want := filepath.Join(root, ".github/skills/demo/SKILL.md") + ":2:12: error: "
	require.True(t, strings.HasPrefix(out.String(), want), "got %q", out.String())
	assert.True(t, strings.HasSuffix(strings.TrimSpace(out.String()), "[file/encoding]"))
	assert.Equal(t, 1, strings.Count(out.String(), "\n"), "README.md and node_modules are not checked")
	assert.Equal(t, 1, code)

	// Turning the rule off passes; so does lowering it below --fail-on.
	out.Reset()
	assert.Equal(t, 0, Main([]string{"--rule", "file/encoding=off", root}, &out, &errb, "test", diagnostics.Options{}))
	assert.Empty(t, out.String())
	out.Reset()
	assert.Equal(t, 0, Main([]string{root, "--rule", "file/encoding=warning"}, &out, &errb, "test", diagnostics.Options{}), "flags after paths work")
	assert.Contains(t, out.String(), ": warning: ")
	assert.Equal(t, 1, Main([]string{"--fail-on", "warning", "--rule", "file/encoding=warning", root}, &out, &errb, "test", diagnostics.Options{}))

	// A file named directly classifies by its path.
	out.Reset()
	assert.Equal(t, 1, Main([]string{filepath.Join(root, ".github/skills/demo/SKILL.md")}, &out, &errb, "test", diagnostics.Options{}))
	assert.Contains(t, out.String(), ":2:12: error: ")
}

func TestUsageErrors(t *testing.T) {
	var out, errb bytes.Buffer
	assert.Equal(t, 2, Main([]string{"--format", "xml", "."}, &out, &errb, "test", diagnostics.Options{}))
	assert.Equal(t, 2, Main([]string{"--rule", "nolevel", "."}, &out, &errb, "test", diagnostics.Options{}))
	assert.Equal(t, 2, Main([]string{"--fail-on", "loud", "."}, &out, &errb, "test", diagnostics.Options{}))
	assert.Equal(t, 2, Main([]string{"/does/not/exist"}, &out, &errb, "test", diagnostics.Options{}))
	errb.Reset()
	Main([]string{"--targets", "vscode,bogus", t.TempDir()}, &out, &errb, "test", diagnostics.Options{})
	assert.Contains(t, errb.String(), "unknown target 'bogus'")
}

func TestJSONFormat(t *testing.T) {
	root := t.TempDir()
	var out, errb bytes.Buffer
	Main([]string{"--format", "json", root}, &out, &errb, "test", diagnostics.Options{})
	assert.JSONEq(t, `{"version": 1, "findings": [], "files": 0, "checked": {}, "skipped": [], "suppressed": {}}`, out.String(), "no findings is [] not null")

	write(t, root, ".github/skills/demo/SKILL.md", "---\nname: demo\x00\n---\n")
	out.Reset()
	Main([]string{"--format", "json", root}, &out, &errb, "test", diagnostics.Options{})
	var rep struct {
		Findings []map[string]any `json:"findings"`
		Files    int              `json:"files"`
		Checked  map[string]int   `json:"checked"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	assert.Equal(t, 1, rep.Files)
	assert.Equal(t, map[string]int{"skill": 1}, rep.Checked)
	fs := rep.Findings
	require.Len(t, fs, 1)
	assert.Equal(t, "file/encoding", fs[0]["rule"])
	assert.Equal(t, "error", fs[0]["severity"])
	assert.EqualValues(t, 2, fs[0]["line"])
	assert.EqualValues(t, 11, fs[0]["column"])
}

func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "sarif-2.1.0-subset.schema.json"))
	require.NoError(t, err)
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const loc = "https://ahpls.invalid/sarif-2.1.0-subset.schema.json"
	require.NoError(t, c.AddResource(loc, doc))
	sch, err := c.Compile(loc)
	require.NoError(t, err)
	return sch
}

func TestSARIFValidates(t *testing.T) {
	sch := sarifSchema(t)
	var out, errb bytes.Buffer
	Main([]string{"--format", "sarif", rulesWS}, &out, &errb, "1.2.3", diagnostics.Options{})
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out.Bytes()))
	require.NoError(t, err)
	require.NoError(t, sch.Validate(inst))
	// The fixtures have quick fixes, so the log carries SARIF fixes with
	// replacements, deletions and insertions.
	require.Contains(t, out.String(), `"artifactChanges"`)
	require.Contains(t, out.String(), `"deletedRegion"`)
	require.Contains(t, out.String(), `"insertedContent"`)
	// The full OASIS schema, when given (it is not in the repository):
	// AHPLS_SARIF_SCHEMA=/path/to/sarif-schema-2.1.0.json go test ./check -run SARIF
	if full := os.Getenv("AHPLS_SARIF_SCHEMA"); full != "" {
		f, err := os.Open(full)
		require.NoError(t, err)
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		require.NoError(t, err)
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		require.NoError(t, c.AddResource("https://ahpls.invalid/sarif-schema-2.1.0.json", doc))
		fs, err := c.Compile("https://ahpls.invalid/sarif-schema-2.1.0.json")
		require.NoError(t, err)
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out.Bytes()))
		require.NoError(t, err)
		require.NoError(t, fs.Validate(inst), "the full SARIF 2.1.0 schema")
	}

	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
			} `json:"results"`
		} `json:"runs"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &log))
	require.Len(t, log.Runs, 1)
	run := log.Runs[0]
	assert.GreaterOrEqual(t, len(run.Tool.Driver.Rules), len(diagnostics.Rules()))
	for _, r := range run.Results {
		assert.Equal(t, r.RuleID, run.Tool.Driver.Rules[r.RuleIndex].ID)
	}

	// The schema is not a rubber stamp: a broken region fails it.
	bad := strings.Replace(out.String(), `"startLine": 1,`, `"startLine": 0,`, 1)
	if bad == out.String() {
		bad = strings.Replace(out.String(), `"version": "2.1.0"`, `"version": "2.0.0"`, 1)
	}
	inst, err = jsonschema.UnmarshalJSON(strings.NewReader(bad))
	require.NoError(t, err)
	assert.Error(t, sch.Validate(inst))

	// Nor for fixes: a replacement without its deleted region fails.
	bad = strings.Replace(out.String(), `"deletedRegion"`, `"removedRegion"`, 1)
	inst, err = jsonschema.UnmarshalJSON(strings.NewReader(bad))
	require.NoError(t, err)
	assert.Error(t, sch.Validate(inst))
}

// TestSARIFFixMatchesTheEdit: a SARIF fix's replacement, applied by its
// byte offsets, gives the text --fix writes.
func TestSARIFFixMatchesTheEdit(t *testing.T) {
	ws := t.TempDir()
	before := "---\nname: tab-skill\ndescription: Checks a skill whose header is indented with tabs.\nmetadata:\n\tauthor: someone\n---\n"
	write(t, ws, ".github/skills/tab-skill/SKILL.md", before)
	var out, errb bytes.Buffer
	Main([]string{"--format", "sarif", ws}, &out, &errb, "test", diagnostics.Options{})
	var log struct {
		Runs []struct {
			Results []struct {
				Fixes []struct {
					ArtifactChanges []struct {
						Replacements []struct {
							DeletedRegion struct {
								StartLine, StartColumn, EndLine, EndColumn, ByteOffset, ByteLength int
							} `json:"deletedRegion"`
							InsertedContent struct{ Text string } `json:"insertedContent"`
						} `json:"replacements"`
					} `json:"artifactChanges"`
				} `json:"fixes"`
			} `json:"results"`
		} `json:"runs"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &log))
	require.Len(t, log.Runs[0].Results, 1)
	require.Len(t, log.Runs[0].Results[0].Fixes, 1)
	rep := log.Runs[0].Results[0].Fixes[0].ArtifactChanges[0].Replacements[0]
	assert.Equal(t, 5, rep.DeletedRegion.StartLine)
	assert.Equal(t, 1, rep.DeletedRegion.StartColumn)
	assert.Equal(t, 5, rep.DeletedRegion.EndLine)
	assert.Equal(t, 2, rep.DeletedRegion.EndColumn)
	got := before[:rep.DeletedRegion.ByteOffset] + rep.InsertedContent.Text + before[rep.DeletedRegion.ByteOffset+rep.DeletedRegion.ByteLength:]
	res, err := Fix([]string{ws}, Config{}, false)
	require.NoError(t, err)
	require.Len(t, res.Changes, 1)
	assert.Equal(t, string(res.Changes[0].New), got)
}

// lineDiff lists lines only in want (-) or only in got (+), at most 20.
func lineDiff(want, got string) string {
	count := map[string]int{}
	for _, l := range strings.Split(want, "\n") {
		count[l]++
	}
	for _, l := range strings.Split(got, "\n") {
		count[l]--
	}
	var b strings.Builder
	n := 0
	for _, l := range strings.Split(want+"\n"+got, "\n") {
		c := count[l]
		if c == 0 || n >= 20 {
			continue
		}
		sign := "-"
		if c < 0 {
			sign = "+"
		}
		fmt.Fprintf(&b, "%s %s\n", sign, l)
		count[l] = 0
		n++
	}
	return b.String()
}

func write(t testing.TB, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
}

// BenchmarkCheck1000Skills checks a workspace of 1,000 generated skills, a
// tenth of them broken in some way.
func BenchmarkCheck1000Skills(b *testing.B) {
	root := b.TempDir()
	for i := 0; i < 1000; i++ {
		text := fmt.Sprintf("---\nname: skill-%d\ndescription: Does thing number %d when asked.\nlicense: MIT\n---\n# Skill %d\n\nSteps:\n1. one\n2. two\n", i, i, i)
		switch i % 10 {
		case 3:
			text = fmt.Sprintf("---\nname: Skill %d\ndescription: x\n---\n", i)
		case 7:
			text = fmt.Sprintf("---\nname: skill-%d\ndescription: a: b\n---\n", i)
		}
		p := filepath.Join(root, ".github", "skills", fmt.Sprintf("skill-%d", i), "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fs, err := Run([]string{root}, diagnostics.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(fs) == 0 {
			b.Fatal("expected findings")
		}
	}
}

func TestExclude(t *testing.T) {
	root := t.TempDir()
	bad := "---\nname: x\x00\n---\n"
	write(t, root, ".github/skills/demo/SKILL.md", bad)
	write(t, root, "test/fixtures/.github/skills/f/SKILL.md", bad)
	write(t, root, "other/.github/skills/g/SKILL.md", bad)
	count := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		Main(append(args, root), &out, &errb, "test", diagnostics.Options{})
		return strings.Count(out.String(), "\n"), errb.String()
	}
	n, _ := count()
	assert.Equal(t, 3, n)
	n, _ = count("--exclude", "test/fixtures")
	assert.Equal(t, 2, n)
	n, _ = count("--exclude", "**/fixtures/**", "--exclude", "other")
	assert.Equal(t, 1, n)
	var out, errb bytes.Buffer
	assert.Equal(t, 2, Main([]string{"--exclude", "a/[b", root}, &out, &errb, "test", diagnostics.Options{}))
	assert.Contains(t, errb.String(), `"a/[b"`)

	// The workspace's own config adds to the command line's.
	write(t, root, ".ahpls/config.json", `{"exclude": ["fixtures"]}`)
	n, _ = count("--exclude", "other")
	assert.Equal(t, 1, n)
	write(t, root, ".ahpls/config.json", `{"exclude": "fixtures"}`)
	n, warn := count()
	assert.Equal(t, 4, n, "a malformed config is ignored (and is itself a config/invalid finding)")
	assert.Contains(t, warn, ".ahpls/config.json")
}

// A symlinked customization file that stays inside the workspace is checked
// where it is linked (agents and skills-ref follow it); one that leaves the
// workspace is not read.
func TestSymlinkedFilesInsideTheWorkspace(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	bad := "---\nname: Bad Name\ndescription: d\n---\n"
	require.NoError(t, os.MkdirAll(filepath.Join(root, "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "src", "persona.md"), []byte(bad), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "persona.md"), []byte(bad), 0o644))
	for _, d := range []string{"inside", "outside"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, ".github", "skills", d), 0o755))
	}
	if err := os.Symlink(filepath.Join("..", "..", "..", "src", "persona.md"), filepath.Join(root, ".github", "skills", "inside", "SKILL.md")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	require.NoError(t, os.Symlink(filepath.Join(outside, "persona.md"), filepath.Join(root, ".github", "skills", "outside", "SKILL.md")))
	found, err := Run([]string{root}, diagnostics.Options{})
	require.NoError(t, err)
	var rels []string
	for _, f := range found {
		if f.Rule == "skill/name-charset" {
			rels = append(rels, f.Rel)
		}
	}
	assert.Equal(t, []string{".github/skills/inside/SKILL.md"}, rels)
}

// Walking and checking on many workers at once must not change a single
// finding: every layout answer ("is this folder a plugin root?", "does the
// linked file exist?") given while the walk is still under way has to be
// the one a finished walk would give. The rule fixtures have plugins,
// marketplaces at depth, nested skills, links into folders listed later
// and symlinks.
func TestParallelWalkFindsWhatOneWorkerFinds(t *testing.T) {
	one, err := RunConfig([]string{rulesWS}, Config{Workers: 1})
	require.NoError(t, err)
	require.NotEmpty(t, one)
	for range 5 {
		many, err := RunConfig([]string{rulesWS}, Config{Workers: 8})
		require.NoError(t, err)
		require.Equal(t, one, many)
	}
}

// requireOnlySummary: a clean run's stderr is the one summary line.
func requireOnlySummary(t *testing.T, stderr string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	require.Len(t, lines, 1, stderr)
	require.True(t, strings.HasPrefix(lines[0], "ahpls check: checked "), stderr)
}
