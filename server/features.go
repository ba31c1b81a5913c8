package server

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

func sortStrings(ss []string) { sort.Strings(ss) }

// currentCheck returns the last check of u if it saw exactly the text the
// editor has now; spans of an older check would point at the wrong bytes.
func (part funnel) currentCheck(u uri.URI) (*fileState, bool) {
	s := part.s
	fs, ok := s.lastCheck(u)
	if !ok || fs.snap.Text == nil && fs.kind == model.KindNone {
		return nil, false
	}
	if snap, open := s.DocumentSnapshot(u); open {
		if !fs.snap.Open || fs.snap.Version != snap.Version || !bytes.Equal(fs.snap.Text, snap.Text) {
			return nil, false
		}
	}
	return fs, true
}

func rangesOverlap(a, b protocol.Range) bool {
	before := func(p, q protocol.Position) bool {
		return p.Line < q.Line || p.Line == q.Line && p.Character < q.Character
	}
	// Touching ranges count: a cursor at a diagnostic's edge still gets its fixes.
	return !before(a.End, b.Start) && !before(b.End, a.Start)
}

func (l *lspServer) CodeAction(ctx context.Context, p *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	s := l.s
	u := p.TextDocument.URI
	out := []protocol.CommandOrCodeAction{}
	wantQuick, wantFixAll := wantKinds(p.Context.Only)
	if !wantQuick && !wantFixAll {
		return out, nil
	}
	fs, ok := s.currentCheck(u)
	if !ok {
		s.flush(u)
		if fs, ok = s.currentCheck(u); !ok {
			return out, nil
		}
	}
	enc := s.Encoding()
	loc, _ := s.locate(u)
	if wantFixAll {
		if a := fixAllAction(u, loc, fs, enc, s.textOf); a != nil {
			out = append(out, a)
		}
	}
	if !wantQuick {
		return out, nil
	}
	idx := model.NewLineIndex(fs.snap.Text)
	can := editCache{}
	for i, d := range fs.diags {
		if i >= len(fs.lsp) {
			continue
		}
		pd := fs.lsp[i]
		if !rangesOverlap(pd.Range, p.Range) {
			continue
		}
		// The rule's own fixes, then the comments that quiet it
		// (diagnostics.SuppressFixes: Markdown only).
		fixes := append(slices.Clip(d.Fixes), diagnostics.SuppressFixes(fs.snap.Text, fs.kind, d.Span, d.Rule)...)
		for _, fix := range fixes {
			if !can.fixEditable(u, loc, fix) {
				continue // it would write through a symlink out of the workspace
			}
			edit := &protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{}}
			for _, e := range fix.Edits {
				target := relatedURI(u, loc, e.Path)
				eidx := idx
				if target != u {
					eidx = model.NewLineIndex(s.textOf(target))
				}
				edit.Changes[target] = append(edit.Changes[target], protocol.TextEdit{
					Range:   lspRange(eidx.Range(e.Span, enc)),
					NewText: e.NewText,
				})
			}
			kind := protocol.CodeActionKindQuickFix
			ca := &protocol.CodeAction{
				Title:       fix.Title,
				Kind:        &kind,
				Diagnostics: []protocol.Diagnostic{pd},
				Edit:        edit,
			}
			if fix.Preferred {
				yes := true
				ca.IsPreferred = &yes
			}
			out = append(out, ca)
		}
	}
	return out, nil
}

// offsetAt converts an LSP position to a byte offset of text.
func offsetAt(text []byte, pos protocol.Position, enc model.Encoding) int {
	off, _ := model.NewLineIndex(text).Offset(model.Position{Line: int(pos.Line), Character: int(pos.Character)}, enc)
	return off
}

func (l *lspServer) Hover(ctx context.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	s := l.s
	u := p.TextDocument.URI
	var vh string
	if p.Position.Line == 0 {
		// The first line says first what each consumer makes of the file
		// (#32), from the folder's files, whatever the buffer's state.
		vh = s.viewHover(ctx, u)
	}
	fs, ok := s.currentCheck(u)
	if !ok {
		if vh == "" {
			return nil, nil
		}
		return &protocol.Hover{Contents: &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: vh}}, nil
	}
	enc := s.Encoding()
	off := offsetAt(fs.snap.Text, p.Position, enc)
	var parts []string
	var hit *protocol.Range
	for i, d := range fs.diags {
		if off < d.Span.Start || off > d.Span.End || i >= len(fs.lsp) {
			continue
		}
		r := fs.lsp[i].Range
		if hit == nil {
			hit = &r
		}
		parts = append(parts, hoverDiagnostic(d))
	}
	if ev := hookEventHover(fs.kind, fs.snap.Text, off); ev != "" {
		parts = append([]string{ev}, parts...)
	} else if field := fieldHover(fs, off); field != "" {
		parts = append([]string{field}, parts...)
	}
	if vh != "" {
		parts = append([]string{vh}, parts...)
	}
	if len(parts) == 0 {
		return nil, nil
	}
	return &protocol.Hover{
		Contents: &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: strings.Join(parts, "\n\n---\n\n")},
		Range:    hit,
	}, nil
}

