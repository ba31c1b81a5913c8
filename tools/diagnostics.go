package tools

import (
	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// RuleConfig is the rule id of every problem found in .ahpls/tools.json.
const RuleConfig = "tools/config"

// Checker is the config file's checker for diagnostics.Options.Checkers.
// It lives here, not in diagnostics, to keep the rules room free of this
// one; every caller that checks files (the server, `ahpls check`, the host
// link) passes it, so the editor and `ahpls check` report the same
// positions.
func Checker() diagnostics.Checker {
	return diagnostics.Checker{Kind: model.KindTools, Check: checkConfigText, Rules: []*diagnostics.Rule{{
		ID:       RuleConfig,
		Summary:  "The client tool config (.ahpls/tools.json) does not match its JSON Schema, or a tool in it could not run as written.",
		Kinds:    "tools",
		Severity: "Error, or Warning for what still works [I].",
	}}}
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
