package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ahpls-dev/ahpls/model"
)

// TestSetupSteps covers the setup rules a single golden file cannot (the
// golden workspace holds one copilot-setup-steps.yml, at its root).
func TestSetupSteps(t *testing.T) {
	cases := []struct {
		name, text string
		want       []string // rule ids, in order
		sev        model.Severity
	}{
		{"good", "jobs:\n  copilot-setup-steps:\n    runs-on: ubuntu-latest\n    timeout-minutes: 59\n    steps:\n      - run: make\n", nil, 0},
		{"expression timeout", "jobs:\n  copilot-setup-steps:\n    timeout-minutes: ${{ vars.T }}\n", nil, 0},
		{"wrong job name", "jobs:\n  setup:\n    runs-on: ubuntu-latest\n", []string{"setup/job-missing"}, model.SeverityError},
		{"no jobs", "name: x\non: push\n", []string{"setup/job-missing"}, model.SeverityError},
		{"two other jobs", "jobs:\n  a:\n    steps: []\n  b:\n    steps: []\n", []string{"setup/job-missing"}, model.SeverityError},
		{"not yaml", "jobs: [\n", []string{"setup/syntax"}, model.SeverityWarning},
		{"a list", "- a\n- b\n", []string{"setup/syntax"}, model.SeverityWarning},
		{"zero timeout", "jobs:\n  copilot-setup-steps:\n    timeout-minutes: 0\n", []string{"setup/timeout"}, model.SeverityWarning},
		{"ignored key", "jobs:\n  copilot-setup-steps:\n    if: false\n", []string{"setup/job-key"}, model.SeverityInfo},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Check(core.File{Path: model.SetupStepsPath, Kind: model.KindSetupSteps, Text: []byte(c.text)}, core.Options{})
			var got []string
			for _, x := range d {
				got = append(got, x.Rule)
				assert.Equal(t, c.sev, x.Severity, x.Message)
			}
			assert.Equal(t, c.want, got)
		})
	}
	// One other job: the fix renames it.
	d := Check(core.File{Path: model.SetupStepsPath, Kind: model.KindSetupSteps, Text: []byte("jobs:\n  setup:\n    steps: []\n")}, core.Options{})
	if assert.Len(t, d, 1) && assert.Len(t, d[0].Fixes, 1) {
		assert.Equal(t, model.Span{Start: 8, End: 13}, d[0].Fixes[0].Edits[0].Span)
	}
}
