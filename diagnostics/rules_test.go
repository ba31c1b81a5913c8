package diagnostics

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/ahpls-dev/ahpls/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every rule in the table has one entry with its metadata.
func TestRuleTable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules() {
		assert.False(t, seen[r.ID], "rule %s is listed twice", r.ID)
		seen[r.ID] = true
		assert.NotEmpty(t, r.Summary, r.ID)
		assert.NotEmpty(t, r.Kinds, r.ID)
		assert.NotEmpty(t, r.Severity, r.ID)
		for _, e := range r.Evidence {
			assert.NotEmpty(t, e.Consumer, r.ID)
			assert.NotEmpty(t, e.Reaction, r.ID)
			assert.NotEmpty(t, e.Source, r.ID)
		}
		got, ok := LookupRule(r.ID)
		assert.True(t, ok, r.ID)
		assert.Equal(t, r.ID, got.ID)
	}
}

// Every rule id a golden file expects is in the table: a finding whose
// rule is unknown would have no hover summary, SARIF entry or docs
// section.
func TestGoldenRuleIDsAreInTheTable(t *testing.T) {
	ids := map[string][]string{} // rule id → golden files
	require.NoError(t, filepath.WalkDir(goldenRoot, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(p, ".golden") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			if f := strings.SplitN(line, " ", 4); len(f) == 4 {
				ids[f[2]] = append(ids[f[2]], p)
			} else if line != "" {
				t.Errorf("%s: malformed golden line %q", p, line)
			}
		}
		return nil
	}))
	require.NotEmpty(t, ids, "no golden findings under %s", goldenRoot)
	for id, files := range ids {
		_, ok := LookupRule(id)
		assert.True(t, ok, "rule %s (expected in %s) is not in the rule table", id, files[0])
	}
}

// claimRE finds a consumer reaction that makes a finding an Error (SKIP,
// REJ) or a Warning (LOSE, WARN) in a rule's Severity line: a legend code
// followed by the reaction. A trailing "?" marks an unverified reaction,
// which needs no evidence. (A list such as "VH, CC, CL LOSE" is read as
// its last code only.)
var claimRE = regexp.MustCompile(`\b(V|VS|VH|CC|CL|AS|UP|AP) (SKIP|REJ|NOHDR|DROP|LOSE|WARN|SHADOWED|UNDISC)\b(\??)`)

// evidenceGaps are the Error and Warning claims of Severity lines that no
// Evidence entry backs yet (rule id → consumer codes), as found when this
// test was written. The list may only shrink: add the evidence (or lower
// the claim) and delete the entry; a new rule cannot join it.
var evidenceGaps = map[string][]string{
	"agent/handoff-key":        {"V"},
	"ccagent/desc-missing":     {"CC"},
	"ccagent/enum":             {"CC"},
	"ccagent/name-missing":     {"CC"},
	"ccagent/name-skip":        {"CC"},
	"ccagent/plugin-ignored":   {"CC"},
	"fm/bom":                   {"V"},
	"fm/crlf":                  {"UP"},
	"fm/leading-lines":         {"AS", "CC", "V"},
	"fm/missing":               {"V"},
	"fm/not-mapping":           {"CC", "V"},
	"fm/unclosed":              {"AS", "V"},
	"hooks/field-type":         {"V"},
	"hooks/user-config":        {"CC"},
	"market/required":          {"CL"},
	"market/version":           {"CC"},
	"mcp/duplicate":            {"CL", "V"},
	"mcp/name":                 {"CC"},
	"md/link":                  {"CL"},
	"memory/import":            {"CC"},
	"plugin/copies":            {"CL", "V"},
	"plugin/name-length":       {"AP"},
	"plugin/name-missing":      {"CL"},
	"plugin/path-escape":       {"AP"},
	"settings/recommendations": {"V"},
	"skill/compat":             {"UP"},
	"skill/desc-length":        {"UP"},
	"skill/desc-missing":       {"CC"},
	"skill/desc-xml":           {"UP"},
	"skill/enum":               {"CC"},
	"skill/listing-length":     {"CC"},
	"skill/name-duplicate":     {"CL", "V", "VH"},
	"skill/name-hyphens":       {"UP"},
	"skill/name-length":        {"UP", "V"},
	"skill/name-reserved":      {"UP"},
	"yaml/duplicate-key":       {"V"},
	"yaml/syntax":              {"V"},
	"yaml/tab-indent":          {"AS"},
	"yaml/vscode-subset":       {"V"},
}

