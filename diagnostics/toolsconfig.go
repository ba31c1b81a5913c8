package diagnostics

// The client tool config, .ahpls/tools.json (ahpls' own file). Its
// validator (JSON Schema, argv templates, working directories) lives in
// package tools, beside the registry that reads the file, and this room
// must not import it: the caller that builds Options passes it as
// Options.ToolsConfig, and this file reports what it finds as tools/config.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/model"
)

// toolsRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var toolsRules = []*core.Rule{toolsConfig}

var toolsConfig = &core.Rule{
	ID:       "tools/config",
	Summary:  "The client tool config (.ahpls/tools.json) does not match its JSON Schema (tools/tools.schema.json), or a tool in it could not run as written (a working directory or program outside the workspace, a placeholder as the program).",
	Kinds:    "tools",
	Severity: "Error, or Warning for what still works [I].",
}

// checkToolsConfig reports the validator's problems as tools/config, after
// Check's size and encoding guards; spans are clamped and overrides
// applied like any rule's, and a panic becomes internal/error.
func checkToolsConfig(f core.File, r *core.Reporter) {
	if r.Opts.ToolsConfig == nil {
		return
	}
	for _, p := range r.Opts.ToolsConfig(f.Text) {
		r.Add(model.Diagnostic{Rule: toolsConfig.ID, Severity: p.Severity, Message: p.Message, Span: p.Span})
	}
}
