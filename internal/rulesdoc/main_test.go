package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

const (
	fixtures     = "../../diagnostics/testdata/ws"
	rulesDocPath = "../../docs/rules.md"
)

// The committed docs/rules.md is what the generator writes today.
func TestRulesDocUpToDate(t *testing.T) {
	got, err := generate(fixtures)
	require.NoError(t, err)
	want, err := os.ReadFile(rulesDocPath)
	require.NoError(t, err, "docs/rules.md is missing; run go generate ./diagnostics")
	assert.Equal(t, string(want), string(got), "docs/rules.md is out of date; run go generate ./diagnostics")
}

// Every rule has a documented section with its kinds and severity, and the
// section's heading gets exactly the anchor model.RuleHref links to (GitHub
// numbers repeated anchors, so headings must also be unique).
func TestRulesDocAnchors(t *testing.T) {
	b, err := generate(fixtures)
	require.NoError(t, err)
	doc := string(b)
	anchors := map[string]int{}
	for _, l := range strings.Split(doc, "\n") {
		if h, ok := strings.CutPrefix(l, "#"); ok {
			anchors[githubAnchor(strings.TrimLeft(h, "# "))]++
		}
	}
	for a, n := range anchors {
		assert.Equal(t, 1, n, "heading anchor %q is not unique", a)
	}
	for _, r := range diagnostics.Rules() {
		want, ok := strings.CutPrefix(model.RuleHref(r.ID), hrefPrefix)
		require.True(t, ok, "RuleHref(%s) points elsewhere", r.ID)
		assert.Equal(t, want, githubAnchor(r.ID), "rule %s: GitHub anchor differs from RuleHref", r.ID)
		assert.Contains(t, doc, "\n### "+r.ID+"\n", "rule %s has no section", r.ID)
		assert.NotEmpty(t, r.Kinds, "rule %s has no Kinds", r.ID)
		assert.NotEmpty(t, r.Severity, "rule %s has no Severity", r.ID)
		assert.NotEqual(t, "", kindTitleOf(strings.SplitN(r.ID, "/", 2)[0]), "rule %s: prefix has no section title", r.ID)
	}
}

func TestRulesDocHasAnExampleForEveryRule(t *testing.T) {
	ex, err := fixtureExamples(fixtures)
	require.NoError(t, err)
	for _, r := range diagnostics.Rules() {
		e, ok := ex[r.ID]
		if assert.True(t, ok, "rule %s has no example", r.ID) {
			assert.NotEmpty(t, e.message, r.ID)
		}
	}
}

func TestGithubAnchor(t *testing.T) {
	for in, want := range map[string]string{
		"skill/name-charset":         "skillname-charset",
		"How severities are decided": "how-severities-are-decided",
		"Skills (SKILL.md)":          "skills-skillmd",
		"a_b/C":                      "a_bc",
	} {
		assert.Equal(t, want, githubAnchor(in), in)
	}
}
