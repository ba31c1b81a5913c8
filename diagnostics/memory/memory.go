package memory

// Always-on files: AGENTS.md, CLAUDE*.md, .github/copilot-instructions.md,
// GEMINI.md (customization-formats.md §5.4). They are plain Markdown: no
// header rules.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/shared"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"bytes"
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ahpls-dev/ahpls/model"
)

// MemoryRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var MemoryRules = []*core.Rule{memoryAgentsMd, memoryImport, memoryImportDepth, memoryImportCycle, memorySize, MemoryCodexSize, memoryWindsurfSize, core.BodyEmpty}

var memoryAgentsMd = &core.Rule{
	ID:       "memory/agents-md",
	Fix:      core.FixUnsafe,
	FixWhy:   "creates a file",
	Summary:  "AGENTS.md that Claude Code never reads (no CLAUDE.md imports it).",
	Kinds:    "memory",
	Severity: "CC IGN (reads only CLAUDE*.md).",
}

var memoryImport = &core.Rule{
	ID:       "memory/import",
	Summary:  "An @path import in CLAUDE.md whose file is missing.",
	Kinds:    "memory",
	Severity: "CC LOSE.",
}

var memoryImportDepth = &core.Rule{
	ID:       "memory/import-depth",
	Summary:  "@path imports in CLAUDE.md chain more than five hops deep; Claude Code does not follow them further.",
	Kinds:    "memory",
	Severity: "CC LOSE (files past the fifth hop are not loaded, documented).",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "LOSE", Source: "code.claude.com/docs/en/memory, imports: imported files can import further files recursively, \"with a maximum depth of five hops\" (documented; not observed in a run)"},
	},
}

var memoryImportCycle = &core.Rule{
	ID:       "memory/import-cycle",
	Summary:  "An @path import in CLAUDE.md leads back to the file itself.",
	Kinds:    "memory",
	Severity: "Info [I]: a cycle adds nothing; which file's text comes first is not documented.",
}

var memorySize = &core.Rule{
	ID:       "memory/size",
	Summary:  "A CLAUDE.md longer than 40,000 characters, which Claude Code flags in its status view.",
	Kinds:    "memory",
	Severity: "CC WARN (\"Large CLAUDE.md will impact performance\"; the file still loads whole).",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "WARN", Source: "Claude Code 2.1.332 status notices: `Large ${path} will impact performance (${n} chars > ${limit})` for a User, Project, Local or Managed memory file over max(40000, 5% of the context window in characters) = 40,000 characters at a 200k context"},
	},
}

var MemoryCodexSize = &core.Rule{
	ID:       "memory/codex-size",
	Summary:  "An AGENTS.md (or AGENTS.override.md) over 32 KiB: Codex reads at most 32 KiB of project docs, all of them together, and cuts the rest.",
	Kinds:    "memory",
	Severity: "CX LOSE (Warning when Codex is a configured target; Info otherwise, as AGENTS.md alone names no one agent).",
	Evidence: []core.Evidence{
		{Consumer: "CX", Reaction: "LOSE", Source: "openai/codex@0cf644af codex-rs/core/src/agents_md.rs read_agents_md: `data.truncate(remaining)` with \"Project doc exceeds remaining budget - truncating\"; project_doc_max_bytes defaults to 32 * 1024 (codex-rs/config/src/config_toml.rs DEFAULT_PROJECT_DOC_MAX_BYTES)"},
	},
}

var memoryWindsurfSize = &core.Rule{
	ID:       "memory/windsurf-size",
	Summary:  "An AGENTS.md over 12,000 characters, for Windsurf: it reads AGENTS.md through the rules engine of .windsurf/rules, whose rule files are limited to 12,000 characters each.",
	Kinds:    "memory",
	Severity: "WS ? (Info): the documentation puts AGENTS.md in the rules engine and limits rule files to 12,000 characters, but does not say the limit applies to AGENTS.md.",
	Evidence: []core.Evidence{
		{Consumer: "WS", Reaction: "?", Source: "docs.windsurf.com/windsurf/cascade/agents-md (read 2026-12-06 through its stored Japanese copy): Windsurf detects AGENTS.md and feeds it into the same Rules engine that powers .windsurf/rules/, the root one always on, a sub-folder's as a glob rule; Memories & Rules: rule files are limited to 12,000 characters each"},
	},
}

