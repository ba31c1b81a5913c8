package kiro

// Kiro steering files (issue #38): .kiro/steering/*.md, Markdown with an
// optional YAML header whose `inclusion` decides when Kiro adds the file to
// the agent's context (always, the default; fileMatch with
// fileMatchPattern; manual, by #name in chat; auto, by its description),
// and `#[[file:path]]` references that pull a workspace file in. Kiro is
// closed source: every reaction here comes from its documentation
// (kiro.dev/docs/steering, read 2026-12-05), which says what each field
// does but not what Kiro does with a wrong one, so every rule is Info at
// most. The page was read through stored copies: its text of 2025-10-13
// (always, fileMatch with fileMatchPattern, manual; #[[file:...]]
// references; YAML front matter at the very top), mirrored with its source
// URL in brunogama/dotfiles@3302409c
// ai_docs/knowledge_base/ide/kiro/steering-documentation.md; its later
// revision's capability table (inclusion modes, AGENTS.md support), quoted
// line by line in a translation of 2026-09-27
// (qiita.com/mochizukiaiichiro/items/ee29e72e554d69e1210d); the auto mode
// (name, description) as kirodotdev/Kiro#9176 (Kiro 0.12.263) reports it
// working.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/shared"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"bytes"
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// KiroRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var KiroRules = []*core.Rule{kiroHeader, kiroInclusion, kiroPatternMissing, kiroPatternUnused, kiroAutoDescription, kiroUnknownKey, kiroFileRef}

// kiroDocs is Kiro's page on steering.
const kiroDocs = "kiro.dev/docs/steering (read 2026-12-05)"

// kiroInclusions are the inclusion modes the documentation names.
var kiroInclusions = []string{"always", "fileMatch", "manual", "auto"}

// kiroKeys are the header fields the documentation names.
var kiroKeys = []string{"inclusion", "fileMatchPattern", "name", "description"}

var kiroHeader = &core.Rule{
	ID:       "kiro/header",
	Summary:  "The steering file's `---` header is not a YAML mapping (it does not parse, is not closed, or holds no `key: value` pairs), so its inclusion mode may not be read.",
	Kinds:    "kiro",
	Severity: "KI ? (Info): the documentation says the header is YAML at the very top between `---` lines, not what Kiro does with one that is not.",
	Evidence: []core.Evidence{
		{Consumer: "KI", Reaction: "?", Source: kiroDocs + ": inclusion modes are set in front matter, YAML at the very top of the file between `---` lines"},
	},
}

var kiroInclusion = &core.Rule{
	ID:       "kiro/inclusion",
	Summary:  "`inclusion` is none of always, fileMatch, manual and auto.",
	Kinds:    "kiro",
	Severity: "KI ? (Info): the documentation lists those modes; what Kiro does with another value is not documented.",
	Evidence: []core.Evidence{
		{Consumer: "KI", Reaction: "?", Source: kiroDocs + ": the inclusion modes are always (the default), fileMatch, manual and auto"},
	},
}

var kiroPatternMissing = &core.Rule{
	ID:       "kiro/pattern-missing",
	Summary:  "`inclusion: fileMatch` without a `fileMatchPattern`: no file pattern says when Kiro includes the steering file.",
	Kinds:    "kiro",
	Severity: "KI ? (Info): the documentation pairs fileMatch with fileMatchPattern and does not say what Kiro does without one.",
	Evidence: []core.Evidence{
		{Consumer: "KI", Reaction: "?", Source: kiroDocs + ": conditional inclusion is `inclusion: fileMatch` with `fileMatchPattern`, included when a file matching the pattern is in context"},
	},
}

var kiroPatternUnused = &core.Rule{
	ID:       "kiro/pattern-unused",
	Summary:  "`fileMatchPattern` in a steering file whose inclusion is not fileMatch.",
	Kinds:    "kiro",
	Severity: "KI IGN? (Hint): the documentation uses the pattern for fileMatch inclusion only.",
	Evidence: []core.Evidence{
		{Consumer: "KI", Reaction: "IGN?", Source: kiroDocs + ": fileMatchPattern belongs to `inclusion: fileMatch`"},
	},
}

