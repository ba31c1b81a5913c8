package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ahpls-dev/ahpls/check"
	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// CheckInput is the `check` tool's arguments.
type CheckInput struct {
	Paths   List   `json:"paths,omitempty" jsonschema:"files or folders to check (a list, or one path as a string), relative to the first workspace root or absolute; default: every root"`
	Targets List   `json:"targets,omitempty" jsonschema:"consumers whose reactions decide severities (a list, or a comma-separated string): vscode-agent-host, vscode, claude-code, copilot-cli, agent-skills, claude-upload; default vscode-agent-host and agent-skills, plus those a path implies (.claude/** adds claude-code)"`
	Cursor  string `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page"`
	Limit   int    `json:"limit,omitempty" jsonschema:"findings per page (default 200, at most 2000)"`
}

// Finding is one finding as the tools return it.
type Finding struct {
	// Path is below its root, with forward slashes.
	Path string `json:"path"`
	Root string `json:"root"`
	// Line and Column are 1-based; Column counts UTF-16 code units; the
	// end is exclusive.
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine"`
	EndColumn int    `json:"endColumn"`
	Severity  string `json:"severity" jsonschema:"error, warning, info or hint"`
	Rule      string `json:"rule" jsonschema:"the rule id; explain gives its documentation and evidence"`
	Message   string `json:"message"`
	Href      string `json:"href"`
	// Reactions is each consumer's reaction code (model.Reactions); the
	// text content spells them in words. reactionCodesDoc documents every
	// code (TestReactionCodesDocumented).
	Reactions map[string]string `json:"reactions,omitempty" jsonschema:"what each consumer (by target id) does with the file, as a code: skip = does not load it, silently; rej = refuses it with an error; noheader = loads it with its whole header dropped; drop = loads the file but drops this entry; lose = loads it but silently drops part of it; warn = loads it with a warning; shadowed = loads another file of the same name instead; wins = loads this one over another file of the same name; undiscovered = does not discover it; linked = reads it only through another file's link; ign = ignores this field; spec = accepts it though the spec forbids it; should = accepts it, the spec recommends otherwise; ok = accepts it; ? = unknown, not verified. A code with a trailing ? (skip?, rej?, noheader?, drop?, lose?, warn?, shadowed?, wins?, undiscovered?, linked?, ign?, spec?, should?, ok?) is that reaction, not verified in the consumer's code or a run."`
	Fixes     []check.FixInfo   `json:"fixes,omitempty" jsonschema:"quick fixes; the fix tool applies those marked safe"`
}

// CheckOutput is one page of findings.
type CheckOutput struct {
	Findings []Finding `json:"findings"`
	// Total is the number of findings over every page.
	Total int `json:"total"`
	// Counts are the findings over every page by severity.
	Counts     map[string]int `json:"counts"`
	NextCursor string         `json:"nextCursor,omitempty" jsonschema:"pass as cursor to get the next page; absent on the last page"`
}

// FixInput is the `fix` tool's arguments.
type FixInput struct {
	Paths   List `json:"paths" jsonschema:"the files to fix (not folders; a list, or one path as a string), relative to the first workspace root or absolute"`
	Targets List `json:"targets,omitempty" jsonschema:"as for check"`
	DryRun  bool `json:"dryRun,omitempty" jsonschema:"return the diff and write nothing"`
}

// FixOutput is what `fix` changed.
type FixOutput struct {
	Changed []FileChange `json:"changed"`
	// Diff is a unified diff of every change (paths below their roots).
	Diff string `json:"diff"`
	// Refused are files a fix was planned for but the confined writer did
	// not write (a symlink out of the root, other hard links, a file
	// changed meanwhile), with why.
	Refused []string `json:"refused"`
	// Remaining are the named files' findings after the fixes.
	Remaining []Finding `json:"remaining"`
}

// FileChange is one fixed file.
type FileChange struct {
	Path  string   `json:"path"`
	Fixed int      `json:"fixed"`
	Rules []string `json:"rules"`
}

// ExplainInput is the `explain` tool's arguments.
type ExplainInput struct {
	Rule string `json:"rule" jsonschema:"a rule id as check reports it, e.g. skill/name-dir"`
}

// ExplainOutput is a rule's documentation.
type ExplainOutput struct {
	Rule check.RuleInfo `json:"rule"`
	// Markdown is the text of `ahpls check --explain` and of the
	// ahpls://rules/<id> resource.
	Markdown string `json:"markdown"`
}

func no() *bool { b := false; return &b }

