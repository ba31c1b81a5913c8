package shared

// `hooks:` in agent, subagent, skill and command frontmatter
// (customization-formats.md §5.7; §5.3: agent hooks use the VS Code
// events). The rules and event lists are those of hooks.go; this walk reads
// the YAML tree instead of JSON so ranges and fixes land in the Markdown
// file. VS Code reads hooks of its agents (and warns about keys it does not
// know); Claude Code reads them in project subagents, skills and commands,
// and requires matcher groups there.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"bytes"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// fmHookReaders is who runs the frontmatter hooks of a kind.
func fmHookReaders(kind model.Kind, plugin bool) []model.Target {
	switch kind {
	case model.KindAgent:
		return []model.Target{model.TargetVSCodeAgentHost, model.TargetVSCode}
	case model.KindClaudeAgent:
		if plugin {
			return nil // ccagent/plugin-ignored: Claude Code does not apply them
		}
		return []model.Target{model.TargetClaudeCode}
	case model.KindSkill, model.KindCommand:
		return []model.Target{model.TargetClaudeCode}
	}
	return nil
}

type fmHooks struct {
	m       *core.MDFile
	readers []model.Target
}

func checkFrontmatterHooks(m *core.MDFile) {
	f := m.Field("hooks")
	if f == nil || f.DupIndex > 0 || m.Doc == nil || syntax.IsNull(f.V) {
		return
	}
	w := &fmHooks{m: m, readers: fmHookReaders(m.Kind, m.Plugin)}
	if len(w.readers) == 0 {
		return
	}
	if f.V.Kind != yaml.MappingNode {
		w.report(HooksShape, f.ValSpan, w.all(model.Reject),
			"{T} cannot load these hooks: 'hooks' is "+core.NodeWhat(f.V)+", not a map of events.")
		return
	}
	for i := 0; i+1 < len(f.V.Content); i += 2 {
		k, v := f.V.Content[i], f.V.Content[i+1]
		w.event(k)
		if v.Kind != yaml.SequenceNode {
			if !syntax.IsNull(v) {
				w.report(HooksShape, m.Doc.Span(v), w.all(model.Reject),
					"{T} cannot load these hooks: "+syntax.Quote(k.Value)+" is "+core.NodeWhat(v)+", not a list of hooks.")
			}
			continue
		}
		for _, item := range v.Content {
			w.entry(k.Value, item)
		}
	}
}

func (w *fmHooks) reads(t model.Target) bool {
	return core.Contains(targetStrings(w.readers), string(t))
}

func targetStrings(ts []model.Target) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t)
	}
	return out
}

func (w *fmHooks) all(x model.Reaction) model.Verdicts {
	v := model.Verdicts{}
	for _, t := range w.readers {
		v[t] = x
	}
	return v
}

// report keeps only the verdicts of the hooks' readers.
func (w *fmHooks) report(rule *core.Rule, span model.Span, v model.Verdicts, msg string, fixes ...model.Fix) bool {
	kept := model.Verdicts{}
	for t, x := range v {
		if w.reads(t) {
			kept[t] = x
		}
	}
	return w.m.Report(rule, span, kept, msg, fixes...)
}

// knownEvents is the V events for agents (§5.3), Claude Code's otherwise.
func fmKnownEvents(t model.Target) []string {
	switch t {
	case model.TargetVSCode:
		return vsHookEvents
	case model.TargetVSCodeAgentHost:
		return vhHookEvents
	case model.TargetClaudeCode:
		return ccHookEvents
	}
	return nil
}

func (w *fmHooks) event(k *yaml.Node) {
	m := w.m
	name := k.Value
	all := func(model.Target) bool { return true }
	v, best, ok, report := unknownEvent(name, w.readers, all, m.R.Has, fmKnownEvents)
	if !report {
		return
	}
	span := m.Doc.KeySpan(k)
	msg := "{T} will never run hooks under " + syntax.Quote(name) + ", an unknown event there."
	var fixes []model.Fix
	if ok {
		msg = "{T} will never run hooks under " + syntax.Quote(name) + ", an unknown event there (did you mean '" + best + "'?)."
		fixes = append(fixes, model.Fix{Title: "Rename to '" + best + "'", Preferred: true, Edits: []model.Edit{{Span: span, NewText: best}}})
	}
	w.report(hooksEvent, span, v, msg, fixes...)
}

// mapGet returns the value node of key in a mapping, and its key node.
func mapGet(n *yaml.Node, key string) (k, v *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			k, v = n.Content[i], n.Content[i+1]
		}
	}
	return k, v
}

// openSpan stands for a handler or group with a key missing: its first line.
func (w *fmHooks) openSpan(n *yaml.Node) model.Span {
	s := w.m.Doc.Span(n)
	if i := bytes.IndexAny(w.m.Text[s.Start:s.End], "\r\n"); i >= 0 {
		s.End = s.Start + i
	}
	return s
}