var kiroAutoDescription = &core.Rule{
	ID:       "kiro/auto-description",
	Summary:  "`inclusion: auto` without a `description`: Kiro decides whether to include the file from its description.",
	Kinds:    "kiro",
	Severity: "KI ? (Info): the documentation gives auto steering a name and a description to match requests against, and does not say what happens without one.",
	Evidence: []core.Evidence{
		{Consumer: "KI", Reaction: "?", Source: kiroDocs + " and kirodotdev/Kiro#9176 (Kiro 0.12.263): auto inclusion includes the file when a request matches its description"},
	},
}

var kiroUnknownKey = &core.Rule{
	ID:       "kiro/unknown-key",
	Summary:  "A header field other than inclusion, fileMatchPattern, name and description.",
	Kinds:    "kiro",
	Severity: "KI IGN? (Hint): the documentation names only those fields.",
	Evidence: []core.Evidence{
		{Consumer: "KI", Reaction: "IGN?", Source: kiroDocs + ": the front matter fields are inclusion, fileMatchPattern, name and description"},
	},
}

var kiroFileRef = &core.Rule{
	ID:       "kiro/file-ref",
	Summary:  "A `#[[file:path]]` reference names no file of the workspace, so there is nothing for Kiro to include (one in fenced code or a code span is an example of the syntax and is not checked).",
	Kinds:    "kiro",
	Severity: "KI ? (Info): the documentation says a reference includes the named workspace file, not what Kiro does when it is missing.",
	Evidence: []core.Evidence{
		{Consumer: "KI", Reaction: "?", Source: kiroDocs + ": `#[[file:<relative_file_name>]]` links a live project file (`#[[file:api/openapi.yaml]]`); \"Test file references after restructuring\""},
	},
}

func CheckKiroSteering(f core.File, r *core.Reporter) {
	fm := syntax.SplitFrontmatter(f.Text)
	if fm.Present {
		kiroHeaderRules(f, fm, r)
	}
	start := 0
	if fm.Present && fm.Closed {
		start = fm.Markdown.Start
	}
	kiroFileRefs(f, start, r)
}

// kiroUnknown is the verdict of every rule whose reaction Kiro's
// documentation does not spell out.
func kiroUnknown() model.Verdicts { return model.Verdicts{model.TargetKiro: model.Unknown} }

func kiroHeaderRules(f core.File, fm syntax.Frontmatter, r *core.Reporter) {
	if !fm.Closed {
		r.Verdict(kiroHeader, fm.Open, kiroUnknown(),
			"This header is never closed with `---`: Kiro may not read its inclusion mode.")
		return
	}
	base := fm.Body.Start
	doc, perr := syntax.ParseYAML(f.Text[fm.Body.Start:fm.Body.End], func(o int) int { return base + o })
	if perr != nil {
		r.Verdict(kiroHeader, perr.Span, kiroUnknown(),
			"This header is not valid YAML ("+perr.Msg+"): Kiro may not read its inclusion mode.")
		return
	}
	if doc.Root == nil {
		return // an empty header: always included, as with none
	}
	if doc.Root.Kind != yaml.MappingNode {
		r.Verdict(kiroHeader, doc.Span(doc.Root), kiroUnknown(),
			"This header holds no `key: value` fields: Kiro reads its inclusion mode from one.")
		return
	}
	fields := map[string]*yaml.Node{}
	for i := 0; i+1 < len(doc.Root.Content); i += 2 {
		k, v := doc.Root.Content[i], doc.Root.Content[i+1]
		key, _ := core.Str(k)
		fields[key] = v
		if !slices.Contains(kiroKeys, key) {
			r.Verdict(kiroUnknownKey, doc.KeySpan(k), model.Verdicts{model.TargetKiro: model.Ignore.Unverified()},
				"Kiro's steering files use inclusion, fileMatchPattern, name and description; `"+core.JClip(key)+"` is not one of them.")
		}
	}
	inclusion := "always"
	if v, ok := fields["inclusion"]; ok {
		s, isStr := core.Str(v)
		if !isStr || !slices.Contains(kiroInclusions, s) {
			r.Verdict(kiroInclusion, doc.Span(v), kiroUnknown(),
				"`inclusion` should be always, fileMatch, manual or auto; Kiro's documentation says nothing of "+core.ClipQuote(s)+".")
			return
		}
		inclusion = s
	}
	pattern, hasPattern := fields["fileMatchPattern"]
	switch {
	case inclusion == "fileMatch" && (!hasPattern || kiroEmpty(pattern)):
		r.Verdict(kiroPatternMissing, doc.Span(fields["inclusion"]), kiroUnknown(),
			"`inclusion: fileMatch` needs a `fileMatchPattern`: without one no file pattern says when Kiro includes this steering file.")
	case inclusion != "fileMatch" && hasPattern:
		r.Verdict(kiroPatternUnused, doc.Span(pattern), model.Verdicts{model.TargetKiro: model.Ignore.Unverified()},
			"Kiro uses `fileMatchPattern` with `inclusion: fileMatch`; this file's inclusion is "+inclusion+".")
	}
	if d, ok := fields["description"]; inclusion == "auto" && (!ok || kiroEmpty(d)) {
		r.Verdict(kiroAutoDescription, doc.Span(fields["inclusion"]), kiroUnknown(),
			"`inclusion: auto` needs a `description`: Kiro includes the file when a request matches it.")
	}
}

