package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ahpls-dev/ahpls/check"
)

// RulePrefix is the URI of a rule's documentation without its id:
// ahpls://rules/skill/name-dir.
const RulePrefix = "ahpls://rules/"

// addResources lists every rule's documentation as a resource (the rule
// table is fixed at build time, so a static list is complete).
func (s *server) addResources(srv *mcp.Server) {
	for _, info := range check.RuleInfos() {
		srv.AddResource(&mcp.Resource{
			URI:         RulePrefix + info.ID,
			Name:        info.ID,
			Title:       "ahpls rule " + info.ID,
			Description: info.Summary,
			MIMEType:    "text/markdown",
		}, readRule)
	}
}

// readRule serves ahpls://rules/<id>: the text of `ahpls check --explain`.
func readRule(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := strings.CutPrefix(uri, RulePrefix)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	info, err := check.LookupRuleInfo(id)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: check.ExplainMarkdown(info)}}}, nil
}

// ReviewPrompt is the name of the prompt that reviews a workspace's
// customizations.
const ReviewPrompt = "review-customizations"

func (s *server) addPrompt(srv *mcp.Server) {
	srv.AddPrompt(&mcp.Prompt{
		Name:        ReviewPrompt,
		Title:       "Review my customizations",
		Description: "Review the workspace's skills, agents, prompts, hooks, MCP servers and plugins: what each agent loads, what it refuses and why, and the fixes.",
		Arguments: []*mcp.PromptArgument{{
			Name:        "path",
			Description: "a file or folder to review (default: the whole workspace)",
		}},
	}, s.reviewPrompt)
}

func (s *server) reviewPrompt(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	where := "the whole workspace"
	args := "{}"
	if p := strings.TrimSpace(req.Params.Arguments["path"]); p != "" {
		if _, _, err := s.resolve(p); err != nil {
			return nil, err
		}
		where = fmt.Sprintf("`%s`", p)
		args = fmt.Sprintf(`{"paths": [%q]}`, p)
	}
	text := fmt.Sprintf(`Review my agent customizations in %s with the ahpls tools.

1. Call list_customizations to see what each consumer (VS Code, its agent host, Claude Code, Copilot CLI, the Agent Skills spec) loads, under which name, and what it does not load and why.
2. Call check with %s. Findings at error level mean a named consumer refuses or skips the file; warnings mean it loses or changes something. Page through nextCursor if there are more.
3. For each rule you do not know, call explain (or read ahpls://rules/<rule-id>) and use its evidence, not a guess.
4. Apply the safe fixes with fix on the files that have them (show me the diff), then propose edits for what remains, most severe first, and say which consumer each one matters to.
Do not change files outside the workspace.`, where, args)
	return &mcp.GetPromptResult{
		Description: "Review agent customizations with ahpls",
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
	}, nil
}
