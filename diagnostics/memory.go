package diagnostics

// Always-on files: AGENTS.md, CLAUDE*.md, .github/copilot-instructions.md,
// GEMINI.md (customization-formats.md §5.4). They are plain Markdown: no
// header rules.

import (
	"path"
	"regexp"
	"strings"

	"github.com/ahpls-dev/ahpls/model"
)

// memoryRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var memoryRules = []*Rule{memoryAgentsMd, memoryImport}

var memoryAgentsMd = &Rule{
	ID:       "memory/agents-md",
	Summary:  "AGENTS.md that Claude Code never reads (no CLAUDE.md imports it).",
	Kinds:    "memory",
	Severity: "CC IGN (reads only CLAUDE*.md).",
}

var memoryImport = &Rule{
	ID:       "memory/import",
	Summary:  "An @path import in CLAUDE.md whose file is missing.",
	Kinds:    "memory",
	Severity: "CC LOSE.",
}

// WorkspaceReader is an optional extension of WorkspaceFS for rules that
// look inside another file: whether a CLAUDE.md imports AGENTS.md, whether
// a parent skill mentions a nested SKILL.md. Without it those rules assume
// the friendly answer (imported, mentioned) rather than guess an error.
type WorkspaceReader interface {
	ReadFile(rel string) ([]byte, error)
}

// readFile reads a workspace file through the optional WorkspaceReader.
func (m *mdFile) readFile(rel string) ([]byte, bool) {
	rd, ok := m.f.FS.(WorkspaceReader)
	if !ok {
		return nil, false
	}
	b, err := rd.ReadFile(rel)
	return b, err == nil
}

var atImport = regexp.MustCompile(`(?:^|[\s(])@([A-Za-z0-9_./~-][^\s)]*)`)

func checkMemory(f File, r *reporter) {
	m := newMD(f, r)
	// Plain Markdown: a leading '---' is a rule, not a header.
	m.fm = Frontmatter{CR: m.fm.CR, BOM: m.fm.BOM, Markdown: model.Span{Start: 0, End: len(f.Text)}}
	base := path.Base(f.Path)
	if base == "AGENTS.md" && m.f.FS != nil {
		dir := path.Dir(f.Path)
		imported := false
		for _, c := range []string{"CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"} {
			p := path.Join(dir, c)
			if _, err := m.f.FS.Stat(p); err != nil {
				continue
			}
			b, ok := m.readFile(p)
			if !ok || strings.Contains(string(b), "@AGENTS.md") || strings.Contains(string(b), "@./AGENTS.md") {
				imported = true // unreadable: assume it imports AGENTS.md
			}
		}
		if !imported {
			m.report(memoryAgentsMd, line1(m.text), model.Verdicts{model.TargetClaudeCode: model.Ignore},
				"{T} ignore{s} AGENTS.md: it reads only CLAUDE.md files; add a CLAUDE.md containing '@AGENTS.md'.",
				model.Fix{Title: "Create CLAUDE.md importing AGENTS.md", Edits: []model.Edit{{Path: path.Join(dir, "CLAUDE.md"), NewText: "@AGENTS.md\n"}}})
		}
	}
	if strings.HasPrefix(base, "CLAUDE") {
		m.checkImports()
	}
	m.checkLinks()
	m.memorySecrets()
}

// checkImports reports @path imports whose folder exists but file does
// not; anything else (`@user`, `@scope/pkg`) is text.
func (m *mdFile) checkImports() {
	if m.f.FS == nil {
		return
	}
	m.scanBody(func(line []byte, off int) {
		for _, loc := range atImport.FindAllSubmatchIndex(line, -1) {
			p := strings.TrimRight(string(line[loc[2]:loc[3]]), ".,;:")
			if strings.HasPrefix(p, "~") || !strings.ContainsAny(p, "/.") {
				continue
			}
			full := path.Join(path.Dir(m.f.Path), p)
			if full == ".." || strings.HasPrefix(full, "../") {
				continue
			}
			if _, err := m.f.FS.Stat(full); err == nil {
				continue
			}
			dir := path.Dir(full)
			if fi, err := m.f.FS.Stat(dir); dir != "." && (err != nil || !fi.IsDir()) {
				continue
			}
			m.report(memoryImport, model.Span{Start: off + loc[2], End: off + loc[2] + len(p)}, model.Verdicts{model.TargetClaudeCode: model.Lose},
				"{T} skip{s} import "+q("@"+p)+": the file does not exist.")
		}
	})
}
