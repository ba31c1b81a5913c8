package copilot

// VS Code agents: *.agent.md, .github/agents/*.md, *.chatmode.md
// (customization-formats.md §5.3).

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/shared"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// AgentRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var AgentRules = []*core.Rule{
	agentInfer, agentTarget, agentGithubOnly, agentHandoff, agentHandoffKey, agentAgents,
	agentGithubPermissions, agentDescMissing, agentBodyLength,
}

var agentInfer = &core.Rule{
	ID:       "agent/infer",
	Fix:      core.FixUnsafe,
	FixWhy:   "replaces or deletes a key",
	Summary:  "'infer' is deprecated in VS Code agents.",
	Kinds:    "agent",
	Severity: "VS WARN (deprecation marker) · VH ? · CL IGN.",
	Evidence: []core.Evidence{
		{Consumer: "VS", Reaction: "WARN", Source: "promptValidator.ts validateInfer: 'promptValidator.inferDeprecated' \"The 'infer' attribute is deprecated in favour of 'user-invocable' and 'disable-model-invocation'.\" (Error marker)"},
	},
}

var agentTarget = &core.Rule{
	ID:       "agent/target",
	Fix:      core.FixUnsafe,
	FixWhy:   "adds a target",
	Summary:  "'target' is neither 'vscode' nor 'github-copilot'.",
	Kinds:    "agent",
	Severity: "VS WARN (validator Error marker; the file loads without the value) · VH LOSE? (value dropped).",
	Evidence: []core.Evidence{
		{Consumer: "VS", Reaction: "WARN", Source: "promptValidator.ts validateTarget: 'promptValidator.targetInvalidValue' \"The 'target' attribute must be one of: {0}.\" (Error marker)"},
	},
}

var agentGithubOnly = &core.Rule{
	ID:       "agent/github-only",
	Summary:  "'mcp-servers' without 'target: github-copilot'.",
	Kinds:    "agent",
	Severity: "V IGN.",
}

var agentHandoff = &core.Rule{
	ID:       "agent/handoff",
	Summary:  "A malformed 'handoffs' list or item.",
	Kinds:    "agent",
	Severity: "VS WARN (validator Error marker; the file loads without the value) · VH LOSE? (value dropped) (the handoff is not offered).",
	Evidence: []core.Evidence{
		{Consumer: "VS", Reaction: "WARN", Source: "promptValidator.ts validateHandoffs: 'handoffsMustBeArray', 'missingHandoffProperties', 'duplicateHandoffLabel' (Error markers)"},
	},
}

var agentHandoffKey = &core.Rule{
	ID:       "agent/handoff-key",
	Summary:  "An unknown key in a handoff, or an 'agent' no agent file defines.",
	Kinds:    "agent",
	Severity: "V WARN.",
}

var agentAgents = &core.Rule{
	ID:       "agent/agents",
	Fix:      core.FixUnsafe,
	FixWhy:   "adds a tool",
	Summary:  "'agents' is not a list of names, or 'tools' lacks 'agent'.",
	Kinds:    "agent",
	Severity: "not a string list: VS WARN (validator Error marker; the file loads without the value) · VH LOSE? (value dropped); `tools` without `agent`: V WARN.",
	Evidence: []core.Evidence{
		{Consumer: "VS", Reaction: "WARN", Source: "promptValidator.ts validateAgentsAttribute: 'agentsMustBeArray' (Error marker); 'agentsRequiresAgentTool' (Warning)"},
	},
}

var agentGithubPermissions = &core.Rule{
	ID:       "agent/github-permissions",
	Summary:  "An unknown scope or bad value under 'github.permissions'.",
	Kinds:    "agent",
	Severity: "unknown scope: V WARN; bad value: VS WARN (validator Error marker; the file loads without the value) · VH LOSE? (value dropped).",
	Evidence: []core.Evidence{
		{Consumer: "VS", Reaction: "WARN", Source: "promptValidator.ts validateGithubPermissions: 'unknownPermissionScope' (Warning), 'invalidPermissionValue' (Error marker)"},
	},
}

var agentDescMissing = &core.Rule{
	ID:       "agent/desc-missing",
	Fix:      core.FixUnsafe,
	FixWhy:   "writes a guessed description",
	Summary:  "The agent has no 'description' (GitHub.com requires one).",
	Kinds:    "agent",
	Severity: "CL REJ? (GitHub.com requires a description).",
}

