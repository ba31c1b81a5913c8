package diagnostics

// Always-on files: AGENTS.md, CLAUDE*.md, .github/copilot-instructions.md,
// GEMINI.md (customization-formats.md §5.4). They are plain Markdown: no
// header rules.

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/model"
)

// memoryRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var memoryRules = []*Rule{memoryAgentsMd, memoryImport, memoryImportDepth, memoryImportCycle, memorySize, memoryCodexSize, bodyEmpty}

var bodyEmpty = &Rule{
	ID:       "body/empty",
	Summary:  "A prompt, instructions or always-on file with no text outside its header and comments.",
	Kinds:    "prompt, instr, memory",
	Severity: "Info [I]: consumers load it and nothing happens; no consumer reports it.",
}

// emptyBody reports a file whose Markdown body holds nothing but
// whitespace and HTML comments.
func (m *mdFile) emptyBody(what, effect string) {
	if m.fm.Present && !m.fm.Closed {
		return // fm/unclosed: all of it is header
	}
	body := m.text[m.fm.Markdown.Start:m.fm.Markdown.End]
	text := string(body)
	for {
		i := strings.Index(text, "<!--")
		if i < 0 {
			break
		}
		j := strings.Index(text[i:], "-->")
		if j < 0 {
			text = text[:i]
			break
		}
		text = text[:i] + text[i+j+3:]
	}
	if strings.TrimSpace(text) != "" {
		return
	}
	span := line1(m.text)
	if m.fm.Present {
		span = m.header()
	}
	m.r.add(model.Diagnostic{Rule: bodyEmpty.ID, Severity: model.SeverityInfo, Span: span,
		Message: "This " + what + " has no text: " + effect + "."})
}

