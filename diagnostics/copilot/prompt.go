package copilot

// Prompt files: .github/prompts/**/*.prompt.md (customization-formats.md §5.4).

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/shared"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"path"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// PromptRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var PromptRules = []*core.Rule{promptAgent, promptToolsMode}

var promptAgent = &core.Rule{
	ID:       "prompt/agent",
	Summary:  "'agent' names neither a built-in nor a discovered agent.",
	Kinds:    "prompt",
	Severity: "V WARN.",
	Evidence: []core.Evidence{
		{Consumer: "VS", Reaction: "WARN", Source: "promptValidator.ts validateAgentValue: 'promptValidator.agentNotFound' \"Unknown agent '{0}'. Available agents: {1}.\" (Warning)"},
	},
}

var promptToolsMode = &core.Rule{
	ID:       "prompt/tools-mode",
	Summary:  "'tools' with 'agent: ask' or 'agent: edit', where VS Code ignores them.",
	Kinds:    "prompt",
	Severity: "V LOSE (ignored).",
	Evidence: []core.Evidence{
		{Consumer: "VS", Reaction: "LOSE", Source: "promptValidator.ts validateTools: 'promptValidator.toolsOnlyInAgent' \"… Attribute will be ignored.\" (Warning)"},
	},
}

// builtinAgents are VS Code's built-in agents a prompt may name.
var builtinAgents = []string{"agent", "ask", "edit", "plan"}

func CheckPrompt(f core.File, r *core.Reporter) {
	m := core.NewMD(f, r)
	if m.CheckHeader() && m.Mapping {
		promptRules(m)
		shared.CheckSharedFields(m, nil)
	}
	shared.CheckLinks(m)
	m.EmptyBody("prompt file", "running it sends no instructions")
}

func promptRules(m *core.MDFile) {
	af := m.Field("agent")
	if af == nil {
		return
	}
	agent, ok := core.Str(af.V)
	if !ok || agent == "" {
		return // field/type, field/empty
	}
	if (agent == "ask" || agent == "edit") && m.Field("tools") != nil {
		tf := m.Field("tools")
		if tf.V.Kind != yaml.ScalarNode || tf.V.Value != "" {
			m.Report(promptToolsMode, tf.KeySpan, model.V(model.Lose),
				"{T} ignore{s} 'tools' in a prompt run by the "+syntax.Quote(agent)+" agent.")
		}
	}
	if core.Contains(builtinAgents, agent) || m.F.FS == nil {
		return
	}
	// Every agent location VS Code searches, chat.agentFilesLocations
	// included, by file stem and by 'name' (vslocations.go).
	// A prompt outside .github/prompts loads only through
	// chat.promptFilesLocations, usually a catalog with its agents/ folder
	// beside prompts/ (#25 corpus P1): those agents count too.
	var extra []string
	if dir := path.Dir(m.F.Path); dir != ".github/prompts" && !strings.HasPrefix(dir, ".github/prompts/") {
		extra = append(extra, path.Join(path.Dir(dir), "agents"))
	}
	if AgentDefined(m.F.FS, agent, extra...) {
		return
	}
	m.Report(promptAgent, af.ValSpan, model.V(model.Warn),
		"{T} warn{s}: no agent named "+syntax.Quote(agent)+" exists; built-in agents are agent, ask, edit and plan.",
		core.EnumFix(af, agent, builtinAgents, 3)...)
}