func (w *fmHooks) entry(event string, item *yaml.Node) {
	m := w.m
	if item.Kind != yaml.MappingNode {
		w.report(HooksShape, m.Doc.Span(item), w.all(model.Reject),
			"{T} cannot load these hooks: an entry of "+syntax.Quote(event)+" is "+core.NodeWhat(item)+", not a map.")
		return
	}
	_, group := mapGet(item, "hooks")
	if group == nil {
		// A flat handler: VS Code runs it, Claude Code requires groups.
		if w.reads(model.TargetClaudeCode) {
			w.report(hooksFlatForClaude, w.openSpan(item), model.Verdicts{model.TargetClaudeCode: model.Reject},
				"{T} cannot load this hook: it expects matcher groups ('hooks:' with a list of handlers) under each event.")
		}
		saved := w.readers
		w.readers = without(w.readers, model.TargetClaudeCode)
		if len(w.readers) > 0 {
			w.handler(event, item)
		}
		w.readers = saved
		return
	}
	for i := 0; i+1 < len(item.Content); i += 2 {
		k, v := item.Content[i], item.Content[i+1]
		switch k.Value {
		case "hooks":
		case "matcher":
			if core.JHas(matcherNoEffect, event) && w.reads(model.TargetClaudeCode) {
				w.report(hooksMatcherNoEffect, m.Doc.KeySpan(k), model.Verdicts{model.TargetClaudeCode: model.Ignore},
					"{T} ignore{s} this matcher: "+syntax.Quote(event)+" hooks always run.",
					model.Fix{Title: "Delete the matcher", Edits: []model.Edit{{Span: w.deleteEntry(item, i)}}})
				continue
			}
			if s, ok := core.Str(v); ok && !matchesEverything(s) {
				w.report(hooksMatcherIgnored, m.Doc.Span(v), matcherIgnored(event, fmKnownEvents),
					"{T} run{s} this hook on every "+syntax.Quote(event)+" event: the matcher "+syntax.Quote(s)+" is ignored.")
			}
		default:
			// VS Code warns about it in agent hooks; Claude Code ignores it.
			verb := "{T} warn{s} about "
			if w.reads(model.TargetClaudeCode) {
				verb = "{T} ignore{s} "
			}
			w.report(hooksGroupKey, m.Doc.KeySpan(k), model.V(model.Warn).With(model.Verdicts{model.TargetClaudeCode: model.Ignore}),
				verb+syntax.Quote(k.Value)+" in a matcher group, which holds only 'matcher' and 'hooks'.")
		}
	}
	if group.Kind != yaml.SequenceNode {
		w.report(HooksShape, m.Doc.Span(group), w.all(model.Reject),
			"{T} cannot load these hooks: a group's 'hooks' is "+core.NodeWhat(group)+", not a list.")
		return
	}
	for _, h := range group.Content {
		w.handler(event, h)
	}
}

// deleteEntry is what to delete to drop entry i of a mapping: up to the
// next key, which keeps a leading "- " in place; the last entry's lines.
func (w *fmHooks) deleteEntry(n *yaml.Node, i int) model.Span {
	if i+2 < len(n.Content) {
		return model.Span{Start: w.m.Doc.KeySpan(n.Content[i]).Start, End: w.m.Doc.KeySpan(n.Content[i+2]).Start}
	}
	return w.m.EntryLines(n, i)
}

func without(ts []model.Target, drop model.Target) []model.Target {
	var out []model.Target
	for _, t := range ts {
		if t != drop {
			out = append(out, t)
		}
	}
	return out
}

// fmCommandKeys is which handler fields each target runs for type command.
func fmCommandKeys(t model.Target) []string {
	switch t {
	case model.TargetClaudeCode:
		return []string{"command", "args"}
	case model.TargetVSCode:
		return []string{"command", "windows", "linux", "osx"}
	case model.TargetVSCodeAgentHost:
		return []string{"command", "windows", "linux", "osx", "bash", "powershell"}
	}
	return nil
}