var memoryAgentsMd = &Rule{
	ID:       "memory/agents-md",
	Fix:      FixUnsafe,
	FixWhy:   "creates a file",
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

var memoryImportDepth = &Rule{
	ID:       "memory/import-depth",
	Summary:  "@path imports in CLAUDE.md chain more than five hops deep; Claude Code does not follow them further.",
	Kinds:    "memory",
	Severity: "CC LOSE (files past the fifth hop are not loaded, documented).",
	Evidence: []Evidence{
		{"CC", "LOSE", "code.claude.com/docs/en/memory, imports: imported files can import further files recursively, \"with a maximum depth of five hops\" (documented; not observed in a run)"},
	},
}

var memoryImportCycle = &Rule{
	ID:       "memory/import-cycle",
	Summary:  "An @path import in CLAUDE.md leads back to the file itself.",
	Kinds:    "memory",
	Severity: "Info [I]: a cycle adds nothing; which file's text comes first is not documented.",
}

var memorySize = &Rule{
	ID:       "memory/size",
	Summary:  "A CLAUDE.md longer than 40,000 characters, which Claude Code flags in its status view.",
	Kinds:    "memory",
	Severity: "CC WARN (\"Large CLAUDE.md will impact performance\"; the file still loads whole).",
	Evidence: []Evidence{
		{"CC", "WARN", "Claude Code 2.1.332 status notices: `Large ${path} will impact performance (${n} chars > ${limit})` for a User, Project, Local or Managed memory file over max(40000, 5% of the context window in characters) = 40,000 characters at a 200k context"},
	},
}

var memoryCodexSize = &Rule{
	ID:       "memory/codex-size",
	Summary:  "An AGENTS.md (or AGENTS.override.md) over 32 KiB: Codex reads at most 32 KiB of project docs, all of them together, and cuts the rest.",
	Kinds:    "memory",
	Severity: "CX LOSE (Warning when Codex is a configured target; Info otherwise, as AGENTS.md alone names no one agent).",
	Evidence: []Evidence{
		{"CX", "LOSE", "openai/codex@0cf644af codex-rs/core/src/agents_md.rs read_agents_md: `data.truncate(remaining)` with \"Project doc exceeds remaining budget - truncating\"; project_doc_max_bytes defaults to 32 * 1024 (codex-rs/config/src/config_toml.rs DEFAULT_PROJECT_DOC_MAX_BYTES)"},
	},
}

// codexDocBudget is Codex's default project_doc_max_bytes.
const codexDocBudget = 32 * 1024

// maxImportHops is how deep Claude Code follows @imports.
const maxImportHops = 5

// memorySizeLimit is the character count (UTF-16 units, JavaScript's
// length) above which Claude Code calls a memory file large.
const memorySizeLimit = 40000

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

var atImport = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[\s(])@([A-Za-z0-9_./~-][^\s)]*)`) })

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
	if (base == "AGENTS.md" || base == "AGENTS.override.md") && len(m.text) > codexDocBudget {
		msg := fmt.Sprintf("Codex reads at most %d bytes of AGENTS.md files, all of them together; this one alone has %d, so its end is cut.", codexDocBudget, len(m.text))
		v := model.Verdicts{model.TargetCodex: model.Lose}
		if !m.r.has(model.TargetCodex) {
			// AGENTS.md names no one agent: Codex's loss is ahpls' own
			// note, with no verdict of a consumer nobody targeted (a verdict
			// would claim a consequence for a consumer outside the set).
			m.r.add(model.Diagnostic{Rule: memoryCodexSize.ID, Severity: model.SeverityInfo, Span: line1(m.text), Message: msg})
		} else {
			m.report(memoryCodexSize, line1(m.text), v, msg)
		}
	}
	if strings.HasPrefix(base, "CLAUDE") {
		m.checkImports()
		m.importChains()
		if n := utf16Len(m.text); n > memorySizeLimit {
			m.report(memorySize, line1(m.text), model.Verdicts{model.TargetClaudeCode: model.Warn},
				fmt.Sprintf("{T} warn{s} that this file will impact performance: %d characters, over %d.", n, memorySizeLimit))
		}
	}
	m.checkLinks()
	m.memorySecrets()
	m.emptyBody("always-on instructions file", "it adds nothing to a session")
}

// checkImports reports @path imports whose folder exists but file does
// not; anything else (`@user`, `@scope/pkg`) is text.
func (m *mdFile) checkImports() {
	if m.f.FS == nil {
		return
	}
	m.scanBody(func(line []byte, off int) {
		for _, loc := range atImport().FindAllSubmatchIndex(line, -1) {
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

func utf16Len(b []byte) int {
	n := 0
	for _, r := range string(b) {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// importRef is one @path import of a file whose target exists.
type importRef struct {
	start, end int
	rel        string // the target, workspace-relative
}

// importsOf lists a memory file's @path imports that resolve to a file,
// with code and comments left out as Claude Code does.
func (m *mdFile) importsOf(rel string, text []byte) []importRef {
	other := &mdFile{text: text, fm: Frontmatter{Markdown: model.Span{Start: 0, End: len(text)}}}
	var out []importRef
	other.scanBody(func(line []byte, off int) {
		if bytes.IndexByte(line, '@') < 0 {
			return // nearly every line of a large reference file: no regexp run
		}
		for _, loc := range atImport().FindAllSubmatchIndex(line, -1) {
			p := strings.TrimRight(string(line[loc[2]:loc[3]]), ".,;:")
			if strings.HasPrefix(p, "~") || strings.HasPrefix(p, "/") || !strings.ContainsAny(p, "/.") {
				continue
			}
			full := path.Join(path.Dir(rel), p)
			if full == ".." || strings.HasPrefix(full, "../") {
				continue
			}
			if fi, err := m.f.FS.Stat(full); err != nil || fi.IsDir() {
				continue
			}
			out = append(out, importRef{start: off + loc[2], end: off + loc[2] + len(p), rel: full})
		}
	})
	return out
}

// importWalk measures import chains below a file. Each file is read and
// scanned once per check, however often it is imported (a 5 KB CLAUDE.md
// importing one 4 MB file 300 times read it 300 times, 26 s of CPU: issue
// 39), and the walk reads at most importBudget files and importByteBudget
// bytes in all.
type importWalk struct {
	m      *mdFile
	onPath map[string]bool
	done   map[string]importDepth
	budget int
	bytes  int
}

// importDepth is what the walk learned below one file: how many further
// hops, along which chain, and whether some chain leads back to the
// checked file.
type importDepth struct {
	hops   int
	chain  []string
	cyclic bool
}

const (
	importBudget     = 200
	importByteBudget = 32 << 20
)

// depth is what lies below rel (hops 0: it imports nothing). A file met
// again on the current chain (a cycle not through the checked file) counts
// as importing nothing there.
func (w *importWalk) depth(rel string) importDepth {
	if rel == w.m.f.Path {
		return importDepth{cyclic: true}
	}
	if d, ok := w.done[rel]; ok {
		return d
	}
	if w.onPath[rel] || w.budget <= 0 || w.bytes >= importByteBudget {
		return importDepth{}
	}
	w.budget--
	b, ok := w.m.readFile(rel)
	w.bytes += len(b)
	if !ok || w.bytes > importByteBudget {
		w.done[rel] = importDepth{}
		return importDepth{}
	}
	w.onPath[rel] = true
	var out importDepth
	for _, ref := range w.m.importsOf(rel, b) {
		d := w.depth(ref.rel)
		out.cyclic = out.cyclic || d.cyclic
		if d.hops+1 > out.hops {
			out.hops, out.chain = d.hops+1, append([]string{ref.rel}, d.chain...)
		}
	}
	delete(w.onPath, rel)
	w.done[rel] = out
	return out
}

// importChains reports imports that lead more than five hops deep or back
// to this file.
func (m *mdFile) importChains() {
	if m.f.FS == nil {
		return
	}
	if _, ok := m.f.FS.(WorkspaceReader); !ok {
		return
	}
	w := &importWalk{m: m, onPath: map[string]bool{}, done: map[string]importDepth{}, budget: importBudget}
	for _, ref := range m.importsOf(m.f.Path, m.text) {
		d := w.depth(ref.rel)
		span := model.Span{Start: ref.start, End: ref.end}
		if hops := d.hops + 1; hops > maxImportHops {
			chain := append([]string{ref.rel}, d.chain...)
			m.report(memoryImportDepth, span, model.Verdicts{model.TargetClaudeCode: model.Lose},
				fmt.Sprintf("{T} stop{s} following imports after %d hops; this one leads %d deep, so %s is not loaded.", maxImportHops, hops, q(chain[len(chain)-1])))
		}
		if d.cyclic {
			m.r.add(model.Diagnostic{Rule: memoryImportCycle.ID, Severity: model.SeverityInfo, Span: span,
				Message: "This import leads back to this file (an import cycle); the cycle adds nothing."})
		}
	}
}
