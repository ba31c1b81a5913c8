package server

import (
	"context"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// textDocument/documentSymbol: the outline of one customization file.
// Markdown kinds list their frontmatter keys, then their headings nested by
// level; JSON kinds list their keys, with hook events, hook commands, MCP
// servers, plugin components and marketplace entries named and kinded so an
// outline reads like the file's meaning.

func (l *lspServer) DocumentSymbol(ctx context.Context, p *protocol.DocumentSymbolParams) (protocol.DocumentSymbolResult, error) {
	s := l.s
	d, ok := s.doc(p.TextDocument.URI)
	if !ok || d.kind == model.KindNone {
		return protocol.DocumentSymbolSlice{}, nil
	}
	idx := model.NewLineIndex(d.text)
	enc := s.Encoding()
	rng := func(sp model.Span) protocol.Range { return lspRange(idx.Range(sp, enc)) }
	if d.kind.Markdown() {
		return markdownSymbols(d.text, rng), nil
	}
	root, _ := diagnostics.ParseJSON(d.text)
	if root == nil {
		return protocol.DocumentSymbolSlice{}, nil
	}
	budget := maxOutlineItems
	return jsonSymbols(d.kind, "", root, rng, &budget, 0), nil
}

type rangeFunc func(model.Span) protocol.Range

func markdownSymbols(text []byte, rng rangeFunc) protocol.DocumentSymbolSlice {
	out := protocol.DocumentSymbolSlice{}
	if entries, ok := diagnostics.FrontmatterEntries(text); ok {
		out = append(out, yamlSymbols(entries, "", rng)...)
	}
	heads, _ := markdownOutline(text)
	return append(out, buildHeadingTree(heads, text, rng)...)
}

// buildHeadingTree nests headings by level with ranges covering their
// sections (up to the next heading of the same or a higher level).
func buildHeadingTree(heads []mdHeading, text []byte, rng rangeFunc) []protocol.DocumentSymbol {
	var build func(i, parentLevel int) ([]protocol.DocumentSymbol, int)
	build = func(i, parentLevel int) ([]protocol.DocumentSymbol, int) {
		var out []protocol.DocumentSymbol
		for i < len(heads) && heads[i].level > parentLevel {
			h := heads[i]
			children, next := build(i+1, h.level)
			end := len(text)
			if next < len(heads) {
				end = heads[next].line.Start
			}
			name := string(text[h.title.Start:h.title.End])
			if name == "" {
				name = strings.Repeat("#", h.level)
			}
			out = append(out, protocol.DocumentSymbol{
				Name:           name,
				Kind:           protocol.SymbolKindString,
				Range:          rng(model.Span{Start: h.line.Start, End: trimEnd(text, h.line.Start, end)}),
				SelectionRange: rng(h.title),
				Children:       children,
			})
			i = next
		}
		return out, i
	}
	out, _ := build(0, 0)
	return out
}

func yamlSymbols(entries []diagnostics.FrontmatterEntry, parent string, rng rangeFunc) []protocol.DocumentSymbol {
	out := make([]protocol.DocumentSymbol, 0, len(entries))
	for _, e := range entries {
		kind := protocol.SymbolKindProperty
		switch {
		case parent == "hooks":
			kind = protocol.SymbolKindEvent
		case !e.Scalar:
			kind = protocol.SymbolKindObject
		}
		full := model.Span{Start: e.KeySpan.Start, End: max(e.KeySpan.End, e.ValueSpan.End)}
		sym := protocol.DocumentSymbol{Name: e.Key, Kind: kind, Range: rng(full), SelectionRange: rng(e.KeySpan)}
		if e.Scalar && e.Value != "" {
			sym.Detail = detail(e.Value)
		}
		if len(e.Children) > 0 {
			sym.Children = yamlSymbols(e.Children, e.Key, rng)
		}
		out = append(out, sym)
	}
	return out
}

// detail shortens a value for the outline's detail column.
func detail(v string) *string {
	v = strings.Join(strings.Fields(v), " ")
	if utf8.RuneCountInString(v) > 60 {
		r := []rune(v)
		v = string(r[:59]) + "…"
	}
	return &v
}

// nameFields name an array element in the outline, in order of preference.
var nameFields = []string{"name", "command", "matcher", "url", "id", "source", "path", "type"}

func jsonSymbols(kind model.Kind, parent string, v *diagnostics.JSONValue, rng rangeFunc, budget *int, depth int) protocol.DocumentSymbolSlice {
	out := protocol.DocumentSymbolSlice{}
	if depth > 12 {
		return out
	}
	switch v.Kind {
	case diagnostics.JSONObject:
		for _, m := range v.Members {
			if *budget <= 0 {
				break
			}
			*budget--
			sym := protocol.DocumentSymbol{
				Name:           m.Key,
				Kind:           jsonMemberKind(kind, parent, depth, m),
				Range:          rng(model.Span{Start: m.KeySpan.Start, End: m.Value.Span.End}),
				SelectionRange: rng(m.KeySpan),
			}
			if sym.Name == "" {
				sym.Name = `""`
			}
			switch m.Value.Kind {
			case diagnostics.JSONObject, diagnostics.JSONArray:
				sym.Children = jsonSymbols(kind, m.Key, m.Value, rng, budget, depth+1)
			default:
				sym.Detail = detail(m.Value.Str)
			}
			out = append(out, sym)
		}
	case diagnostics.JSONArray:
		for i, it := range v.Items {
			if *budget <= 0 {
				break
			}
			*budget--
			name, sel := "["+strconv.Itoa(i)+"]", it.Span
			k := protocol.SymbolKindObject
			switch it.Kind {
			case diagnostics.JSONObject:
				for _, f := range nameFields {
					if fv := it.Get(f); fv.Is(diagnostics.JSONString) && fv.Str != "" {
						name, sel = fv.Str, fv.Span
						if f == "matcher" {
							name = "matcher " + fv.Str
						}
						break
					}
				}
				switch {
				case it.Get("command").Is(diagnostics.JSONString) || it.Get("type").Is(diagnostics.JSONString) && parent == "hooks":
					k = protocol.SymbolKindFunction // a hook handler
				case parent == "plugins":
					k = protocol.SymbolKindPackage // a marketplace entry
				}
			case diagnostics.JSONString:
				name, k = it.Str, protocol.SymbolKindFile // a component path
			default:
				k = protocol.SymbolKindConstant
				if it.Str != "" {
					name = it.Str
				}
			}
			sym := protocol.DocumentSymbol{Name: name, Kind: k, Range: rng(it.Span), SelectionRange: rng(sel)}
			if it.Kind == diagnostics.JSONObject || it.Kind == diagnostics.JSONArray {
				sym.Children = jsonSymbols(kind, parent, it, rng, budget, depth+1)
			}
			out = append(out, sym)
		}
	}
	return out
}

// componentKeys are a plugin manifest's component fields.
var componentKeys = map[string]bool{"skills": true, "agents": true, "commands": true, "hooks": true, "mcpServers": true, "lspServers": true, "prompts": true, "instructions": true, "outputStyles": true}

func jsonMemberKind(kind model.Kind, parent string, depth int, m *diagnostics.JSONMember) protocol.SymbolKind {
	switch {
	case parent == "hooks" && m.Value.Is(diagnostics.JSONArray):
		return protocol.SymbolKindEvent
	case (parent == "mcpServers" || parent == "servers") && m.Value.Is(diagnostics.JSONObject):
		return protocol.SymbolKindModule
	case kind == model.KindMCP && depth == 0 && m.Value.Is(diagnostics.JSONObject) && m.Key != "mcpServers" && m.Key != "servers" && m.Key != "inputs":
		return protocol.SymbolKindModule // a bare map of servers
	case kind == model.KindPlugin && depth == 0 && componentKeys[m.Key]:
		return protocol.SymbolKindNamespace
	}
	switch m.Value.Kind {
	case diagnostics.JSONObject:
		return protocol.SymbolKindObject
	case diagnostics.JSONArray:
		return protocol.SymbolKindArray
	case diagnostics.JSONString:
		return protocol.SymbolKindString
	case diagnostics.JSONNumber:
		return protocol.SymbolKindNumber
	case diagnostics.JSONBool:
		return protocol.SymbolKindBoolean
	}
	return protocol.SymbolKindNull
}

// --- workspace/symbol ---

// maxWorkspaceSymbols bounds one answer.
const maxWorkspaceSymbols = 1000

// Symbols answers workspace/symbol: every customization the server knows of
// (skills, agents, prompts, commands, instructions, rules, memory files,
// hook events, MCP servers, plugins and marketplace entries) whose name
// matches the query (case-insensitive, characters in order).
func (l *lspServer) Symbols(ctx context.Context, p *protocol.WorkspaceSymbolParams) (protocol.WorkspaceSymbolResult, error) {
	out := l.s.symbols.search(p.Query, maxWorkspaceSymbols, func() bool { return ctx.Err() != nil })
	if out == nil {
		return nil, ctx.Err()
	}
	return out, nil
}

// customization is one named thing a file defines.
type customization struct {
	name string
	kind protocol.SymbolKind
	span model.Span // the name's value, or the file's first line
}

// customizations lists what one file defines, by the name a consumer uses.
func customizations(kind model.Kind, rel string, text []byte) []customization {
	if kind.Markdown() {
		c := customization{name: defaultName(kind, rel), kind: markdownSymbolKind(kind)}
		if entries, ok := diagnostics.FrontmatterEntries(text); ok {
			for _, e := range entries {
				if e.Key == "name" && e.Scalar && e.Value != "" {
					c.name, c.span = e.Value, e.ValueSpan
				}
			}
		}
		return []customization{c}
	}
	root, _ := diagnostics.ParseJSON(text)
	if root == nil {
		return nil
	}
	var out []customization
	switch kind {
	case model.KindHooks, model.KindSettings:
		if h := root.Get("hooks"); h.Is(diagnostics.JSONObject) {
			for _, m := range h.Members {
				out = append(out, customization{name: m.Key, kind: protocol.SymbolKindEvent, span: m.KeySpan})
			}
		}
	case model.KindMCP:
		servers := root.Get("mcpServers")
		if servers == nil {
			servers = root.Get("servers")
		}
		if servers == nil {
			servers = root
		}
		if servers.Is(diagnostics.JSONObject) {
			for _, m := range servers.Members {
				if m.Value.Is(diagnostics.JSONObject) {
					out = append(out, customization{name: m.Key, kind: protocol.SymbolKindModule, span: m.KeySpan})
				}
			}
		}
	case model.KindPlugin:
		if n := root.Get("name"); n.Is(diagnostics.JSONString) {
			out = append(out, customization{name: n.Str, kind: protocol.SymbolKindPackage, span: n.Span})
		}
		if h := root.Get("hooks"); h.Is(diagnostics.JSONObject) {
			if inner := h.Get("hooks"); inner.Is(diagnostics.JSONObject) {
				h = inner
			}
			for _, m := range h.Members {
				out = append(out, customization{name: m.Key, kind: protocol.SymbolKindEvent, span: m.KeySpan})
			}
		}
		for _, key := range []string{"mcpServers"} {
			if ms := root.Get(key); ms.Is(diagnostics.JSONObject) {
				for _, m := range ms.Members {
					out = append(out, customization{name: m.Key, kind: protocol.SymbolKindModule, span: m.KeySpan})
				}
			}
		}
	case model.KindMarketplace:
		if ps := root.Get("plugins"); ps.Is(diagnostics.JSONArray) {
			for _, it := range ps.Items {
				if n := it.Get("name"); n.Is(diagnostics.JSONString) {
					out = append(out, customization{name: n.Str, kind: protocol.SymbolKindPackage, span: n.Span})
				}
			}
		}
	}
	return out
}

// defaultName is the name a consumer gives a Markdown customization that
// has no `name`: a skill its folder, the rest their file name without the
// kind's suffix.
func defaultName(kind model.Kind, rel string) string {
	base := path.Base(rel)
	if kind == model.KindSkill {
		return path.Base(path.Dir(rel))
	}
	for _, suf := range []string{".agent.md", ".prompt.md", ".instructions.md", ".chatmode.md", ".md"} {
		if strings.HasSuffix(strings.ToLower(base), suf) {
			return base[:len(base)-len(suf)]
		}
	}
	return base
}

func markdownSymbolKind(kind model.Kind) protocol.SymbolKind {
	switch kind {
	case model.KindSkill:
		return protocol.SymbolKindFunction
	case model.KindAgent, model.KindClaudeAgent:
		return protocol.SymbolKindClass
	case model.KindPrompt, model.KindCommand:
		return protocol.SymbolKindMethod
	case model.KindInstructions, model.KindRule:
		return protocol.SymbolKindNamespace
	}
	return protocol.SymbolKindFile
}
