package diagnostics

// VS Code agents: *.agent.md, .github/agents/*.md, *.chatmode.md
// (customization-formats.md §5.3).

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// agentRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var agentRules = []*Rule{
	agentInfer, agentTarget, agentGithubOnly, agentHandoff, agentHandoffKey, agentAgents,
	agentGithubPermissions, agentDescMissing, agentBodyLength,
}

var agentInfer = &Rule{
	ID:       "agent/infer",
	Fix:      FixUnsafe,
	FixWhy:   "replaces or deletes a key",
	Summary:  "'infer' is deprecated in VS Code agents.",
	Kinds:    "agent",
	Severity: "VS WARN (deprecation marker) · VH ? · CL IGN.",
	Evidence: []Evidence{
		{"VS", "WARN", "promptValidator.ts validateInfer: 'promptValidator.inferDeprecated' \"The 'infer' attribute is deprecated in favour of 'user-invocable' and 'disable-model-invocation'.\" (Error marker)"},
	},
}

var agentTarget = &Rule{
	ID:       "agent/target",
	Fix:      FixUnsafe,
	FixWhy:   "adds a target",
	Summary:  "'target' is neither 'vscode' nor 'github-copilot'.",
	Kinds:    "agent",
	Severity: "VS WARN (validator Error marker; the file loads without the value) · VH LOSE? (value dropped).",
	Evidence: []Evidence{
		{"VS", "WARN", "promptValidator.ts validateTarget: 'promptValidator.targetInvalidValue' \"The 'target' attribute must be one of: {0}.\" (Error marker)"},
	},
}

var agentGithubOnly = &Rule{
	ID:       "agent/github-only",
	Summary:  "'mcp-servers' without 'target: github-copilot'.",
	Kinds:    "agent",
	Severity: "V IGN.",
}

var agentHandoff = &Rule{
	ID:       "agent/handoff",
	Summary:  "A malformed 'handoffs' list or item.",
	Kinds:    "agent",
	Severity: "VS WARN (validator Error marker; the file loads without the value) · VH LOSE? (value dropped) (the handoff is not offered).",
	Evidence: []Evidence{
		{"VS", "WARN", "promptValidator.ts validateHandoffs: 'handoffsMustBeArray', 'missingHandoffProperties', 'duplicateHandoffLabel' (Error markers)"},
	},
}

var agentHandoffKey = &Rule{
	ID:       "agent/handoff-key",
	Summary:  "An unknown key in a handoff, or an 'agent' no agent file defines.",
	Kinds:    "agent",
	Severity: "V WARN.",
}

var agentAgents = &Rule{
	ID:       "agent/agents",
	Fix:      FixUnsafe,
	FixWhy:   "adds a tool",
	Summary:  "'agents' is not a list of names, or 'tools' lacks 'agent'.",
	Kinds:    "agent",
	Severity: "not a string list: VS WARN (validator Error marker; the file loads without the value) · VH LOSE? (value dropped); `tools` without `agent`: V WARN.",
	Evidence: []Evidence{
		{"VS", "WARN", "promptValidator.ts validateAgentsAttribute: 'agentsMustBeArray' (Error marker); 'agentsRequiresAgentTool' (Warning)"},
	},
}

var agentGithubPermissions = &Rule{
	ID:       "agent/github-permissions",
	Summary:  "An unknown scope or bad value under 'github.permissions'.",
	Kinds:    "agent",
	Severity: "unknown scope: V WARN; bad value: VS WARN (validator Error marker; the file loads without the value) · VH LOSE? (value dropped).",
	Evidence: []Evidence{
		{"VS", "WARN", "promptValidator.ts validateGithubPermissions: 'unknownPermissionScope' (Warning), 'invalidPermissionValue' (Error marker)"},
	},
}

var agentDescMissing = &Rule{
	ID:       "agent/desc-missing",
	Fix:      FixUnsafe,
	FixWhy:   "writes a guessed description",
	Summary:  "The agent has no 'description' (GitHub.com requires one).",
	Kinds:    "agent",
	Severity: "CL REJ? (GitHub.com requires a description).",
}

var agentBodyLength = &Rule{
	ID:       "agent/body-length",
	Summary:  "The agent body exceeds GitHub.com's 30,000 characters.",
	Kinds:    "agent",
	Severity: "CL LOSE? (GitHub.com cap).",
}

var (
	agentTargets      = []string{"vscode", "github-copilot"}
	handoffKeys       = []string{"label", "agent", "prompt", "send", "showContinueOn", "model"}
	githubScopes      = []string{"actions", "checks", "contents", "discussions", "issues", "metadata", "pull-requests", "security-events", "workflows"}
	permissionsValues = []string{"read", "write", "none"}
)