// codexDocBudget is Codex's default project_doc_max_bytes.
const codexDocBudget = 32 * 1024

// maxImportHops is how deep Claude Code follows @imports.
const maxImportHops = 5

// memorySizeLimit is the character count (UTF-16 units, JavaScript's
// length) above which Claude Code calls a memory file large.
const memorySizeLimit = 40000

var atImport = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[\s(])@([A-Za-z0-9_./~-][^\s)]*)`) })

func CheckMemory(f core.File, r *core.Reporter) {
	m := core.NewMD(f, r)
	// Plain Markdown: a leading '---' is a rule, not a header.
	m.Fm = syntax.Frontmatter{CR: m.Fm.CR, BOM: m.Fm.BOM, Markdown: model.Span{Start: 0, End: len(f.Text)}}
	base := path.Base(f.Path)
	if base == "AGENTS.md" && m.F.FS != nil {
		dir := path.Dir(f.Path)
		imported := false
		for _, c := range []string{"CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"} {
			p := path.Join(dir, c)
			if _, err := m.F.FS.Stat(p); err != nil {
				continue
			}
			b, ok := m.ReadFile(p)
			if !ok || strings.Contains(string(b), "@AGENTS.md") || strings.Contains(string(b), "@./AGENTS.md") {
				imported = true // unreadable: assume it imports AGENTS.md
			}
		}
		if !imported {
			m.Report(memoryAgentsMd, core.Line1(m.Text), model.Verdicts{model.TargetClaudeCode: model.Ignore},
				"{T} ignore{s} AGENTS.md: it reads only CLAUDE.md files; add a CLAUDE.md containing '@AGENTS.md'.",
				model.Fix{Title: "Create CLAUDE.md importing AGENTS.md", Edits: []model.Edit{{Path: path.Join(dir, "CLAUDE.md"), NewText: "@AGENTS.md\n"}}})
		}
	}
	if (base == "AGENTS.md" || base == "AGENTS.override.md") && len(m.Text) > codexDocBudget {
		msg := fmt.Sprintf("Codex reads at most %d bytes of AGENTS.md files, all of them together; this one alone has %d, so its end is cut.", codexDocBudget, len(m.Text))
		v := model.Verdicts{model.TargetCodex: model.Lose}
		if !m.R.Has(model.TargetCodex) {
			// AGENTS.md names no one agent: Codex's loss is ahpls' own
			// note, with no verdict of a consumer nobody targeted (a verdict
			// would claim a consequence for a consumer outside the set);
			// none when the run names its consumers and Codex is not one.
			if !m.R.Opts.NoImpliedTargets {
				m.R.Add(model.Diagnostic{Rule: MemoryCodexSize.ID, Severity: model.SeverityInfo, Span: core.Line1(m.Text), Message: msg})
			}
		} else {
			m.Report(MemoryCodexSize, core.Line1(m.Text), v, msg)
		}
	}
	if base == "AGENTS.md" {
		if n := utf8.RuneCount(m.Text); n > model.WindsurfRuleChars {
			m.R.Verdict(memoryWindsurfSize, core.Line1(m.Text), model.Verdicts{model.TargetWindsurf: model.Unknown},
				fmt.Sprintf("Windsurf reads AGENTS.md through the rules engine of .windsurf/rules, whose rule files are limited to %d characters; this one has %d, so Cascade may not see its end.", model.WindsurfRuleChars, n))
		}
	}
	if strings.HasPrefix(base, "CLAUDE") {
		checkImports(m)
		importChains(m)
		if n := syntax.UTF16Len(m.Text); n > memorySizeLimit {
			m.Report(memorySize, core.Line1(m.Text), model.Verdicts{model.TargetClaudeCode: model.Warn},
				fmt.Sprintf("{T} warn{s} that this file will impact performance: %d characters, over %d.", n, memorySizeLimit))
		}
	}
	shared.CheckLinks(m)
	shared.MemorySecrets(m)
	m.EmptyBody("always-on instructions file", "it adds nothing to a session")
}

// checkImports reports @path imports whose folder exists but file does
// not; anything else (`@user`, `@scope/pkg`) is text.
func checkImports(m *core.MDFile) {
	if m.F.FS == nil {
		return
	}
	shared.ScanBody(m, func(line []byte, off int) {
		for _, loc := range atImport().FindAllSubmatchIndex(line, -1) {
			p := strings.TrimRight(string(line[loc[2]:loc[3]]), ".,;:")
			if strings.HasPrefix(p, "~") || !strings.ContainsAny(p, "/.") {
				continue
			}
			full := path.Join(path.Dir(m.F.Path), p)
			if full == ".." || strings.HasPrefix(full, "../") {
				continue
			}
			if _, err := m.F.FS.Stat(full); err == nil {
				continue
			}
			dir := path.Dir(full)
			if fi, err := m.F.FS.Stat(dir); dir != "." && (err != nil || !fi.IsDir()) {
				continue
			}
			m.Report(memoryImport, model.Span{Start: off + loc[2], End: off + loc[2] + len(p)}, model.Verdicts{model.TargetClaudeCode: model.Lose},
				"{T} skip{s} import "+syntax.Quote("@"+p)+": the file does not exist.")
		}
	})
}

// importRef is one @path import of a file whose target exists.
type importRef struct {
	start, end int
	rel        string // the target, workspace-relative
}

// importsOf lists a memory file's @path imports that resolve to a file,
// with code and comments left out as Claude Code does.
func importsOf(m *core.MDFile, rel string, text []byte) []importRef {
	other := &core.MDFile{Text: text, Fm: syntax.Frontmatter{Markdown: model.Span{Start: 0, End: len(text)}}}
	var out []importRef
	shared.ScanBody(other, func(line []byte, off int) {
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
			if fi, err := m.F.FS.Stat(full); err != nil || fi.IsDir() {
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
	m      *core.MDFile
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
	ImportByteBudget = 32 << 20
)

// depth is what lies below rel (hops 0: it imports nothing). A file met
// again on the current chain (a cycle not through the checked file) counts
// as importing nothing there.
func (w *importWalk) depth(rel string) importDepth {
	if rel == w.m.F.Path {
		return importDepth{cyclic: true}
	}
	if d, ok := w.done[rel]; ok {
		return d
	}
	if w.onPath[rel] || w.budget <= 0 || w.bytes >= ImportByteBudget {
		return importDepth{}
	}
	w.budget--
	b, ok := w.m.ReadFile(rel)
	w.bytes += len(b)
	if !ok || w.bytes > ImportByteBudget {
		w.done[rel] = importDepth{}
		return importDepth{}
	}
	w.onPath[rel] = true
	var out importDepth
	for _, ref := range importsOf(w.m, rel, b) {
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
func importChains(m *core.MDFile) {
	if m.F.FS == nil {
		return
	}
	if _, ok := m.F.FS.(core.WorkspaceReader); !ok {
		return
	}
	w := &importWalk{m: m, onPath: map[string]bool{}, done: map[string]importDepth{}, budget: importBudget}
	for _, ref := range importsOf(m, m.F.Path, m.Text) {
		d := w.depth(ref.rel)
		span := model.Span{Start: ref.start, End: ref.end}
		if hops := d.hops + 1; hops > maxImportHops {
			chain := append([]string{ref.rel}, d.chain...)
			m.Report(memoryImportDepth, span, model.Verdicts{model.TargetClaudeCode: model.Lose},
				fmt.Sprintf("{T} stop{s} following imports after %d hops; this one leads %d deep, so %s is not loaded.", maxImportHops, hops, syntax.Quote(chain[len(chain)-1])))
		}
		if d.cyclic {
			m.R.Add(model.Diagnostic{Rule: memoryImportCycle.ID, Severity: model.SeverityInfo, Span: span,
				Message: "This import leads back to this file (an import cycle); the cycle adds nothing."})
		}
	}
}