// A rule's severity is the worst consumer reaction with evidence: every
// verified Error or Warning reaction its Severity line claims has an
// Evidence entry for that consumer (V is backed by VS, VH or V, and VS or
// VH by V), apart from the listed gaps.
func TestErrorAndWarningClaimsHaveEvidence(t *testing.T) {
	backs := func(claim, ev string) bool {
		return claim == ev || (claim == "V" && (ev == "VS" || ev == "VH")) || ((claim == "VS" || claim == "VH") && ev == "V")
	}
	got := map[string][]string{}
	for _, r := range Rules() {
		missing := map[string]bool{}
		for _, m := range claimRE.FindAllStringSubmatch(r.Severity, -1) {
			if m[3] == "?" {
				continue
			}
			backed := false
			for _, e := range r.Evidence {
				backed = backed || backs(m[1], e.Consumer)
			}
			if !backed {
				missing[m[1]] = true
			}
		}
		for c := range missing {
			got[r.ID] = append(got[r.ID], c)
		}
		sort.Strings(got[r.ID])
	}
	for id, cs := range got {
		assert.Equal(t, evidenceGaps[id], cs, "rule %s: Error/Warning reactions without evidence (add Evidence, or lower the claim)", id)
	}
	for id := range evidenceGaps {
		_, ok := got[id]
		assert.True(t, ok, "rule %s has its evidence now: delete it from evidenceGaps", id)
	}
}

// TestCheckersCoverTheKinds: every kind of model.Kinds has exactly one
// checker, and every checker's kind is one of them.
func TestCheckersCoverTheKinds(t *testing.T) {
	count := map[model.Kind]int{}
	for _, c := range checkers {
		count[c.Kind]++
		if c.Check == nil || len(c.Rules) == 0 {
			t.Errorf("checker %s: no check function or no rules", c.Kind)
		}
		if _, ok := c.Kind.Spec(); !ok {
			t.Errorf("checker %s: no model.KindSpec", c.Kind)
		}
	}
	for _, k := range model.Kinds {
		if count[k.Kind] != 1 {
			t.Errorf("kind %s: %d checkers", k.Kind, count[k.Kind])
		}
	}
}

// TestRuleFacts pins the rules other rooms ask about by their facts
// (`ahpls list` reads NameClash and WholeFile).
func TestRuleFacts(t *testing.T) {
	var clash, whole []string
	for _, r := range Rules() {
		if r.NameClash {
			clash = append(clash, r.ID)
		}
		if r.WholeFile {
			whole = append(whole, r.ID)
		}
	}
	assert.Equal(t, []string{"ccagent/duplicate", "mcp/duplicate", "roo/legacy-shadowed", "skill/name-duplicate"}, clash)
	assert.Equal(t, []string{"cline/empty", "cline/extension", "cline/field-type", "cline/header", "cline/nested", "cxmarket/json", "cxmarket/required", "file/encoding", "file/too-large", "file/unreadable", "hooks/shape", "hooks/version", "json/syntax", "mcp/wrapper",
		"roomodes/field", "roomodes/file-regex", "roomodes/group", "roomodes/group-duplicate", "roomodes/groups", "roomodes/no-modes", "roomodes/shape", "roomodes/slug", "roomodes/slug-duplicate", "roomodes/syntax"}, whole)
}