func checkAgent(f File, r *reporter) {
	m := newMD(f, r)
	if strings.HasSuffix(f.Path, ".chatmode.md") {
		m.report(fieldRenamed, line1(m.text), model.V(model.Warn),
			"{T} warn{s}: chat modes were renamed to custom agents; move this file to '.github/agents/"+strings.TrimSuffix(pathBase(f.Path), ".chatmode.md")+".agent.md'.")
	}
	if m.checkHeader() && m.mapping {
		handled := map[string]bool{"infer": true, "mcp-servers": true}
		m.agentRules()
		m.checkSharedFields(handled)
	} else if !m.fm.Present {
		m.report(agentDescMissing, line1(m.text), model.Verdicts{model.TargetCopilotCLI: model.Reject.Unverified()},
			"{T} may reject this agent: it has no 'description'.",
			model.Fix{Title: "Add a description", Preferred: true, Edits: []model.Edit{m.insertKeys("description: " + yamlScalar(m.firstSentence()))}})
	}
	m.agentBody()
	m.checkLinks()
}

func pathBase(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

func (m *mdFile) agentRules() {
	if df := m.field("description"); df == nil {
		m.report(agentDescMissing, m.header(), model.Verdicts{model.TargetCopilotCLI: model.Reject.Unverified()},
			"{T} may reject this agent: it has no 'description'.",
			model.Fix{Title: "Add a description", Preferred: true, Edits: []model.Edit{m.insertKeys("description: " + yamlScalar(m.firstSentence()))}})
	}
	if inf := m.field("infer"); inf != nil {
		var fixes []model.Fix
		del := m.entryLines(m.doc.root, m.indexOf(inf))
		switch inf.v.Value {
		case "false":
			fixes = append(fixes, model.Fix{Title: "Replace with 'disable-model-invocation: true'", Preferred: true,
				Edits: []model.Edit{{Span: model.Span{Start: inf.keySpan.Start, End: inf.valSpan.End}, NewText: "disable-model-invocation: true"}}})
		case "true":
			fixes = append(fixes, model.Fix{Title: "Delete 'infer' (true is the default)", Preferred: true, Edits: []model.Edit{{Span: del}}})
		}
		m.report(agentInfer, inf.keySpan, model.Verdicts{model.TargetVSCode: model.Warn, model.TargetVSCodeAgentHost: model.Unknown, model.TargetCopilotCLI: model.Ignore},
			"{T} mark{s} 'infer' as deprecated: use 'user-invocable' and 'disable-model-invocation'.||{T} may not read the deprecated 'infer'.", fixes...)
	}
	target := ""
	if tf := m.field("target"); tf != nil {
		s, ok := str(tf.v)
		target = s
		if !ok || !contains(agentTargets, s) {
			m.report(agentTarget, tf.valSpan, vsMarked(),
				"{T} ignore{s} 'target: "+m.valueText(tf)+"': use 'vscode' or 'github-copilot'.", enumFix(tf, s, agentTargets, 6)...)
		}
	}
	if mf := m.field("mcp-servers"); mf != nil && target != "github-copilot" {
		var fixes []model.Fix
		if m.field("target") == nil {
			fixes = append(fixes, model.Fix{Title: "Add 'target: github-copilot'", Edits: []model.Edit{m.insertKeys("target: github-copilot")}})
		}
		m.report(agentGithubOnly, mf.keySpan, model.V(model.Ignore),
			"{T} ignore{s} 'mcp-servers': it applies only with 'target: github-copilot'.", fixes...)
	}
	if hf := m.field("handoffs"); hf != nil {
		m.handoffs(hf)
	}
	if af := m.field("agents"); af != nil {
		if af.v.Kind != yaml.SequenceNode || !allStrings(af.v) {
			m.report(agentAgents, af.valSpan, vsMarked(),
				"{T} ignore{s} 'agents': it must be a list of agent names, not "+nodeWhat(af.v)+".")
		} else if tf := m.field("tools"); tf != nil && tf.v.Kind == yaml.SequenceNode && !hasItem(tf.v, "agent") && len(af.v.Content) > 0 {
			// VS Code warns only when the list names an agent: 'agents: []'
			// says "no subagents" and needs no tool (#25).
			var fixes []model.Fix
			if tf.v.Style&yaml.FlowStyle != 0 && len(tf.v.Content) > 0 {
				last := m.doc.span(tf.v.Content[len(tf.v.Content)-1])
				fixes = append(fixes, model.Fix{Title: "Add 'agent' to tools", Preferred: true, Edits: []model.Edit{{Span: model.Span{Start: last.End, End: last.End}, NewText: ", agent"}}})
			} else if tf.v.Style&yaml.FlowStyle == 0 && len(tf.v.Content) > 0 {
				last := m.doc.span(tf.v.Content[len(tf.v.Content)-1])
				_, next := lineAt(m.text, last.End)
				ls := m.doc.srcOff(tf.v.Content[0].Line, 1)
				ind := m.doc.indentOf(ls)
				fixes = append(fixes, model.Fix{Title: "Add 'agent' to tools", Preferred: true, Edits: []model.Edit{{Span: model.Span{Start: next, End: next}, NewText: strings.Repeat(" ", ind) + "- agent" + m.nl}}})
			}
			m.report(agentAgents, tf.valSpan, model.V(model.Warn),
				"{T} warn{s}: 'agents' has no effect unless 'tools' includes 'agent'.", fixes...)
		}
	}
	if gf := m.field("github"); gf != nil && gf.v.Kind == yaml.MappingNode {
		if p := mapValue(gf.v, "permissions"); p != nil && p.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(p.Content); i += 2 {
				k, v := p.Content[i], p.Content[i+1]
				if !contains(githubScopes, k.Value) {
					m.report(agentGithubPermissions, m.doc.keySpan(k), model.V(model.Warn),
						"{T} warn{s}: "+q(k.Value)+" is no GitHub permission scope.", keyFix(m.doc.keySpan(k), k.Value, githubScopes)...)
					continue
				}
				allowed := permissionsValues
				switch k.Value {
				case "metadata":
					allowed = []string{"read"}
				case "workflows":
					allowed = []string{"write", "none"}
				}
				if v.Kind != yaml.ScalarNode || !contains(allowed, v.Value) {
					m.report(agentGithubPermissions, m.doc.span(v), vsMarked(),
						"{T} ignore{s} "+q(k.Value+": "+v.Value)+": allowed values are "+strings.Join(allowed, ", ")+".")
				}
			}
		}
	}
}