var agentBodyLength = &core.Rule{
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

func CheckAgent(f core.File, r *core.Reporter) {
	m := core.NewMD(f, r)
	if strings.HasSuffix(f.Path, ".chatmode.md") {
		m.Report(core.FieldRenamed, core.Line1(m.Text), model.V(model.Warn),
			"{T} warn{s}: chat modes were renamed to custom agents; move this file to '.github/agents/"+strings.TrimSuffix(pathBase(f.Path), ".chatmode.md")+".agent.md'.")
	}
	if m.CheckHeader() && m.Mapping {
		handled := map[string]bool{"infer": true, "mcp-servers": true}
		agentRules(m)
		shared.CheckSharedFields(m, handled)
	} else if !m.Fm.Present {
		m.Report(agentDescMissing, core.Line1(m.Text), model.Verdicts{model.TargetCopilotCLI: model.Reject.Unverified()},
			"{T} may reject this agent: it has no 'description'.",
			model.Fix{Title: "Add a description", Preferred: true, Edits: []model.Edit{m.InsertKeys("description: " + core.YamlScalar(m.FirstSentence()))}})
	}
	agentBody(m)
	shared.CheckLinks(m)
}

func pathBase(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

func agentRules(m *core.MDFile) {
	if df := m.Field("description"); df == nil {
		m.Report(agentDescMissing, m.Header(), model.Verdicts{model.TargetCopilotCLI: model.Reject.Unverified()},
			"{T} may reject this agent: it has no 'description'.",
			model.Fix{Title: "Add a description", Preferred: true, Edits: []model.Edit{m.InsertKeys("description: " + core.YamlScalar(m.FirstSentence()))}})
	}
	if inf := m.Field("infer"); inf != nil {
		var fixes []model.Fix
		del := m.EntryLines(m.Doc.Root, m.IndexOf(inf))
		switch inf.V.Value {
		case "false":
			fixes = append(fixes, model.Fix{Title: "Replace with 'disable-model-invocation: true'", Preferred: true,
				Edits: []model.Edit{{Span: model.Span{Start: inf.KeySpan.Start, End: inf.ValSpan.End}, NewText: "disable-model-invocation: true"}}})
		case "true":
			fixes = append(fixes, model.Fix{Title: "Delete 'infer' (true is the default)", Preferred: true, Edits: []model.Edit{{Span: del}}})
		}
		m.Report(agentInfer, inf.KeySpan, model.Verdicts{model.TargetVSCode: model.Warn, model.TargetVSCodeAgentHost: model.Unknown, model.TargetCopilotCLI: model.Ignore},
			"{T} mark{s} 'infer' as deprecated: use 'user-invocable' and 'disable-model-invocation'.||{T} may not read the deprecated 'infer'.", fixes...)
	}
	target := ""
	if tf := m.Field("target"); tf != nil {
		s, ok := core.Str(tf.V)
		target = s
		if !ok || !core.Contains(agentTargets, s) {
			m.Report(agentTarget, tf.ValSpan, core.VsMarked(),
				"{T} ignore{s} 'target: "+m.ValueText(tf)+"': use 'vscode' or 'github-copilot'.", core.EnumFix(tf, s, agentTargets, 6)...)
		}
	}
	if mf := m.Field("mcp-servers"); mf != nil && target != "github-copilot" {
		var fixes []model.Fix
		if m.Field("target") == nil {
			fixes = append(fixes, model.Fix{Title: "Add 'target: github-copilot'", Edits: []model.Edit{m.InsertKeys("target: github-copilot")}})
		}
		m.Report(agentGithubOnly, mf.KeySpan, model.V(model.Ignore),
			"{T} ignore{s} 'mcp-servers': it applies only with 'target: github-copilot'.", fixes...)
	}
	if hf := m.Field("handoffs"); hf != nil {
		handoffs(m, hf)
	}
	if af := m.Field("agents"); af != nil {
		if af.V.Kind != yaml.SequenceNode || !core.AllStrings(af.V) {
			m.Report(agentAgents, af.ValSpan, core.VsMarked(),
				"{T} ignore{s} 'agents': it must be a list of agent names, not "+core.NodeWhat(af.V)+".")
		} else if tf := m.Field("tools"); tf != nil && tf.V.Kind == yaml.SequenceNode && !hasItem(tf.V, "agent") && len(af.V.Content) > 0 {
			// VS Code warns only when the list names an agent: 'agents: []'
			// says "no subagents" and needs no tool (#25).
			var fixes []model.Fix
			if tf.V.Style&yaml.FlowStyle != 0 && len(tf.V.Content) > 0 {
				last := m.Doc.Span(tf.V.Content[len(tf.V.Content)-1])
				fixes = append(fixes, model.Fix{Title: "Add 'agent' to tools", Preferred: true, Edits: []model.Edit{{Span: model.Span{Start: last.End, End: last.End}, NewText: ", agent"}}})
			} else if tf.V.Style&yaml.FlowStyle == 0 && len(tf.V.Content) > 0 {
				last := m.Doc.Span(tf.V.Content[len(tf.V.Content)-1])
				_, next := syntax.LineAt(m.Text, last.End)
				ls := m.Doc.SrcOff(tf.V.Content[0].Line, 1)
				ind := m.Doc.IndentOf(ls)
				fixes = append(fixes, model.Fix{Title: "Add 'agent' to tools", Preferred: true, Edits: []model.Edit{{Span: model.Span{Start: next, End: next}, NewText: strings.Repeat(" ", ind) + "- agent" + m.Nl}}})
			}
			m.Report(agentAgents, tf.ValSpan, model.V(model.Warn),
				"{T} warn{s}: 'agents' has no effect unless 'tools' includes 'agent'.", fixes...)
		}
	}
	if gf := m.Field("github"); gf != nil && gf.V.Kind == yaml.MappingNode {
		if p := core.MapValue(gf.V, "permissions"); p != nil && p.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(p.Content); i += 2 {
				k, v := p.Content[i], p.Content[i+1]
				if !core.Contains(githubScopes, k.Value) {
					m.Report(agentGithubPermissions, m.Doc.KeySpan(k), model.V(model.Warn),
						"{T} warn{s}: "+syntax.Quote(k.Value)+" is no GitHub permission scope.", keyFix(m.Doc.KeySpan(k), k.Value, githubScopes)...)
					continue
				}
				allowed := permissionsValues
				switch k.Value {
				case "metadata":
					allowed = []string{"read"}
				case "workflows":
					allowed = []string{"write", "none"}
				}
				if v.Kind != yaml.ScalarNode || !core.Contains(allowed, v.Value) {
					m.Report(agentGithubPermissions, m.Doc.Span(v), core.VsMarked(),
						"{T} ignore{s} "+syntax.Quote(k.Value+": "+v.Value)+": allowed values are "+strings.Join(allowed, ", ")+".")
				}
			}
		}
	}
}

func keyFix(span model.Span, key string, allowed []string) []model.Fix {
	if c := core.Closest(key, allowed, 3); c != "" {
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

func handoffs(m *core.MDFile, hf *core.MDField) {
	rej := core.VsMarked()
	if hf.V.Kind != yaml.SequenceNode {
		m.Report(agentHandoff, hf.ValSpan, rej, "{T} ignore{s} 'handoffs': it must be a list, not "+core.NodeWhat(hf.V)+".")
		return
	}
	labels := map[string]*yaml.Node{}
	for _, item := range hf.V.Content {
		span := m.Doc.Span(item)
		if item.Kind != yaml.MappingNode {
			m.Report(agentHandoff, span, rej, "{T} ignore{s} a broken handoff: each handoff must have 'label', 'agent' and 'prompt', not be "+core.NodeWhat(item)+".")
			continue
		}
		var missing []string
		for _, k := range []string{"label", "agent", "prompt"} {
			if core.MapValue(item, k) == nil {
				missing = append(missing, "'"+k+"'")
			}
		}
		if len(missing) > 0 {
			m.Report(agentHandoff, span, rej, "{T} ignore{s} a broken handoff: a handoff lacks "+strings.Join(missing, " and ")+".")
		}
		for i := 0; i+1 < len(item.Content); i += 2 {
			k, v := item.Content[i], item.Content[i+1]
			ks, vs := m.Doc.KeySpan(k), m.Doc.Span(v)
			switch k.Value {
			case "label", "agent", "prompt", "model":
				s, ok := core.Str(v)
				if !ok {
					m.Report(agentHandoff, vs, rej, "{T} ignore{s} a broken handoff: handoff "+syntax.Quote(k.Value)+" must be a string, not "+core.NodeWhat(v)+".")
					continue
				}
				if k.Value == "label" {
					if !hasAlnum(s) {
						m.Report(agentHandoff, vs, rej, "{T} ignore{s} a broken handoff: handoff label "+syntax.Quote(s)+" has no letter or digit.")
					} else if first, dup := labels[s]; dup {
						if m.Report(agentHandoff, vs, rej, "{T} ignore{s} a broken handoff: handoff label "+syntax.Quote(s)+" is used twice.") {
							last := &m.R.Diags[len(m.R.Diags)-1]
							last.Related = append(last.Related, model.Related{Span: m.Doc.Span(first), Message: "first use of " + syntax.Quote(s)})
						}
					} else {
						labels[s] = v
					}
				}
			case "send", "showContinueOn":
				m.CheckBool(v, vs, k.Value)
			default:
				m.Report(agentHandoffKey, ks, model.V(model.Warn),
					"{T} warn{s}: "+syntax.Quote(k.Value)+" is no handoff key.", keyFix(ks, k.Value, handoffKeys)...)
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
func agentBody(m *core.MDFile) {
	md := m.Fm.Markdown
	body := m.Text[md.Start:md.End]
	n := utf8.RuneCount(body)
	if n <= maxAgentBodyLen {
		return
	}
	i := 0
	for k := 0; k < maxAgentBodyLen; k++ {
		_, size := utf8.DecodeRune(body[i:])
		i += size
	}
	m.Report(agentBodyLength, model.Span{Start: md.Start + i, End: md.End}, model.Verdicts{model.TargetCopilotCLI: model.Lose.Unverified()},
		"{T} may cut this agent's "+strconv.Itoa(n)+"-character body at 30,000 characters.")
}

// maxAgentBodyLen is where Copilot CLI may cut an agent's body (characters).
const maxAgentBodyLen = 30000