// hoverDiagnostic explains one finding with what the marker does not
// show: the rule and its documentation link, what the rule checks, and what
// every consumer does with it. The message itself is left out: editors
// already show it next to the hover (#18).
func hoverDiagnostic(d model.Diagnostic) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** (%s) — [rule documentation](%s)", d.Rule, d.Severity, model.RuleHref(d.Rule))
	if info, ok := diagnostics.LookupRule(d.Rule); ok && info.Summary != "" {
		fmt.Fprintf(&b, "\n\n%s", info.Summary)
	}
	if len(d.Verdicts) > 0 {
		b.WriteString("\n\n| consumer | reaction |\n|---|---|\n")
		for _, t := range sortedTargets(d.Verdicts) {
			fmt.Fprintf(&b, "| %s | %s |\n", t.DisplayName(), d.Verdicts[t].Words())
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// hookEventNames is the union of the hook events of the effective targets
// (or of every target when none reads hooks).
func hookEventNames(targets []model.Target) []string {
	seen := map[string]bool{}
	var out []string
	add := func(t model.Target) {
		for _, e := range diagnostics.HookEvents(t) {
			if !seen[e] {
				seen[e] = true
				out = append(out, e)
			}
		}
	}
	for _, t := range targets {
		add(t)
	}
	if len(out) == 0 {
		for _, t := range model.AllTargets {
			add(t)
		}
	}
	sort.Strings(out)
	return out
}

// boolKeys are frontmatter keys whose value is a bare boolean.
var boolKeys = map[string]bool{"user-invocable": true, "disable-model-invocation": true, "background": true, "send": true, "showContinueOn": true, "async": true}

var hookTypes = []string{"command", "http", "mcp_tool", "prompt", "agent"}

func (l *lspServer) Completion(ctx context.Context, p *protocol.CompletionParams) (protocol.CompletionResult, error) {
	s := l.s
	u := p.TextDocument.URI
	text := s.textOf(u)
	loc, ok := s.locate(u)
	empty := &protocol.CompletionList{Items: []protocol.CompletionItem{}}
	if !ok {
		return empty, nil
	}
	var layout model.Layout
	if loc.root != "" {
		layout = &wsLayout{s: s, root: loc.root}
	}
	kind := model.Classify(loc.rel, layout)
	if kind == model.KindNone {
		return empty, nil
	}
	off := offsetAt(text, p.Position, s.Encoding())
	// The same targets the diagnostics use (model.ImpliedTable).
	targets := model.EffectiveTargetsIn(s.Settings().Targets, s.Settings().ImpliedTargets, loc.rel, layout)
	if kind.Markdown() {
		return &protocol.CompletionList{Items: completeMarkdown(kind, loc.rel, text, off, targets)}, nil
	}
	items := completeAt(kind, text, off, targets)
	return &protocol.CompletionList{Items: items}, nil
}

// completeAt proposes keys or values at byte offset off.
func completeAt(kind model.Kind, text []byte, off int, targets []model.Target) []protocol.CompletionItem {
	items := []protocol.CompletionItem{}
	lineStart := bytes.LastIndexByte(text[:off], '\n') + 1
	line := string(text[lineStart:off])
	if kind.Markdown() {
		fm := diagnostics.SplitFrontmatter(text)
		if !fm.Present || off < fm.Body.Start || off > fm.Body.End {
			return items
		}
		if key, _, found := strings.Cut(line, ":"); found && !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "\t") {
			key = strings.TrimSpace(key)
			if boolKeys[key] {
				return documented(valueItems([]string{"true", "false"}, "boolean"), valueDoc(kind, key))
			}
			if values := fieldValues(kind, key); len(values) > 0 {
				return documented(valueItems(values, key), valueDoc(kind, key))
			}
			return items
		}
		if strings.TrimSpace(line) == line || strings.TrimLeft(line, " \t") == line {
			return keyItems(kind, targets)
		}
		return items
	}
	// JSON kinds: complete hook events as object keys under "hooks", handler
	// types after "type":, and booleans after a boolean key.
	trimmed := strings.TrimSpace(line)
	if kind == model.KindConfig {
		if items, ok := completeConfig(text[:lineStart], trimmed); ok { // the line start: an open quote at the cursor would fool the scan
			return items
		}
	}
	switch {
	case typeValue().MatchString(trimmed):
		return documented(valueItems(hookTypes, "hook type"), hookTypeDoc)
	case strings.HasSuffix(strings.TrimRight(trimmed, ` "`), ":") && isBoolJSONKey(trimmed):
		return documented(valueItems([]string{"true", "false"}, "boolean"), func(v string) string { return "`" + v + "`" })
	}
	// By the cursor's place in the JSON, quotes included (#41).
	pos := jsonPosAt(text, off)
	if kind == model.KindHooks || kind == model.KindSettings {
		if items, ok := completeHooks(kind, pos, text, off, targets); ok {
			return items
		}
	}
	if pos.inString && !pos.isKey {
		return items // inside a value's quotes, a key would be wrong
	}
	// Keys: not those the enclosing object already has (#18).
	present := jsonKeysAround(text, off)
	for _, k := range keyItems(kind, targets) {
		if !present[k.Label] {
			items = append(items, k)
		}
	}
	return items
}

var typeValue = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"type"\s*:\s*"?$`) })

// configLevelValue is the start of a level after a rule id in an override.
var configLevelValue = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"[a-z-]+/[a-z0-9-]+"\s*:\s*"?$`) })

// completeConfig completes what only .ahpls/config.json has: rule ids as
// the keys of an override's "rules", their levels, and gitignore's
// booleans. ok false leaves the cursor to the key catalogue.
func completeConfig(before []byte, trimmed string) ([]protocol.CompletionItem, bool) {
	if !insideObjectOf(before, "rules") {
		if strings.HasSuffix(strings.TrimRight(trimmed, ` "`), ":") && strings.Contains(trimmed, `"gitignore"`) {
			return documented(valueItems([]string{"true", "false"}, "boolean"), func(v string) string { return "`" + v + "`" }), true
		}
		return nil, false
	}
	if configLevelValue().MatchString(trimmed) {
		return valueItems([]string{"off", "error", "warning", "info", "hint"}, "level"), true
	}
	var ids []string
	for _, r := range diagnostics.Rules() {
		ids = append(ids, r.ID)
	}
	items := valueItems(ids, "rule")
	for i := range items {
		items[i].Kind = protocol.CompletionItemKindProperty
	}
	return documented(items, func(id string) string {
		doc, _ := diagnostics.ConfigRuleDoc(id)
		return doc
	}), true
}

func isBoolJSONKey(line string) bool {
	for k := range boolKeys {
		if strings.HasPrefix(line, `"`+k+`"`) {
			return true
		}
	}
	return false
}

// insideHooksObject reports whether the innermost open object before the
// cursor is the value of a "hooks" key (where event names are the keys).
func insideHooksObject(before []byte) bool { return insideObjectOf(before, "hooks") }

// insideObjectOf reports whether the innermost open object before the
// cursor is the value of a key named key.
func insideObjectOf(before []byte, key string) bool {
	depth := 0
	inStr := false
	for i := len(before) - 1; i >= 0; i-- {
		c := before[i]
		if inStr {
			if c == '"' && (i == 0 || before[i-1] != '\\') {
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '}', ']':
			depth++
		case '[':
			if depth == 0 {
				return false
			}
			depth--
		case '{':
			if depth > 0 {
				depth--
				continue
			}
			head := bytes.TrimRight(before[:i], " \t\r\n")
			head = bytes.TrimSuffix(head, []byte(":"))
			head = bytes.TrimRight(head, " \t\r\n")
			return bytes.HasSuffix(head, []byte(`"`+key+`"`))
		}
	}
	return false
}

// documented gives each item the Markdown doc(label) (none when empty), so
// the editor's completion details say what a value does, not only its label.
func documented(items []protocol.CompletionItem, doc func(label string) string) []protocol.CompletionItem {
	for i := range items {
		if d := doc(items[i].Label); d != "" {
			items[i].Documentation = &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: d}
		}
	}
	return items
}

// valueDoc documents a value of a header key by the key's catalogue entry.
func valueDoc(kind model.Kind, key string) func(string) string {
	return func(v string) string {
		head := fmt.Sprintf("`%s: %s`", key, v)
		if f, ok := lookupField(kind, key); ok {
			return head + "\n\n" + fieldDoc(f)
		}
		return head
	}
}

// hookTypeDoc says what a hook handler of each type runs.
func hookTypeDoc(t string) string {
	switch t {
	case "command":
		return "`command`: runs a shell command."
	case "http":
		return "`http`: sends the event to a URL."
	case "mcp_tool":
		return "`mcp_tool`: calls a tool of an MCP server."
	case "prompt":
		return "`prompt`: asks the model with a prompt."
	case "agent":
		return "`agent`: runs a subagent."
	}
	return ""
}

func valueItems(values []string, detail string) []protocol.CompletionItem {
	out := make([]protocol.CompletionItem, 0, len(values))
	for _, v := range values {
		out = append(out, protocol.CompletionItem{
			Label:  v,
			Kind:   protocol.CompletionItemKindValue,
			Detail: protocol.NewOptional(detail),
		})
	}
	return out
}
