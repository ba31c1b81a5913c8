package check

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

func TestRuleLevels(t *testing.T) {
	for _, c := range []struct {
		id     string
		levels map[model.Target]string
		def    string
		own    bool
		fix    string
	}{
		// "V LOSE · CC ok · AS SPEC"
		{"fm/bom", map[model.Target]string{model.TargetVSCode: "warning", model.TargetVSCodeAgentHost: "warning", model.TargetAgentSkills: "info"}, "warning", false, "safe"},
		// "Warning [I]; …": ahpls' own level for every target.
		{"file/too-large", everyTarget("warning"), "warning", true, "none"},
		// "All REJ"
		{"json/syntax", nil, "error", false, "none"},
		// "CC REJ · CL REJ" plus evidence.
		{"market/required", map[model.Target]string{model.TargetClaudeCode: "error", model.TargetCopilotCLI: "error"}, "", false, "unsafe"},
	} {
		info, err := LookupRuleInfo(c.id)
		require.NoError(t, err)
		if c.levels != nil {
			assert.Equal(t, c.levels, info.Levels, c.id)
		}
		assert.Equal(t, c.def, info.DefaultLevel, c.id)
		assert.Equal(t, c.own, info.SetByAhpls, c.id)
		assert.Equal(t, c.fix, info.Fix, c.id)
	}
}

func TestRulesMainJSONListsEveryRule(t *testing.T) {
	var out, errb bytes.Buffer
	require.Equal(t, 0, RulesMain([]string{"--format", "json"}, &out, &errb), errb.String())
	var infos []RuleInfo
	require.NoError(t, json.Unmarshal(out.Bytes(), &infos))
	require.Len(t, infos, len(diagnostics.Rules()))
	tiers := map[string]int{}
	for _, r := range infos {
		assert.Contains(t, []string{"safe", "unsafe", "none"}, r.Fix, r.ID)
		assert.NotEmpty(t, r.Kinds, r.ID)
		assert.True(t, strings.HasSuffix(r.Href, "#"+strings.NewReplacer("/", "", "-", "-").Replace(r.ID)), r.ID+" "+r.Href)
		tiers[r.Fix]++
		if r.Fix != "none" {
			assert.NotEmpty(t, r.FixWhy, r.ID)
		}
	}
	want := map[string]int{}
	for _, r := range diagnostics.Rules() {
		want[r.Fix.String()]++
	}
	assert.Equal(t, want, tiers)
	t.Logf("rules by fix tier: %v", tiers)

	out.Reset()
	require.Equal(t, 0, RulesMain(nil, &out, &errb))
	assert.Equal(t, len(infos), strings.Count(out.String(), "\n"))
	assert.Equal(t, exitUsage, RulesMain([]string{"--format", "xml"}, &out, &errb))
	assert.Equal(t, exitUsage, RulesMain([]string{"extra"}, &out, &errb))
}

func TestCheckExplain(t *testing.T) {
	var out, errb bytes.Buffer
	require.Equal(t, exitClean, Main([]string{"--explain", "fm/bom"}, &out, &errb, "test", diagnostics.Options{}))
	md := out.String()
	for _, want := range []string{"# fm/bom\n", "- **Kinds:**", "- **Severity:**", "- **Fix:** safe", "More: " + model.RuleHref("fm/bom")} {
		assert.Contains(t, md, want)
	}
	info, err := LookupRuleInfo("fm/bom")
	require.NoError(t, err)
	assert.Equal(t, ExplainMarkdown(info), md, "one rendering for the CLI and the MCP server")

	out.Reset()
	errb.Reset()
	assert.Equal(t, exitUsage, Main([]string{"--explain", "fm/nope"}, &out, &errb, "test", diagnostics.Options{}))
	assert.Contains(t, errb.String(), `unknown rule "fm/nope"`)
	assert.Empty(t, out.String())
}

// TestConfigRootIsTheNamedFilesWorkspace: with Config.Root a named file
// outside the current folder is fixed through Root's writer; without it,
// --fix cannot tell which workspace it may write in.
func TestConfigRootIsTheNamedFilesWorkspace(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, ".github", "skills", "pdf", "SKILL.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	text := "\uFEFF---\nname: pdf\ndescription: Reads PDF files. Use for PDFs.\n---\n"
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))

	res, err := Fix([]string{p}, Config{}, true)
	require.NoError(t, err)
	assert.Len(t, res.Refused, 1, "no root: not written")
	b, _ := os.ReadFile(p)
	assert.Equal(t, text, string(b))

	res, err = Fix([]string{p}, Config{Root: root}, true)
	require.NoError(t, err)
	assert.Empty(t, res.Refused)
	require.Len(t, res.Changes, 1)
	assert.Equal(t, ".github/skills/pdf/SKILL.md", res.Changes[0].Fixed[0].Rel)
	b, _ = os.ReadFile(p)
	assert.Equal(t, strings.TrimPrefix(text, "\uFEFF"), string(b))
}

func TestRuleLevelsUnknownReactionIsInfo(t *testing.T) {
	// "V ? (documented, not in the code)": unknown gives at most Info.
	info, err := LookupRuleInfo("plugin/manifest-location")
	require.NoError(t, err)
	assert.Equal(t, map[model.Target]string{model.TargetVSCode: "info", model.TargetVSCodeAgentHost: "info"}, info.Levels)
}

// everyTarget is the same level for every consumer model.Consumers knows.
func everyTarget(level string) map[model.Target]string {
	out := map[model.Target]string{}
	for _, t := range model.AllTargets {
		out[t] = level
	}
	return out
}
