package main

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestAssignPartsIsAThirdPerShapeAndIgnoresOrder(t *testing.T) {
	var es []entry
	for _, r := range []string{"a/1", "a/2", "a/3", "a/4", "a/5", "a/6"} {
		es = append(es, entry{Repo: r, Shape: "s"})
	}
	es = append(es, entry{Repo: "b/1", Shape: "t"}, entry{Repo: "b/2", Shape: "t"})
	p := assignParts(es)
	rev := make([]entry, len(es))
	for i, e := range es {
		rev[len(es)-1-i] = e
	}
	q := assignParts(rev)
	held := map[string]int{}
	for _, e := range es {
		if p[e.Repo] != q[e.Repo] {
			t.Errorf("%s: %s in one order, %s in the other", e.Repo, p[e.Repo], q[e.Repo])
		}
		if p[e.Repo] == "holdout" {
			held[e.Shape]++
		}
	}
	if held["s"] != 2 || held["t"] != 1 {
		t.Errorf("holdout per shape = %v, want s:2 t:1", held)
	}
}

func TestSelectPartRefusesAnEditedPart(t *testing.T) {
	es := []entry{{Repo: "a/1", Shape: "s"}, {Repo: "a/2", Shape: "s"}, {Repo: "a/3", Shape: "s"}}
	p := assignParts(es)
	for i := range es {
		es[i].Part = p[es[i].Repo]
	}
	if _, err := selectPart(es, "tune"); err != nil {
		t.Fatalf("list following the rule refused: %v", err)
	}
	for i := range es {
		if es[i].Part == "holdout" {
			es[i].Part = "tune"
		}
	}
	if _, err := selectPart(es, "tune"); err == nil {
		t.Fatal("a holdout repository moved to tune was accepted")
	}
}

func TestTheCommittedListFollowsTheRule(t *testing.T) {
	es, err := readList("corpus.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if len(es) < 30 {
		t.Errorf("%d repositories, want at least 30", len(es))
	}
	if _, err := selectPart(es, "all"); err != nil {
		t.Error(err)
	}
}

func TestGlobMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		want          bool
	}{
		{"**", "a/b/c.md", true},
		{"skills/*/SKILL.md", "skills/x/SKILL.md", true},
		{"skills/*/SKILL.md", "skills/x/y/SKILL.md", false},
		{"skills/**/SKILL.md", "skills/x/y/SKILL.md", true},
		{"skills/**/SKILL.md", "skills/SKILL.md", true},
		{"**/hooks.json", "plugins/p/hooks/hooks.json", true},
		{"**/hooks.json", "plugins/p/hooks/other.json", false},
	} {
		if got := globMatch(c.pattern, c.name); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", c.pattern, c.name, got, c.want)
		}
	}
}

func TestJudgePrefersExactPathAndMatchesSeverity(t *testing.T) {
	js := []judgement{
		{Repo: "*", Path: "**", Rule: "md/link", Severity: "warning", Verdict: true},
		{Repo: "o/r", Path: "a/SKILL.md", Rule: "md/link", Severity: "warning", Verdict: false},
		{Repo: "o/r", Path: "h.json", Rule: "hooks/type", Severity: "error", Verdict: false},
	}
	if j := judge(js, "o/r", finding{Path: "a/SKILL.md", Rule: "md/link", Severity: "warning"}); j == nil || j.Verdict {
		t.Errorf("exact path row not preferred: %+v", j)
	}
	if j := judge(js, "o/r", finding{Path: "b/SKILL.md", Rule: "md/link", Severity: "warning"}); j == nil || !j.Verdict {
		t.Errorf("glob row not used: %+v", j)
	}
	if j := judge(js, "o/r", finding{Path: "h.json", Rule: "hooks/type", Severity: "warning"}); j != nil {
		t.Errorf("an error's judgement was applied to a warning: %+v", j)
	}
}

