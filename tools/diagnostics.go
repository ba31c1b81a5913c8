package tools

import (
	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// ConfigProblems validates the text of ConfigFile for
// diagnostics.Options.ToolsConfig; the rule it feeds (tools/config) is in
// the diagnostics rule table like every other, so the editor and `ahpls
// check` report the same positions. Whether the workspace is trusted is
// not known here: the agent-host link reports untrusted tools on the file
// itself when a host is configured.
func ConfigProblems(text []byte) []diagnostics.ToolsProblem {
	probs := ValidateConfig(text, ConfigOptions{Source: SourceWorkspace, Trusted: true})
	out := make([]diagnostics.ToolsProblem, 0, len(probs))
	for _, p := range probs {
		sev := model.SeverityError
		switch p.Severity {
		case SeverityWarning:
			sev = model.SeverityWarning
		case SeverityInfo:
			sev = model.SeverityInfo
		}
		out = append(out, diagnostics.ToolsProblem{Severity: sev, Message: p.Message, Span: model.Span{Start: p.Start, End: p.End}})
	}
	return out
}
