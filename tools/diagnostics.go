package tools

import (
	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// RuleConfig is the rule id of every problem found in .ahpls/tools.json.
const RuleConfig = "tools/config"

// Registering here, not in diagnostics, keeps the rules room free of this
// one: any binary that can run tools also checks their config, with the
// same positions in the editor and in `ahpls check`.
func init() {
	diagnostics.RegisterChecker(model.KindTools, checkConfigText, diagnostics.RuleInfo{
		ID:      RuleConfig,
		Summary: "The client tool config (.ahpls/tools.json) does not match its JSON Schema, or a tool in it could not run as written.",
	})
}

// checkConfigText validates the file's structure. Whether the workspace is
// trusted is not known here: the agent-host link reports untrusted tools
// on the file itself when a host is configured.
func checkConfigText(text []byte) []model.Diagnostic {
	probs := ValidateConfig(text, ConfigOptions{Source: SourceWorkspace, Trusted: true})
	out := make([]model.Diagnostic, 0, len(probs))
	for _, p := range probs {
		sev := model.SeverityError
		switch p.Severity {
		case SeverityWarning:
			sev = model.SeverityWarning
		case SeverityInfo:
			sev = model.SeverityInfo
		}
		out = append(out, model.Diagnostic{Rule: RuleConfig, Severity: sev, Message: p.Message, Span: model.Span{Start: p.Start, End: p.End}})
	}
	return out
}