func TestReadJudgedRejectsABadVerdict(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j.tsv")
	if err := os.WriteFile(p, []byte("repo\tpath\trule\tseverity\tverdict\twhy\no/r\tx\tr\terror\tmaybe\tw\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readJudged(p); err == nil {
		t.Fatal("verdict 'maybe' accepted")
	}
}

func TestTheCommittedJudgementsParse(t *testing.T) {
	if _, err := readJudged("judged.tsv"); err != nil {
		t.Fatal(err)
	}
}

func TestParseCheckReadsBothForms(t *testing.T) {
	fs, counts, err := parseCheck([]byte(`[{"rel":"a","severity":"error","rule":"r"}]`))
	if err != nil || len(fs) != 1 || counts != nil {
		t.Errorf("array form: %v %v %v", fs, counts, err)
	}
	fs, counts, err = parseCheck([]byte(`{"findings":[{"rel":"a","severity":"error","rule":"r"}],"files":3,"checked":{"skill":2,"mcp":1},"skipped":[]}`))
	if err != nil || len(fs) != 1 || counts["skill"] != 2 || counts["mcp"] != 1 {
		t.Errorf("object form: %v %v %v", fs, counts, err)
	}
}

func TestTreeKind(t *testing.T) {
	for rel, want := range map[string]string{
		"skills/x/SKILL.md":                      "skill",
		"p/.claude-plugin/plugin.json":           "plugin",
		".claude-plugin/marketplace.json":        "marketplace",
		"hooks/hooks.json":                       "hooks",
		".github/agents/a.agent.md":              "agent",
		".github/prompts/p.prompt.md":            "prompt-or-command",
		".claude/commands/x/y.md":                "prompt-or-command",
		"docs/readme.md":                         "",
		".github/instructions/a.instructions.md": "instructions",
	} {
		if got := treeKind(rel); got != want {
			t.Errorf("treeKind(%q) = %q, want %q", rel, got, want)
		}
	}
}

// A root whose only errors say the runtime loads the file with empty
// metadata lost its whole header: an Error by the policy (issue #40), so
// it stays refused; it is only counted.
func TestRuntimeLoadsKeepsTheHeaderDroppedError(t *testing.T) {
	loads := &root{Kind: "claude-plugin", ccErr: true, ccMsgs: []string{
		"commands/scan.md frontmatter: YAML frontmatter failed to parse: YAML Parse error: Unexpected token. At runtime this command loads with empty metadata (all frontmatter fields silently dropped).",
	}}
	mixed := &root{Kind: "claude-plugin", ccErr: true, ccMsgs: []string{
		loads.ccMsgs[0],
		"agents/a.md frontmatter: YAML frontmatter failed to parse",
	}}
	runtimeLoads([]*root{loads, mixed})
	if !loads.ccErr || !loads.loadsAnyway {
		t.Errorf("a root whose header is dropped must keep its error and be counted")
	}
	if !mixed.ccErr || mixed.loadsAnyway {
		t.Errorf("a root with a real refusal beside a runtime-loads error lost its error")
	}
}

func TestClaudeRootLeavesBarePluginJSONOutOnlyForClaude(t *testing.T) {
	saved := *targets
	t.Cleanup(func() { *targets = saved })
	bare := &root{Kind: "vscode-plugin"}
	*targets = "claude-code"
	if claudeRoot(bare) || !claudeRoot(&root{Kind: "claude-plugin"}) || !claudeRoot(&root{Kind: "marketplace"}) {
		t.Errorf("with --targets claude-code only a bare plugin.json is outside Claude's roots")
	}
	*targets = ""
	if !claudeRoot(bare) {
		t.Errorf("with the default targets a bare plugin.json is compared as before")
	}
}

// TestJudgeConsumerRows: a row whose why starts with a #38 consumer judges
// the finding for that consumer only, ahead of the rows for any consumer.
func TestJudgeConsumerRows(t *testing.T) {
	js := []judgement{
		{Repo: "o/r", Path: "s/SKILL.md", Rule: "skill/desc-empty", Severity: "error", Verdict: true, Why: "skills-ref refuses it"},
		{Repo: "o/r", Path: "s/*", Rule: "skill/desc-empty", Severity: "error", Verdict: false, Why: "codex: not a folder Codex reads"},
		{Repo: "o/r", Path: "t/SKILL.md", Rule: "skill/desc-empty", Severity: "error", Verdict: true, Why: "gemini-cli: loader skips it"},
		{Repo: "o/r", Path: "u/SKILL.md", Rule: "skill/desc-empty", Severity: "error", Verdict: true, Why: "opencode: left out of the skill list"},
	}
	saved := *targets
	defer func() { *targets = saved }()
	f := finding{Path: "s/SKILL.md", Rule: "skill/desc-empty", Severity: "error"}
	g := finding{Path: "t/SKILL.md", Rule: "skill/desc-empty", Severity: "error"}
	h := finding{Path: "u/SKILL.md", Rule: "skill/desc-empty", Severity: "error"}
	for _, c := range []struct {
		targets string
		f       finding
		want    string // "true", "false" or "none"
	}{
		{"codex", f, "false"}, {"agent-skills", f, "true"}, {"", f, "true"}, {"gemini-cli", f, "true"},
		{"gemini-cli", g, "true"}, {"codex", g, "none"}, {"", g, "none"},
		{"opencode", h, "true"}, {"codex", h, "none"}, {"opencode", f, "true"},
	} {
		*targets = c.targets
		got := "none"
		if j := judge(js, "o/r", c.f); j != nil {
			got = strconv.FormatBool(j.Verdict)
		}
		if got != c.want {
			t.Errorf("targets %q, %s: got %s, want %s", c.targets, c.f.Path, got, c.want)
		}
	}
}
