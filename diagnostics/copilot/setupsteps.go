package copilot

// Copilot setup steps: .github/workflows/copilot-setup-steps.yml, the GitHub
// Actions workflow whose copilot-setup-steps job GitHub's Copilot coding
// agent runs before it starts work. No configurable target reads it (the
// agent runs on GitHub, not in an editor), so these rules report at fixed
// levels, each backed by GitHub's documentation.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// SetupRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var SetupRules = []*core.Rule{setupSyntax, setupJobMissing, setupJobKey, setupTimeout}

// setupDocs is GitHub's page on the file.
const setupDocs = "docs.github.com/en/copilot/how-tos/use-copilot-agents/coding-agent/customize-the-agent-environment"

var setupSyntax = &core.Rule{
	ID:       "setup/syntax",
	Summary:  "copilot-setup-steps.yml is not YAML, or not a mapping.",
	Kinds:    "setup",
	Severity: "Warning [I]: ahpls cannot read the workflow, and GitHub Actions does not run a workflow it cannot parse.",
}

var setupJobMissing = &core.Rule{
	ID:       "setup/job-missing",
	Fix:      core.FixUnsafe,
	FixWhy:   "renames the file's only job, which the coding agent then runs (its steps were not run before)",
	Summary:  "copilot-setup-steps.yml has no job named `copilot-setup-steps`.",
	Kinds:    "setup",
	Severity: "Error: GitHub's Copilot coding agent skips the file (SKIP); not a configurable target, so the level is fixed.",
	Evidence: []core.Evidence{
		{Consumer: "CCA", Reaction: "SKIP", Source: setupDocs + ": the file \"must contain a single copilot-setup-steps job\"; GitHub's example workflow there: \"The job MUST be called `copilot-setup-steps` or it will not be picked up by Copilot.\""},
	},
}

var setupJobKey = &core.Rule{
	ID:       "setup/job-key",
	Summary:  "A key of the copilot-setup-steps job that the coding agent does not take over (only steps, permissions, runs-on, services, snapshot and timeout-minutes are).",
	Kinds:    "setup",
	Severity: "Info: the coding agent ignores the key (IGN per GitHub's docs, not observed); not a configurable target, so the level is fixed.",
	Evidence: []core.Evidence{
		{Consumer: "CCA", Reaction: "IGN", Source: setupDocs + ": the settings of the copilot-setup-steps job that can be customized are listed (steps, permissions, runs-on, services, snapshot, timeout-minutes)"},
	},
}

var setupTimeout = &core.Rule{
	ID:       "setup/timeout",
	Summary:  "`timeout-minutes` of the copilot-setup-steps job is over 59 or not a positive number.",
	Kinds:    "setup",
	Severity: "Warning: the coding agent does not honour more than 59 minutes (LOSE); not a configurable target, so the level is fixed.",
	Evidence: []core.Evidence{
		{Consumer: "CCA", Reaction: "LOSE", Source: setupDocs + ": timeout-minutes has a maximum value of 59; github/docs commit a8a7c61: \"Each Copilot cloud agent session has a maximum execution time of 59 minutes\""},
	},
}

// setupJobKeys are the job keys the coding agent takes over.
var setupJobKeys = map[string]bool{"steps": true, "permissions": true, "runs-on": true, "services": true, "snapshot": true, "timeout-minutes": true}

func CheckSetupSteps(f core.File, r *core.Reporter) {
	d, yerr := syntax.ParseYAML(f.Text, func(i int) int { return i })
	if yerr != nil {
		r.Add(model.Diagnostic{Rule: setupSyntax.ID, Severity: model.SeverityWarning, Span: yerr.Span,
			Message: "copilot-setup-steps.yml is not valid YAML: " + yerr.Msg + "."})
		return
	}
	if d.Root == nil || d.Root.Kind != yaml.MappingNode {
		span := model.Span{Start: 0, End: core.FirstLineEnd(f.Text)}
		if d.Root != nil {
			span = d.Span(d.Root)
		}
		r.Add(model.Diagnostic{Rule: setupSyntax.ID, Severity: model.SeverityWarning, Span: span,
			Message: "copilot-setup-steps.yml must be a workflow: a YAML mapping with `jobs`."})
		return
	}
	jobsKey, jobs := mapEntry(d.Root, "jobs")
	var job *yaml.Node
	var names []string
	if jobs != nil && jobs.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(jobs.Content); i += 2 {
			names = append(names, jobs.Content[i].Value)
			if jobs.Content[i].Value == "copilot-setup-steps" {
				job = jobs.Content[i+1]
			}
		}
	}
	if job == nil {
		msg := "Copilot coding agent runs only the job named 'copilot-setup-steps', and this file has none"
		span := model.Span{Start: 0, End: core.FirstLineEnd(f.Text)}
		var fixes []model.Fix
		switch {
		case jobsKey == nil:
			msg += " (no `jobs`)"
		case len(names) > 0:
			msg += " (jobs: " + strings.Join(names, ", ") + ")"
			span = d.KeySpan(jobs.Content[0])
			if len(names) == 1 {
				fixes = append(fixes, model.Fix{Title: "Rename the job to 'copilot-setup-steps'", Preferred: true,
					Edits: []model.Edit{{Span: span, NewText: "copilot-setup-steps"}}})
			}
		default:
			span = d.KeySpan(jobsKey)
		}
		r.Add(model.Diagnostic{Rule: setupJobMissing.ID, Severity: model.SeverityError, Span: span,
			Message: msg + "; the agent starts without these setup steps.", Fixes: fixes})
		return
	}
	if job.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(job.Content); i += 2 {
		k, v := job.Content[i], job.Content[i+1]
		if !setupJobKeys[k.Value] {
			r.Add(model.Diagnostic{Rule: setupJobKey.ID, Severity: model.SeverityInfo, Span: d.KeySpan(k),
				Tags:    []model.Tag{model.TagUnnecessary},
				Message: "Copilot coding agent ignores '" + k.Value + "' in the copilot-setup-steps job; it takes over only steps, permissions, runs-on, services, snapshot and timeout-minutes."})
			continue
		}
		if k.Value == "timeout-minutes" && v.Kind == yaml.ScalarNode && !strings.Contains(v.Value, "${{") {
			n, err := strconv.ParseFloat(strings.TrimSpace(v.Value), 64)
			switch {
			case err != nil || n <= 0:
				r.Add(model.Diagnostic{Rule: setupTimeout.ID, Severity: model.SeverityWarning, Span: d.Span(v),
					Message: "'timeout-minutes' must be a number of minutes from 1 to 59."})
			case n > 59:
				r.Add(model.Diagnostic{Rule: setupTimeout.ID, Severity: model.SeverityWarning, Span: d.Span(v),
					Message: "Copilot coding agent allows the setup steps at most 59 minutes, not " + v.Value + "."})
			}
		}
	}
}

// mapEntry returns the key and value nodes of key in the mapping m.
func mapEntry(m *yaml.Node, key string) (k, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}
