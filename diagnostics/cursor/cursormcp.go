package cursor

// Cursor's project MCP config (issue #38): .cursor/mcp.json at the root
// of the folder Cursor opens. Cursor is closed source; its documentation
// (cursor.com/docs/mcp, read 2026-12-05 through stored copies) gives the
// shape: an `mcpServers` object of named servers, each a local server
// (`command`, optional `args`, `env`) or a remote one (`url`, optional
// `headers`), the transport inferred from those fields, so no `type` is
// needed. It documents no reaction to a file of another shape, so every
// finding here is Info (CU ?), worded as what the documentation asks.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"fmt"

	"github.com/ahpls-dev/ahpls/model"
)

// CursorMCPRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var CursorMCPRules = []*core.Rule{cumcpJSON, cumcpServers, cumcpServer}

const cuMCPDocs = "cursor.com/docs/mcp (read 2026-12-05)"

var cumcpJSON = &core.Rule{
	ID:       "cumcp/json",
	Summary:  ".cursor/mcp.json is not strict JSON; what Cursor then does is not documented.",
	Kinds:    "cumcp",
	Severity: "CU ? (Info): Cursor is closed source and documents no reaction.",
}

var cumcpServers = &core.Rule{
	ID:       "cumcp/servers",
	Summary:  "The servers are not in an `mcpServers` object (`servers` is VS Code's .vscode/mcp.json shape).",
	Kinds:    "cumcp",
	Severity: "CU ? (Info): the documentation names only `mcpServers`.",
	Evidence: []core.Evidence{
		{Consumer: "CU", Reaction: "?", Source: cuMCPDocs + ": project servers in .cursor/mcp.json under `mcpServers`, each key a server name"},
	},
}

var cumcpServer = &core.Rule{
	ID:       "cumcp/server",
	Summary:  "A server that is not an object, has neither `command` nor `url`, or has `args`, `env` or `headers` of another shape than the documentation gives.",
	Kinds:    "cumcp",
	Severity: "CU ? (Info).",
	Evidence: []core.Evidence{
		{Consumer: "CU", Reaction: "?", Source: cuMCPDocs + ": stdio servers have `command`, `args` (a list), `env` (an object); remote servers `url` and `headers` (an object); the transport follows from the fields"},
	},
}

func CheckCursorMCP(f core.File, r *core.Reporter) {
	root := cuJSON(f, r, cumcpJSON, "this MCP config")
	if root == nil {
		return
	}
	unk := model.Verdicts{model.TargetCursor: model.Unknown}
	if !root.Is(core.JSONObject) {
		r.Verdict(cumcpServers, root.Span, unk, fmt.Sprintf("Cursor's documentation wants an object with `mcpServers`, not %s.", root.Kind))
		return
	}
	servers := root.Get("mcpServers")
	if servers == nil {
		span := core.JFirstLine(f.Text)
		msg := "Cursor's documentation puts the servers in `mcpServers`; this file has none."
		if s := root.Member("servers"); s != nil {
			span = s.KeySpan
			msg = "Cursor's documentation puts the servers in `mcpServers`; `servers` is VS Code's .vscode/mcp.json shape."
		}
		r.Verdict(cumcpServers, span, unk, msg)
		return
	}
	if !servers.Is(core.JSONObject) {
		r.Verdict(cumcpServers, servers.Span, unk, fmt.Sprintf("Cursor's documentation wants `mcpServers` to be an object of named servers, not %s.", servers.Kind))
		return
	}
	for _, m := range servers.Members {
		cuMCPServer(r, m.Key, m.KeySpan, m.Value)
	}
}

func cuMCPServer(r *core.Reporter, name string, keySpan model.Span, s *core.JSONValue) {
	unk := model.Verdicts{model.TargetCursor: model.Unknown}
	if !s.Is(core.JSONObject) {
		r.Verdict(cumcpServer, s.Span, unk, fmt.Sprintf("Cursor's documentation wants server %s to be an object, not %s.", core.ClipQuote(name), s.Kind))
		return
	}
	if s.Get("command") == nil && s.Get("url") == nil {
		r.Verdict(cumcpServer, keySpan, unk, fmt.Sprintf("Server %s has neither `command` (a local server) nor `url` (a remote one), so Cursor has nothing to start or reach.", core.ClipQuote(name)))
	}
	for _, key := range []string{"command", "url"} {
		if v := s.Get(key); v != nil && !v.Is(core.JSONString) {
			r.Verdict(cumcpServer, v.Span, unk, fmt.Sprintf("Cursor's documentation wants `%s` to be a string, not %s.", key, v.Kind))
		}
	}
	if v := s.Get("args"); v != nil && !core.JStringList(v) {
		r.Verdict(cumcpServer, v.Span, unk, fmt.Sprintf("Cursor's documentation wants `args` to be a list of strings, not %s.", v.Kind))
	}
	for _, key := range []string{"env", "headers"} {
		if v := s.Get(key); v != nil && !v.Is(core.JSONObject) {
			r.Verdict(cumcpServer, v.Span, unk, fmt.Sprintf("Cursor's documentation wants `%s` to be an object, not %s.", key, v.Kind))
		}
	}
}