// kiroEmpty reports a null, blank or empty-list value.
func kiroEmpty(v *yaml.Node) bool {
	if v.Kind == yaml.SequenceNode {
		return len(v.Content) == 0
	}
	s, ok := core.Str(v)
	return v.Kind == yaml.ScalarNode && (syntax.IsNull(v) || ok && strings.TrimSpace(s) == "")
}

// kiroRefOpen starts a file reference.
const kiroRefOpen = "#[[file:"

// kiroFileRefs reports `#[[file:path]]` references (outside fenced code
// and code spans) to paths that do not exist, relative to the folder that
// holds .kiro (the workspace Kiro opened). Without a file system nothing is reported.
func kiroFileRefs(f core.File, start int, r *core.Reporter) {
	if f.FS == nil || !bytes.Contains(f.Text[start:], []byte(kiroRefOpen)) {
		return
	}
	root := ""
	if i := strings.LastIndex(f.Path, ".kiro/steering/"); i > 0 {
		root = f.Path[:i]
	}
	fence := false
	for pos := start; pos < len(f.Text); {
		end, next := syntax.LineAt(f.Text, pos)
		line := f.Text[pos:end]
		if t := bytes.TrimLeft(line, " \t"); bytes.HasPrefix(t, []byte("```")) || bytes.HasPrefix(t, []byte("~~~")) {
			fence = !fence
		}
		if !fence && bytes.IndexByte(line, '`') >= 0 {
			// A reference inside a `code` span shows the syntax (a
			// placeholder like `#[[file:path]]`), as one in a fence does.
			line = append([]byte(nil), line...)
			shared.BlankCodeSpans(line)
		}
		for off := 0; !fence; {
			i := bytes.Index(line[off:], []byte(kiroRefOpen))
			if i < 0 {
				break
			}
			s := off + i
			e := bytes.Index(line[s:], []byte("]]"))
			if e < 0 {
				break
			}
			ref := strings.TrimSpace(string(line[s+len(kiroRefOpen) : s+e]))
			off = s + e + 2
			target := path.Clean(root + ref)
			if ref == "" || path.IsAbs(ref) || target == ".." || strings.HasPrefix(target, "../") {
				continue // nothing Kiro's workspace would hold, or not ours to judge
			}
			if _, err := f.FS.Stat(target); err == nil {
				continue
			}
			r.Verdict(kiroFileRef, model.Span{Start: pos + s, End: pos + off}, kiroUnknown(),
				"No file "+core.ClipQuote(ref)+" exists in this workspace: the reference includes nothing.")
		}
		if next <= pos {
			break
		}
		pos = next
	}
}
