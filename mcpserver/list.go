package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ahpls-dev/ahpls/check"
	"github.com/ahpls-dev/ahpls/view"
)

// ListInput is the `list_customizations` tool's arguments.
type ListInput struct {
	Root     string `json:"root,omitempty" jsonschema:"the workspace root to list (default: the first root)"`
	Targets  List   `json:"targets,omitempty" jsonschema:"consumers to show (a list, or a comma-separated string): vscode, vscode-agent-host, claude-code, copilot-cli, agent-skills, claude-upload; default all but claude-upload"`
	Category string `json:"category,omitempty" jsonschema:"only this category: skills, agents, commands, instructions, hooks, mcpServers or plugins"`
	Cursor   string `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page"`
	Limit    int    `json:"limit,omitempty" jsonschema:"items per page over all consumers (default 200, at most 2000)"`
}

// ListItem is one thing one consumer loads, or does not load and why.
type ListItem struct {
	Consumer string `json:"consumer" jsonschema:"the target id"`
	Category string `json:"category"`
	Name     string `json:"name" jsonschema:"what the consumer calls it"`
	Source   string `json:"source" jsonschema:"the file that defines it, below the root"`
	Status   string `json:"status" jsonschema:"loads, shadowed, not-scanned, fails or disabled"`
	Reason   string `json:"reason,omitempty"`
	Rule     string `json:"rule,omitempty" jsonschema:"the rule behind a fails status"`
	// ShadowedBy is the winning file of a shadowed item.
	ShadowedBy  string          `json:"shadowedBy,omitempty"`
	Notes       []string        `json:"notes,omitempty"`
	Description string          `json:"description,omitempty" jsonschema:"the description as the consumer presents it to the model"`
	Components  []ListComponent `json:"components,omitempty" jsonschema:"a plugin's components as this consumer reads them"`
}

// ListComponent is one component of a plugin.
type ListComponent struct {
	Category string `json:"category"`
	Name     string `json:"name"`
	Source   string `json:"source"`
	Status   string `json:"status"`
	Reason   string `json:"reason,omitempty"`
	Rule     string `json:"rule,omitempty"`
}

// ListOutput is one page of the view.
type ListOutput struct {
	Root  string     `json:"root"`
	Items []ListItem `json:"items"`
	// Total counts items over every page.
	Total      int    `json:"total"`
	NextCursor string `json:"nextCursor,omitempty"`
}

func (s *server) addListTool(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "list_customizations",
		Title: "List what each agent loads",
		Description: "What each consumer (VS Code, its agent host, Claude Code, Copilot CLI, the Agent Skills spec) loads from " +
			"the workspace: skills, agents, prompts and commands, instructions, hooks, MCP servers and plugins, with names, " +
			"source files, and for what does not load, why (shadowed, not scanned, fails a rule, disabled).",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: no()},
		InputSchema: inputSchema[ListInput](),
	}, s.list)
}

// list is `list_customizations`: package view's model over check.Inventory,
// the same walk `ahpls list` does.
func (s *server) list(ctx context.Context, _ *mcp.CallToolRequest, in ListInput) (*mcp.CallToolResult, ListOutput, error) {
	root := s.roots[0]
	if in.Root != "" {
		abs, r, err := s.resolve(in.Root)
		if err != nil {
			return nil, ListOutput{}, err
		}
		if abs != r {
			return nil, ListOutput{}, fmt.Errorf("root %q is not one of the workspace roots (%s)", in.Root, strings.Join(s.roots, ", "))
		}
		root = r
	}
	ts, err := targets(in.Targets)
	if err != nil {
		return nil, ListOutput{}, err
	}
	if in.Category != "" {
		known := false
		for _, c := range view.Categories {
			known = known || string(c) == in.Category
		}
		if !known {
			return nil, ListOutput{}, fmt.Errorf("unknown category %q; categories: %v", in.Category, view.Categories)
		}
	}
	vin, err := check.Inventory(root, check.Config{Rules: s.rules})
	if err != nil {
		return nil, ListOutput{}, err
	}
	vin.Targets = ts
	v := view.Build(vin)
	var items []ListItem
	for _, c := range v.Consumers {
		for _, it := range c.Items {
			if in.Category != "" && string(it.Category) != in.Category {
				continue
			}
			li := ListItem{Consumer: string(c.Target), Category: string(it.Category), Name: it.Name, Source: it.Source,
				Status: string(it.Status), Reason: it.Reason, Rule: it.Rule, ShadowedBy: it.ShadowedBy, Notes: it.Notes}
			if it.Description != nil {
				li.Description = it.Description.Text
			}
			for _, comp := range it.Components {
				li.Components = append(li.Components, ListComponent{Category: string(comp.Category), Name: comp.Name,
					Source: comp.Source, Status: string(comp.Status), Reason: comp.Reason, Rule: comp.Rule})
			}
			items = append(items, li)
		}
	}
	from, to, next, err := s.page(len(items), in.Cursor, in.Limit)
	if err != nil {
		return nil, ListOutput{}, err
	}
	out := ListOutput{Root: root, Items: items[from:to], Total: len(items), NextCursor: next}
	if out.Items == nil {
		out.Items = []ListItem{}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d item(s) over the consumers", len(items))
	if len(items) > 0 {
		fmt.Fprintf(&b, ", showing %d-%d", from+1, to)
	}
	b.WriteString("\n")
	for _, it := range out.Items {
		fmt.Fprintf(&b, "%s: %s %s (%s) %s", it.Consumer, it.Category, it.Name, it.Source, it.Status)
		if it.Reason != "" {
			fmt.Fprintf(&b, ": %s", it.Reason)
		}
		b.WriteString("\n")
	}
	if next != "" {
		fmt.Fprintf(&b, "more: call list_customizations again with cursor %q\n", next)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, out, nil
}