func (s *server) addTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "check",
		Title: "Check customization files",
		Description: "Check agent customization files (SKILL.md, agents, prompts, commands, instructions, hooks, " +
			".mcp.json, plugin.json, marketplaces) the way each consumer reads them. Returns findings with the rule, " +
			"range, each consumer's reaction and the available fixes. Call it after writing such a file.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: no()},
		InputSchema: inputSchema[CheckInput](),
	}, s.check)
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "fix",
		Title: "Apply safe fixes",
		Description: "Apply the safe fixes (those that need no choice and keep every value, as `ahpls check --fix`) " +
			"to the named files, inside the workspace roots only, and return the unified diff and what remains.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: no(), IdempotentHint: true, OpenWorldHint: no()},
		InputSchema: inputSchema[FixInput](),
	}, s.fix)
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "explain",
		Title:       "Explain a rule",
		Description: "A rule's documentation: what it checks, the file kinds, how its level follows from each consumer's reaction, the evidence and its fix tier.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: no()},
	}, s.explain)
	s.addListTool(srv)
}

// check is the `check` tool.
func (s *server) check(ctx context.Context, _ *mcp.CallToolRequest, in CheckInput) (*mcp.CallToolResult, CheckOutput, error) {
	ts, err := targets(in.Targets)
	if err != nil {
		return nil, CheckOutput{}, err
	}
	found, err := s.run(in.Paths, ts)
	if err != nil {
		return nil, CheckOutput{}, err
	}
	from, to, next, err := s.page(len(found), in.Cursor, in.Limit)
	if err != nil {
		return nil, CheckOutput{}, err
	}
	out := CheckOutput{Findings: found[from:to], Total: len(found), Counts: map[string]int{}, NextCursor: next}
	for _, f := range found {
		out.Counts[f.Severity]++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d finding(s)", len(found))
	if len(found) > 0 {
		fmt.Fprintf(&b, ", showing %d-%d", from+1, to)
	}
	b.WriteString("\n")
	for _, f := range out.Findings {
		fmt.Fprintf(&b, "%s:%d:%d: %s: %s [%s]", f.Path, f.Line, f.Column, f.Severity, f.Message, f.Rule)
		if len(f.Reactions) > 0 {
			b.WriteString(" — " + reactionText(f.Reactions))
		}
		for _, fx := range f.Fixes {
			if fx.Safe {
				fmt.Fprintf(&b, " (safe fix: %s)", fx.Title)
			}
		}
		b.WriteString("\n")
	}
	if next != "" {
		fmt.Fprintf(&b, "more: call check again with cursor %q\n", next)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, out, nil
}

// request is the paths of one root a call names.
type request struct {
	root  string
	dirs  []string // absolute; the root itself when no path was given
	files []string // absolute
}

// group resolves paths (none: every root) and groups them by root.
func (s *server) group(paths []string) ([]*request, error) {
	byRoot := map[string]*request{}
	var order []*request
	get := func(root string) *request {
		if r := byRoot[root]; r != nil {
			return r
		}
		r := &request{root: root}
		byRoot[root] = r
		order = append(order, r)
		return r
	}
	if len(paths) == 0 {
		for _, r := range s.roots {
			get(r).dirs = append(get(r).dirs, r)
		}
		return order, nil
	}
	seen := map[string]bool{}
	for _, p := range paths {
		abs, root, err := s.resolve(p)
		if err != nil {
			return nil, err
		}
		if seen[abs] {
			continue // named twice (or as "a.md" and "./a.md"): checked once
		}
		seen[abs] = true
		st, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", s.display(abs), err)
		}
		r := get(root)
		if st.IsDir() {
			r.dirs = append(r.dirs, abs)
		} else {
			r.files = append(r.files, abs)
		}
	}
	return order, nil
}

// run checks the named paths. A folder is checked as part of its root's
// walk (so a file's kind comes from its path below the root, as in the
// editor) and its findings are kept; files alone are checked as named
// files of their root.
func (s *server) run(paths []string, ts []model.Target) ([]Finding, error) {
	reqs, err := s.group(paths)
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, r := range reqs {
		cfg := check.Config{Rules: s.options(ts), Root: r.root}
		var found []check.Finding
		if len(r.dirs) > 0 {
			all, err := check.RunConfig([]string{r.root}, cfg)
			if err != nil {
				return nil, err
			}
			for _, f := range all {
				if s.wanted(r, f.Path) {
					found = append(found, f)
				}
			}
		} else {
			if found, err = check.RunConfig(r.files, cfg); err != nil {
				return nil, err
			}
		}
		for _, f := range found {
			out = append(out, s.finding(r.root, f))
		}
	}
	return out, nil
}

// wanted reports whether a finding's file is one r names or below one.
func (s *server) wanted(r *request, p string) bool {
	for _, f := range r.files {
		if p == f {
			return true
		}
	}
	for _, d := range r.dirs {
		if rel, err := filepath.Rel(d, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

func (s *server) options(ts []model.Target) diagnostics.Options {
	o := s.rules
	o.Targets = ts
	return o
}

// reactionText spells a finding's reactions for the model, which reads
// the text content and rarely the output schema: "Claude Code refuses it
// (with an error); VS Code ignores this field", in target order.
func reactionText(rs map[string]string) string {
	var parts []string
	for _, t := range model.AllTargets {
		if r, ok := rs[string(t)]; ok {
			parts = append(parts, model.Reaction(r).Sentence(t))
		}
	}
	return strings.Join(parts, "; ") + "."
}

func (s *server) finding(root string, f check.Finding) Finding {
	out := Finding{Path: s.display(f.Path), Root: root, Line: f.Line, Column: f.Column, EndLine: f.EndLine, EndColumn: f.EndColumn,
		Severity: f.Level, Rule: f.Rule, Message: f.Message, Href: f.Href, Fixes: f.Fixes()}
	if len(f.Verdicts) > 0 {
		out.Reactions = make(map[string]string, len(f.Verdicts))
		for t, r := range f.Verdicts {
			out.Reactions[string(t)] = string(r)
		}
	}
	return out
}

// fix is the `fix` tool: check.Fix on the named files of each root,
// through the root's wsfs.Writer.
func (s *server) fix(ctx context.Context, _ *mcp.CallToolRequest, in FixInput) (*mcp.CallToolResult, FixOutput, error) {
	ts, err := targets(in.Targets)
	if err != nil {
		return nil, FixOutput{}, err
	}
	if len(in.Paths) == 0 {
		return nil, FixOutput{}, errors.New("name the files to fix in paths (check lists the files with findings)")
	}
	reqs, err := s.group(in.Paths)
	if err != nil {
		return nil, FixOutput{}, err
	}
	out := FixOutput{Changed: []FileChange{}, Refused: []string{}, Remaining: []Finding{}}
	var diff bytes.Buffer
	for _, r := range reqs {
		if len(r.dirs) > 0 {
			return nil, FixOutput{}, fmt.Errorf("%s is a folder; fix takes files (check lists the files with findings)", s.display(r.dirs[0]))
		}
	}
	for _, r := range reqs {
		res, err := check.Fix(r.files, check.Config{Rules: s.options(ts), Root: r.root}, !in.DryRun)
		if err != nil {
			return nil, FixOutput{}, err
		}
		for _, c := range res.Changes {
			rel := s.display(c.Path)
			if err := check.WriteUnifiedDiff(&diff, rel, c.Old, c.New); err != nil {
				return nil, FixOutput{}, err
			}
			fc := FileChange{Path: rel, Fixed: len(c.Fixed), Rules: []string{}}
			seen := map[string]bool{}
			for _, f := range c.Fixed {
				if !seen[f.Rule] {
					seen[f.Rule] = true
					fc.Rules = append(fc.Rules, f.Rule)
				}
			}
			sort.Strings(fc.Rules)
			out.Changed = append(out.Changed, fc)
		}
		for _, e := range res.Refused {
			out.Refused = append(out.Refused, e.Error())
		}
		for _, f := range res.Remaining {
			if len(out.Remaining) < MaxPageSize {
				out.Remaining = append(out.Remaining, s.finding(r.root, f))
			}
		}
	}
	out.Diff = diff.String()
	var b strings.Builder
	verb := "fixed"
	if in.DryRun {
		verb = "would fix"
	}
	for _, c := range out.Changed {
		fmt.Fprintf(&b, "%s %d problem(s) in %s [%s]\n", verb, c.Fixed, c.Path, strings.Join(c.Rules, ", "))
	}
	if len(out.Changed) == 0 {
		b.WriteString("no safe fix to apply\n")
	}
	for _, r := range out.Refused {
		fmt.Fprintf(&b, "not written: %s\n", r)
	}
	fmt.Fprintf(&b, "%d finding(s) remain\n", len(out.Remaining))
	b.WriteString(out.Diff)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, out, nil
}

// explain is the `explain` tool.
func (s *server) explain(ctx context.Context, _ *mcp.CallToolRequest, in ExplainInput) (*mcp.CallToolResult, ExplainOutput, error) {
	info, err := check.LookupRuleInfo(in.Rule)
	if err != nil {
		return nil, ExplainOutput{}, err
	}
	md := check.ExplainMarkdown(info)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: md}}}, ExplainOutput{Rule: info, Markdown: md}, nil
}
