package diagnostics

// Prompt files: .github/prompts/**/*.prompt.md (customization-formats.md §5.4).

import (
	"path"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// promptRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var promptRules = []*Rule{promptAgent, promptToolsMode}

var promptAgent = &Rule{
	ID:       "prompt/agent",
	Summary:  "'agent' names neither a built-in nor a discovered agent.",
	Kinds:    "prompt",
	Severity: "V WARN.",
	Evidence: []Evidence{
		{"VS", "WARN", "promptValidator.ts validateAgentValue: 'promptValidator.agentNotFound' \"Unknown agent '{0}'. Available agents: {1}.\" (Warning)"},
	},
}

var promptToolsMode = &Rule{
	ID:       "prompt/tools-mode",
	Summary:  "'tools' with 'agent: ask' or 'agent: edit', where VS Code ignores them.",
	Kinds:    "prompt",
	Severity: "V LOSE (ignored).",
	Evidence: []Evidence{
		{"VS", "LOSE", "promptValidator.ts validateTools: 'promptValidator.toolsOnlyInAgent' \"… Attribute will be ignored.\" (Warning)"},
	},
}

// builtinAgents are VS Code's built-in agents a prompt may name.
var builtinAgents = []string{"agent", "ask", "edit", "plan"}

func checkPrompt(f File, r *reporter) {
	m := newMD(f, r)
	if m.checkHeader() && m.mapping {
		m.promptRules()
		m.checkSharedFields(nil)
	}
	m.checkLinks()
	m.emptyBody("prompt file", "running it sends no instructions")
}

func (m *mdFile) promptRules() {
	af := m.field("agent")
	if af == nil {
		return
	}
	agent, ok := str(af.v)
	if !ok || agent == "" {
		return // field/type, field/empty
	}
	if (agent == "ask" || agent == "edit") && m.field("tools") != nil {
		tf := m.field("tools")
		if tf.v.Kind != yaml.ScalarNode || tf.v.Value != "" {
			m.report(promptToolsMode, tf.keySpan, model.V(model.Lose),
				"{T} ignore{s} 'tools' in a prompt run by the "+q(agent)+" agent.")
		}
	}
	if contains(builtinAgents, agent) || m.f.FS == nil {
		return
	}
	// Every agent location VS Code searches, chat.agentFilesLocations
	// included, by file stem and by 'name' (vslocations.go).
	// A prompt outside .github/prompts loads only through
	// chat.promptFilesLocations, usually a catalog with its agents/ folder
	// beside prompts/ (#25 corpus P1): those agents count too.
	var extra []string
	if dir := path.Dir(m.f.Path); dir != ".github/prompts" && !strings.HasPrefix(dir, ".github/prompts/") {
		extra = append(extra, path.Join(path.Dir(dir), "agents"))
	}
	if agentDefined(m.f.FS, agent, extra...) {
		return
	}
	m.report(promptAgent, af.valSpan, model.V(model.Warn),
		"{T} warn{s}: no agent named "+q(agent)+" exists; built-in agents are agent, ask, edit and plan.",
		enumFix(af, agent, builtinAgents, 3)...)
}