func (w *fmHooks) handler(event string, h *yaml.Node) {
	m := w.m
	if h.Kind != yaml.MappingNode {
		w.report(HooksShape, m.Doc.Span(h), w.all(model.Reject),
			"{T} cannot load these hooks: a hook of "+syntax.Quote(event)+" is "+core.NodeWhat(h)+", not a map.")
		return
	}
	open := w.openSpan(h)
	typ := "command"
	tk, tv := mapGet(h, "type")
	switch s, ok := core.Str(tv); {
	case tk == nil:
		w.report(hooksType, open, model.V(model.Reject).With(model.Verdicts{model.TargetVSCodeAgentHost: model.OK, model.TargetClaudeCode: model.Reject}),
			"{T} reject{s} this hook: it has no 'type' (use 'type: command').")
	case !ok:
		w.report(hooksType, m.Doc.Span(tv), w.all(model.Reject),
			"{T} reject{s} this hook: 'type' is "+core.NodeWhat(tv)+", not a string such as 'command'.")
		return
	default:
		typ = s
		v := model.Verdicts{}
		bad := false
		for _, t := range w.readers {
			good := typ == "command" || t == model.TargetClaudeCode && core.JHas(CCHookTypes, typ)
			if good {
				v[t] = model.OK
			} else {
				v[t], bad = model.Reject, true
			}
		}
		if bad {
			var fixes []model.Fix
			if !core.JHas(CCHookTypes, typ) {
				fixes = append(fixes, model.Fix{Title: "Use 'command'", Preferred: true, Edits: []model.Edit{{Span: m.Doc.Span(tv), NewText: "command"}}})
			}
			w.report(hooksType, m.Doc.Span(tv), v, "{T} cannot run this hook: type "+syntax.Quote(typ)+" is not supported there.", fixes...)
			if !core.JHas(CCHookTypes, typ) {
				return // unknown everywhere: one cause, one diagnostic
			}
		}
	}
	w.commandPresence(h, typ, open)
	if typ == "command" {
		for _, key := range commandFields {
			_, cv := mapGet(h, key)
			hookStringRisks(m, cv)
		}
		if _, args := mapGet(h, "args"); args != nil && args.Kind == yaml.SequenceNode {
			for _, a := range args.Content {
				hookStringRisks(m, a)
			}
		}
	}
	for i := 0; i+1 < len(h.Content); i += 2 {
		k, v := h.Content[i], h.Content[i+1]
		switch k.Value {
		case "timeout":
			if v.Kind != yaml.ScalarNode || (v.Tag != "!!int" && v.Tag != "!!float") || strings.HasPrefix(v.Value, "-") || strings.Trim(v.Value, "0._") == "" {
				w.report(hooksFieldType, m.Doc.Span(v), model.V(model.Lose).With(model.Verdicts{model.TargetClaudeCode: model.Drop}),
					"{T} drop{s} or ignore{s} this hook's 'timeout': it must be a positive number of seconds.")
			}
		case "async":
			if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
				w.report(hooksFieldType, m.Doc.Span(v), model.V(model.Lose).With(model.Verdicts{model.TargetClaudeCode: model.Drop}),
					"{T} drop{s} or ignore{s} this hook's 'async': it is "+core.NodeWhat(v)+", not true or false.")
			}
		}
		if !core.JHas(knownHandlerKeys, k.Value) {
			// VS Code warns about keys its agent hooks do not know; Claude Code
			// passes them over.
			w.report(hooksUnknownKey, m.Doc.KeySpan(k), model.V(model.Warn),
				"{T} warn{s} about the hook field "+syntax.Quote(k.Value)+", which no hooks format defines.")
		}
	}
}

func (w *fmHooks) commandPresence(h *yaml.Node, typ string, open model.Span) {
	switch typ {
	case "command":
		v := model.Verdicts{}
		missing := false
		for _, t := range w.readers {
			has := false
			for _, k := range fmCommandKeys(t) {
				if kk, _ := mapGet(h, k); kk != nil {
					has = true
				}
			}
			if has {
				v[t] = model.OK
			} else {
				v[t], missing = model.Reject, true
			}
		}
		if missing {
			w.report(HooksCommand, open, v, "{T} cannot run this hook: it has no 'command'.")
		}
	case "http":
		if k, _ := mapGet(h, "url"); k == nil {
			w.report(HooksCommand, open, model.Verdicts{model.TargetClaudeCode: model.Reject}, "{T} cannot run this hook: an 'http' hook needs a 'url'.")
		}
	case "prompt", "agent":
		if k, _ := mapGet(h, "prompt"); k == nil {
			w.report(HooksCommand, open, model.Verdicts{model.TargetClaudeCode: model.Reject}, "{T} cannot run this hook: a "+syntax.Quote(typ)+" hook needs a 'prompt'.")
		}
	case "mcp_tool":
		for _, k := range []string{"server", "tool"} {
			if _, v := mapGet(h, k); v == nil {
				w.report(HooksCommand, open, model.Verdicts{model.TargetClaudeCode: model.Reject}, "{T} cannot load this hook: an 'mcp_tool' hook needs "+syntax.Quote(k)+", a string.")
			} else if _, ok := core.Str(v); !ok {
				w.report(HooksCommand, w.m.Doc.Span(v), model.Verdicts{model.TargetClaudeCode: model.Reject}, "{T} cannot load this hook: an 'mcp_tool' hook needs "+syntax.Quote(k)+", a string.")
			}
		}
	}
}