func keyFix(span model.Span, key string, allowed []string) []model.Fix {
	if c := closest(key, allowed, 3); c != "" {
		return []model.Fix{{Title: "Rename to '" + c + "'", Preferred: true, Edits: []model.Edit{{Span: span, NewText: c}}}}
	}
	return nil
}

func hasItem(seq *yaml.Node, s string) bool {
	for _, c := range seq.Content {
		if c.Value == s {
			return true
		}
	}
	return false
}

func (m *mdFile) indexOf(f *mdField) int {
	c := m.doc.root.Content
	for i := 0; i+1 < len(c); i += 2 {
		if c[i] == f.k {
			return i
		}
	}
	return 0
}

func (m *mdFile) handoffs(hf *mdField) {
	rej := vsMarked()
	if hf.v.Kind != yaml.SequenceNode {
		m.report(agentHandoff, hf.valSpan, rej, "{T} ignore{s} 'handoffs': it must be a list, not "+nodeWhat(hf.v)+".")
		return
	}
	labels := map[string]*yaml.Node{}
	for _, item := range hf.v.Content {
		span := m.doc.span(item)
		if item.Kind != yaml.MappingNode {
			m.report(agentHandoff, span, rej, "{T} ignore{s} a broken handoff: each handoff must have 'label', 'agent' and 'prompt', not be "+nodeWhat(item)+".")
			continue
		}
		var missing []string
		for _, k := range []string{"label", "agent", "prompt"} {
			if mapValue(item, k) == nil {
				missing = append(missing, "'"+k+"'")
			}
		}
		if len(missing) > 0 {
			m.report(agentHandoff, span, rej, "{T} ignore{s} a broken handoff: a handoff lacks "+strings.Join(missing, " and ")+".")
		}
		for i := 0; i+1 < len(item.Content); i += 2 {
			k, v := item.Content[i], item.Content[i+1]
			ks, vs := m.doc.keySpan(k), m.doc.span(v)
			switch k.Value {
			case "label", "agent", "prompt", "model":
				s, ok := str(v)
				if !ok {
					m.report(agentHandoff, vs, rej, "{T} ignore{s} a broken handoff: handoff "+q(k.Value)+" must be a string, not "+nodeWhat(v)+".")
					continue
				}
				if k.Value == "label" {
					if !hasAlnum(s) {
						m.report(agentHandoff, vs, rej, "{T} ignore{s} a broken handoff: handoff label "+q(s)+" has no letter or digit.")
					} else if first, dup := labels[s]; dup {
						if m.report(agentHandoff, vs, rej, "{T} ignore{s} a broken handoff: handoff label "+q(s)+" is used twice.") {
							last := &m.r.diags[len(m.r.diags)-1]
							last.Related = append(last.Related, model.Related{Span: m.doc.span(first), Message: "first use of " + q(s)})
						}
					} else {
						labels[s] = v
					}
				}
			case "send", "showContinueOn":
				m.checkBool(v, vs, k.Value)
			default:
				m.report(agentHandoffKey, ks, model.V(model.Warn),
					"{T} warn{s}: "+q(k.Value)+" is no handoff key.", keyFix(ks, k.Value, handoffKeys)...)
			}
		}
	}
}

func hasAlnum(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// agentBody reports a body beyond GitHub.com's cap.
func (m *mdFile) agentBody() {
	md := m.fm.Markdown
	body := m.text[md.Start:md.End]
	n := utf8.RuneCount(body)
	if n <= maxAgentBodyLen {
		return
	}
	i := 0
	for k := 0; k < maxAgentBodyLen; k++ {
		_, size := utf8.DecodeRune(body[i:])
		i += size
	}
	m.report(agentBodyLength, model.Span{Start: md.Start + i, End: md.End}, model.Verdicts{model.TargetCopilotCLI: model.Lose.Unverified()},
		"{T} may cut this agent's "+strconv.Itoa(n)+"-character body at 30,000 characters.")
}
