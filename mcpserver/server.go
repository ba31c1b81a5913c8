// Package mcpserver is `ahpls mcp`: the Model Context Protocol over stdio,
// so an agent (Claude Code, Copilot CLI, VS Code's agent, Cursor) can ask
// ahpls whether the skills, agents, hooks and manifests it wrote load
// (issue #33).
//
// It is a thin room over package check: the `check` tool is check.RunConfig,
// `fix` is check.Fix (the one confined write path, wsfs.Writer, that
// `ahpls check --fix` uses), `explain` and the ahpls://rules/<id> resources
// are check.ExplainMarkdown, the text of `ahpls check --explain`. What this
// package adds is the roots: every path an agent names must resolve inside
// a root the server was started with (the current folder by default), or
// the call is refused with a tool error. Start at New.
//
// Stdout is the MCP channel; logs go to stderr.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// Options configure a server.
type Options struct {
	// Roots are the folders the tools may read and fix below; at least
	// one. Relative paths in tool arguments are taken below the first.
	Roots []string
	// Version is ahpls' version, sent in the initialize result.
	Version string
	// Rules are the base rule options (package tools' validator of
	// .ahpls/tools.json, passed in by cmd/ahpls).
	Rules diagnostics.Options
	// PageSize is how many findings or items one call returns at most
	// when the caller gives no limit; 0 means DefaultPageSize.
	PageSize int
}

// DefaultPageSize bounds one page of `check` findings: a large workspace
// has thousands, more than an agent's context should take at once.
const DefaultPageSize = 200

// MaxPageSize is the largest limit a caller may ask for.
const MaxPageSize = 2000

// server holds the resolved roots; it is read-only after New, so the SDK
// may call handlers concurrently.
type server struct {
	roots    []string // absolute, symlinks resolved
	rules    diagnostics.Options
	pageSize int
}

// New builds the MCP server: tools, rule resources and the review prompt.
func New(opts Options) (*mcp.Server, error) {
	if len(opts.Roots) == 0 {
		return nil, errors.New("no root folder")
	}
	s := &server{rules: opts.Rules, pageSize: opts.PageSize}
	if s.pageSize <= 0 {
		s.pageSize = DefaultPageSize
	}
	for _, r := range opts.Roots {
		abs, err := filepath.Abs(r)
		if err == nil {
			abs, err = filepath.EvalSymlinks(abs)
		}
		if err != nil {
			return nil, fmt.Errorf("root %s: %w", r, err)
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("root %s is not a folder", r)
		}
		s.roots = append(s.roots, abs)
	}
	version := opts.Version
	if version == "" {
		version = "devel"
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "ahpls", Title: "ahpls: agent customization checks", Version: version}, &mcp.ServerOptions{
		Instructions: "ahpls checks agent customization files (SKILL.md, agents, prompts, commands, instructions, " +
			"hooks, .mcp.json, plugin.json, marketplaces) the way Claude Code, VS Code, Copilot CLI and the Agent " +
			"Skills spec read them. After writing or editing such a file, call `check` on it; apply `fix` for the " +
			"safe fixes; `explain` gives a rule's evidence; `list_customizations` shows what each consumer loads.",
	})
	s.addTools(srv)
	s.addResources(srv)
	s.addPrompt(srv)
	return srv, nil
}

// Run serves one session over stdio-like streams until the client closes
// them or ctx ends.
func Run(ctx context.Context, opts Options, t mcp.Transport) error {
	srv, err := New(opts)
	if err != nil {
		return err
	}
	return srv.Run(ctx, t)
}

// resolve maps a path an agent gave (relative to the first root, or
// absolute) to an absolute path inside a root, and that root. It refuses a
// path outside every root, including through a symlink. A path that does
// not exist is refused too: there is nothing to check or fix.
func (s *server) resolve(p string) (abs, root string, err error) {
	if strings.TrimSpace(p) == "" {
		return "", "", errors.New("empty path")
	}
	if strings.ContainsRune(p, 0) {
		return "", "", fmt.Errorf("path %q contains a NUL byte", p)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.roots[0], p)
	}
	p = filepath.Clean(p)
	// Lexically first, so the message for "../x" does not depend on
	// whether x exists.
	if _, ok := s.rootOf(p); !ok {
		if real, err := filepath.EvalSymlinks(p); err != nil || !s.inAnyRoot(real) {
			return "", "", s.outside(p)
		}
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", "", fmt.Errorf("%s does not exist", s.display(p))
		}
		return "", "", fmt.Errorf("%s: %v", s.display(p), err)
	}
	r, ok := s.rootOf(real)
	if !ok {
		return "", "", s.outside(p)
	}
	return real, r, nil
}

func (s *server) inAnyRoot(p string) bool { _, ok := s.rootOf(p); return ok }

// rootOf is the root p is below (or equal to), lexically.
func (s *server) rootOf(p string) (string, bool) {
	for _, r := range s.roots {
		rel, err := filepath.Rel(r, p)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return r, true
		}
	}
	return "", false
}

func (s *server) outside(p string) error {
	return fmt.Errorf("%s is outside the workspace roots (%s); ahpls mcp only reads and fixes files below them", p, strings.Join(s.roots, ", "))
}

// display is p relative to its root when it has one.
func (s *server) display(p string) string {
	if r, ok := s.rootOf(p); ok {
		if rel, err := filepath.Rel(r, p); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return p
}

// targets reads a tool's targets argument, whose items may be
// comma-separated ("claude-code,vscode", as --targets takes them); an
// unknown id is an error (the CLI ignores it with a warning; an agent
// should hear it). A target named twice counts once.
func targets(items List) ([]model.Target, error) {
	var out []model.Target
	var ids []string
	for _, it := range items {
		for _, id := range strings.Split(it, ",") {
			if id = strings.TrimSpace(id); id != "" {
				ids = append(ids, id)
			}
		}
	}
	for _, id := range ids {
		if slices.Contains(out, model.Target(id)) {
			continue
		}
		if !model.KnownTarget(id) {
			var known []string
			for _, t := range model.AllTargets {
				known = append(known, string(t))
			}
			return nil, fmt.Errorf("unknown target %q; known targets: %s", id, strings.Join(known, ", "))
		}
		out = append(out, model.Target(id))
	}
	return out, nil
}

// page cuts n items at cursor (an offset the previous page returned) to
// at most limit (0: the default) and returns the range and the next cursor.
func (s *server) page(n int, cursor string, limit int) (from, to int, next string, err error) {
	if limit < 0 || limit > MaxPageSize {
		return 0, 0, "", fmt.Errorf("limit %d is out of range 1..%d", limit, MaxPageSize)
	}
	if limit == 0 {
		limit = s.pageSize
	}
	if cursor != "" {
		from, err = strconv.Atoi(cursor)
		if err != nil || from < 0 || from > n {
			return 0, 0, "", fmt.Errorf("cursor %q is not one this server returned (pass nextCursor from the previous page)", cursor)
		}
	}
	to = min(from+limit, n)
	if to < n {
		next = strconv.Itoa(to)
	}
	return from, to, next, nil
}
