package cline

// Cline rules (issue #38): the workspace's .clinerules, one file or a
// folder of rule files, and .cline/rules. Cline is open source; every
// reaction here is read from its code at cline/cline@21cb8d25
// (2026-08-22), where the VS Code extension and the CLI run their sessions
// through Cline's SDK (apps/vscode/src/sdk/vscode-session-host.ts starts
// ClineCore with the "rules" config extension). The SDK's rule loader,
// sdk/packages/core/src/extensions/config/user-instruction-config-loader.ts:
//   - discoverRulesLikeFiles takes a path that is a file as one rule, and
//     otherwise one readdir of the folder, keeping the entries that are
//     files with a .md, .markdown or .txt extension (isMarkdownFile):
//     sub-folders are not entered;
//   - parseMarkdownFrontmatter strips a UTF-8 BOM and matches
//     /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/ (the header must open
//     on the very first line; it ends at the first line starting with ---),
//     and parses it with the `yaml` package (YAML 1.2);
//   - parseRuleConfigFromMarkdown throws on a parse error, on a rule
//     without text after its header, on a `name` that is not a string and
//     on a `disabled` or `enabled` that is not a boolean; the watcher
//     (unified-config-file-watcher.ts loadDefinition) catches the throw and
//     records no rule for the file.
//
// sdk/packages/core/src/runtime/safety/rules.ts then puts every enabled
// rule into the system prompt: nothing reads the rest of the header. The
// `paths:` conditionals of Cline's documentation (docs/customization/
// cline-rules.mdx) are evaluated only by the extension's older loader
// (apps/vscode/src/core/context/instructions/user-instructions/
// rule-helpers.ts getRuleFilesTotalContentWithMetadata), which nothing
// calls at this commit; that loader also failed open on a header that does
// not parse, where the SDK's drops the rule.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"bytes"
	"path"
	"slices"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// ClineRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var ClineRules = []*core.Rule{clineNested, clineExtension, clineHeader, clineFieldType, clineEmpty, clineHeaderText, clineUnusedKey}

// clineLoader is the SDK's rule loader at the pinned commit.
const clineLoader = "cline/cline@21cb8d25 sdk/packages/core/src/extensions/config/user-instruction-config-loader.ts"

// clineDrop is how the loader drops a rule whose parse throws.
const clineDrop = "; unified-config-file-watcher.ts loadDefinition catches the throw and records no rule for the file"

var clineNested = &core.Rule{
	ID:        "cline/nested",
	WholeFile: true,
	Summary:   "A file in a sub-folder of .clinerules or .cline/rules: Cline reads only the files directly in the folder.",
	Kinds:     "cline",
	Severity:  "CN SKIP (Error); CN LINKED (Info) when a rule directly in the folder names the sub-folder (a memory bank in .clinerules/memory-bank/ that a rule tells Cline to read).",
	Evidence: []core.Evidence{
		{Consumer: "CN", Reaction: "SKIP", Source: clineLoader + " discoverRulesLikeFiles: one readdir of the folder, keeping `entry.isFile() && isMarkdownFile(entry.name)`; sub-folders are not entered (.clinerules/workflows is read as workflows, .clinerules/skills as skills)"},
		{Consumer: "CN", Reaction: "LINKED", Source: clineLoader + " does not load it; a loaded rule that names its folder (\"read ALL memory bank files\") can have Cline read it with its file tools: it reaches the model only when the model follows that rule"},
	},
}

var clineExtension = &core.Rule{
	ID:        "cline/extension",
	WholeFile: true,
	Summary:   "A rule file whose extension is not .md, .markdown or .txt (a Cursor .mdc, or a .clinerules file inside the .clinerules folder): Cline does not read it.",
	Kinds:     "cline",
	Severity:  "CN SKIP (Error).",
	Evidence: []core.Evidence{
		{Consumer: "CN", Reaction: "SKIP", Source: clineLoader + ": MARKDOWN_EXTENSIONS = .md, .markdown, .txt; discoverRulesLikeFiles keeps only those from the folder's readdir (isMarkdownFile; extname(\".clinerules\") is empty, so a .clinerules file inside the folder is skipped too); includeFile's `.clinerules` case is the root file, read when .clinerules is a file"},
	},
}

var clineHeader = &core.Rule{
	ID:        "cline/header",
	WholeFile: true,
	Summary:   "The rule's `---` header is not valid YAML (a syntax error, an unquoted `*` glob, a repeated key): Cline drops the whole rule.",
	Kinds:     "cline",
	Severity:  "CN SKIP (Error).",
	Evidence: []core.Evidence{
		{Consumer: "CN", Reaction: "SKIP", Source: clineLoader + " parseRuleConfigFromMarkdown: a YAML.parse error throws \"Failed to parse YAML frontmatter\"" + clineDrop},
	},
}

var clineFieldType = &core.Rule{
	ID:        "cline/field-type",
	WholeFile: true,
	Summary:   "`name` is not a string, or `disabled` or `enabled` is not a boolean: Cline drops the whole rule.",
	Kinds:     "cline",
	Severity:  "CN SKIP (Error).",
	Evidence: []core.Evidence{
		{Consumer: "CN", Reaction: "SKIP", Source: clineLoader + " parseRuleConfigFromMarkdown: parseStringField throws \"Frontmatter field 'name' must be a string.\", parseBooleanField \"… must be a boolean.\"" + clineDrop},
	},
}

var clineEmpty = &core.Rule{
	ID:        "cline/empty",
	WholeFile: true,
	Summary:   "The rule has no text after its header: Cline does not load it.",
	Kinds:     "cline",
	Severity:  "CN SKIP (Error).",
	Evidence: []core.Evidence{
		{Consumer: "CN", Reaction: "SKIP", Source: clineLoader + " parseRuleConfigFromMarkdown: an empty `body.trim()` throws \"Missing instructions body in rule file.\"" + clineDrop},
	},
}

var clineHeaderText = &core.Rule{
	ID:       "cline/header-text",
	Summary:  "A `---` header Cline does not see as one (not on the first line, or never closed): the rule loads with its header lines as text and its name, disabled and enabled unread.",
	Kinds:    "cline",
	Severity: "CN LOSE (Warning) when the header sets name, disabled or enabled; else IGN (Hint).",
	Evidence: []core.Evidence{
		{Consumer: "CN", Reaction: "LOSE", Source: clineLoader + " parseMarkdownFrontmatter: the header must match /^---\\r?\\n([\\s\\S]*?)\\r?\\n---/ from the first byte (after a BOM); otherwise the whole text is the body and no field is read"},
		{Consumer: "CN", Reaction: "IGN", Source: clineLoader + " parseRuleConfigFromMarkdown reads only name, disabled and enabled: a header without them loses nothing Cline uses"},
	},
}

var clineUnusedKey = &core.Rule{
	ID:       "cline/unused-key",
	Summary:  "A header field other than name, disabled and enabled, such as `paths`: Cline loads the rule for every task and reads the field nowhere.",
	Kinds:    "cline",
	Severity: "CN IGN (Hint).",
	Evidence: []core.Evidence{
		{Consumer: "CN", Reaction: "IGN", Source: "cline/cline@21cb8d25 sdk/packages/core/src/runtime/safety/rules.ts listEnabledRulesFromWatcher keeps every rule whose `disabled` is not true; the `paths` evaluator (apps/vscode/src/core/context/instructions/user-instructions/rule-conditionals.ts) is called only from rule-helpers.ts getRuleFilesTotalContentWithMetadata, which nothing calls"},
	},
}

// clineFields are the header fields Cline's rule loader reads.
var clineFields = []string{"name", "disabled", "enabled"}

func CheckClineRule(f core.File, r *core.Reporter) {
	first := model.Span{Start: 0, End: core.FirstLineEnd(f.Text)}
	skip := model.Verdicts{model.TargetCline: model.Skip}
	if where, nested := clineNestedIn(f.Path); nested {
		sub, _, _ := strings.Cut(strings.TrimPrefix(f.Path, where+"/"), "/")
		if by := clineLinkedBy(f, where, sub); by != "" {
			r.Verdict(clineNested, first, model.Verdicts{model.TargetCline: model.LinkedOnly},
				"Cline does not load this file as a rule (it reads only the files directly in "+where+"/); "+by+" names "+sub+"/, so Cline reads it when it follows that rule.")
			return
		}
		r.Verdict(clineNested, first, skip,
			"Cline reads only the files directly in "+where+"/: this file in a sub-folder is not loaded.")
		return
	}
	legacy := path.Base(f.Path) == model.ClineRules && path.Base(path.Dir(f.Path)) != model.ClineRules
	if ext := strings.ToLower(path.Ext(f.Path)); !legacy && ext != ".md" && ext != ".markdown" && ext != ".txt" {
		r.Verdict(clineExtension, first, skip,
			"Cline reads rule files ending in .md, .markdown or .txt: this "+ext+" file is not loaded.")
		return
	}
	h := ClineSplit(f.Text)
	body := f.Text[h.BodyStart:]
	if h.Present {
		if !clineHeaderFields(f, h, r) {
			return
		}
	} else {
		clineUnseenHeader(f, r)
	}
	if len(bytes.TrimFunc(body, clineSpace)) == 0 {
		r.Verdict(clineEmpty, first, skip,
			"This rule has no text after its header: Cline does not load it.")
	}
}

// clineSpace is what JavaScript's String.prototype.trim removes.
func clineSpace(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' }

// clineLinkedBy names a rule file directly in folder where (one Cline
// loads) whose text names the sub-folder sub ("memory-bank/"), or "".
// Without a workspace that lists and reads files it finds none.
func clineLinkedBy(f core.File, where, sub string) string {
	ls, ok1 := f.FS.(core.WorkspaceLister)
	rd, ok2 := f.FS.(core.WorkspaceReader)
	if !ok1 || !ok2 || sub == "" {
		return ""
	}
	entries, err := ls.ReadDir(where)
	if err != nil {
		return ""
	}
	needle := []byte(sub + "/")
	for i, e := range entries {
		ext := strings.ToLower(path.Ext(e.Name()))
		if i >= 256 || e.IsDir() || ext != ".md" && ext != ".markdown" && ext != ".txt" {
			continue
		}
		b, err := rd.ReadFile(where + "/" + e.Name())
		if err == nil && len(b) <= core.MaxFileSize && bytes.Contains(b, needle) {
			return where + "/" + e.Name()
		}
	}
	return ""
}

// clineNestedIn reports a file below a sub-folder of .clinerules or
// .cline/rules, and names that folder.
func clineNestedIn(rel string) (string, bool) {
	segs := strings.Split(rel, "/")
	for i := range len(segs) - 1 {
		switch {
		case segs[i] == model.ClineRules:
			return strings.Join(segs[:i+1], "/"), i+2 < len(segs)
		case segs[i] == ".cline" && i+1 < len(segs)-1 && segs[i+1] == "rules":
			return strings.Join(segs[:i+2], "/"), i+3 < len(segs)
		}
	}
	return "", false
}

// clineHeaderSplit is a rule file cut as Cline's parseMarkdownFrontmatter
// cuts it.
type clineHeaderSplit struct {
	Present            bool
	YamlStart, YamlEnd int // the header's YAML, when present
	BodyStart          int // where the rule text starts (after a BOM when no header)
}

// ClineSplit cuts text as /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/
// does after a UTF-8 BOM is stripped: the YAML ends at the first "\n---"
// (or "\r\n---") at or after its start, whatever follows the dashes on
// that line, and the body starts after them and one optional line break.
func ClineSplit(text []byte) clineHeaderSplit {
	start := 0
	if bytes.HasPrefix(text, []byte("\uFEFF")) {
		start = 3
	}
	out := clineHeaderSplit{BodyStart: start}
	ys := start
	switch {
	case bytes.HasPrefix(text[start:], []byte("---\n")):
		ys += 4
	case bytes.HasPrefix(text[start:], []byte("---\r\n")):
		ys += 5
	default:
		return out
	}
	i := bytes.Index(text[ys:], []byte("\n---"))
	if i < 0 {
		return out
	}
	i += ys
	end := i
	if end > ys && text[end-1] == '\r' {
		end--
	}
	b := i + 4
	if b < len(text) && text[b] == '\r' {
		b++
	}
	if b < len(text) && text[b] == '\n' {
		b++
	}
	return clineHeaderSplit{Present: true, YamlStart: ys, YamlEnd: end, BodyStart: b}
}

// clineHeaderFields checks a header Cline sees; false when Cline drops
// the rule for it (nothing else is then reported).
func clineHeaderFields(f core.File, h clineHeaderSplit, r *core.Reporter) bool {
	skip := model.Verdicts{model.TargetCline: model.Skip}
	doc, perr := syntax.ParseYAML(f.Text[h.YamlStart:h.YamlEnd], func(o int) int { return h.YamlStart + o })
	if perr != nil {
		r.Verdict(clineHeader, perr.Span, skip,
			"This header is not valid YAML ("+perr.Msg+"): Cline does not load this rule.")
		return false
	}
	if dups := syntax.DuplicateKeys(doc.Root, nil); len(dups) > 0 {
		r.Verdict(clineHeader, doc.KeySpan(dups[0].Second), skip,
			"The key `"+core.JClip(dups[0].Second.Value)+"` is repeated: YAML refuses this header and Cline does not load this rule.")
		return false
	}
	if doc.Root == nil || doc.Root.Kind != yaml.MappingNode {
		return true // Cline reads no field from a header that is not a mapping
	}
	fields := map[string]*yaml.Node{}
	for i := 0; i+1 < len(doc.Root.Content); i += 2 {
		k, v := doc.Root.Content[i], doc.Root.Content[i+1]
		fields[k.Value] = v
		if !slices.Contains(clineFields, k.Value) {
			msg := "Cline reads name, disabled and enabled from a rule's header; `" + core.JClip(k.Value) + "` is read by nothing."
			if k.Value == "paths" {
				msg = "Cline loads this rule for every task: at this version nothing reads `paths` (its documentation's conditional rules are not evaluated)."
			}
			r.Verdict(clineUnusedKey, doc.KeySpan(k), model.Verdicts{model.TargetCline: model.Ignore}, msg)
		}
	}
	// The loader's order: name, then disabled, then enabled only when
	// disabled is unset (`??`); the first throw drops the rule.
	if v, ok := fields["name"]; ok && !syntax.IsNull(v) && !clineString(v) {
		r.Verdict(clineFieldType, doc.Span(v), skip, "`name` must be a string: Cline does not load this rule.")
		return false
	}
	for _, key := range []string{"disabled", "enabled"} {
		v, ok := fields[key]
		if !ok || syntax.IsNull(v) {
			continue
		}
		if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
			r.Verdict(clineFieldType, doc.Span(v), skip, "`"+key+"` must be true or false: Cline does not load this rule.")
			return false
		}
		break // a boolean `disabled` stops the loader reading `enabled`
	}
	return true
}

// clineString reports a YAML 1.2 string: the `yaml` package's core schema
// has no timestamps, so a date is a string to it.
func clineString(v *yaml.Node) bool {
	return v.Kind == yaml.ScalarNode && (v.Tag == "!!str" || v.Tag == "!!timestamp")
}

// clineUnseenHeader reports a `---` header Cline reads as text: one after
// blank lines, or one never closed.
func clineUnseenHeader(f core.File, r *core.Reporter) {
	pos := 0
	if bytes.HasPrefix(f.Text, []byte("\uFEFF")) {
		pos = 3
	}
	for pos < len(f.Text) {
		end, next := syntax.LineAt(f.Text, pos)
		line := bytes.TrimRight(f.Text[pos:end], " \t\r")
		if len(bytes.TrimSpace(line)) == 0 {
			if next <= pos {
				return
			}
			pos = next
			continue
		}
		if !bytes.Equal(bytes.TrimSpace(line), []byte("---")) {
			return
		}
		open := model.Span{Start: pos, End: end}
		why := "is not on the first line"
		if pos == 0 || pos == 3 && bytes.HasPrefix(f.Text, []byte("\uFEFF")) {
			why = "is never closed by a `---` line"
			if !bytes.Equal(line, []byte("---")) {
				why = "opens with more than `---` on its line"
			}
		}
		var used []string
		for _, k := range clineHeaderKeys(f.Text[next:]) {
			if slices.Contains(clineFields, k) && !slices.Contains(used, k) {
				used = append(used, k)
			}
		}
		react, tail := model.Ignore, "; it sets none of name, disabled and enabled, which are all Cline reads."
		if len(used) > 0 {
			react, tail = model.Lose, ": its "+strings.Join(used, " and ")+" are not applied."
		}
		r.Verdict(clineHeaderText, open, model.Verdicts{model.TargetCline: react},
			"This header "+why+", so Cline reads it as rule text"+tail)
		return
	}
}

// clineHeaderKeys are the top-level `key:` names of the lines up to the
// next `---` line (or the end).
func clineHeaderKeys(text []byte) []string {
	var keys []string
	for pos := 0; pos < len(text); {
		end, next := syntax.LineAt(text, pos)
		line := bytes.TrimRight(text[pos:end], " \t\r")
		if bytes.HasPrefix(line, []byte("---")) {
			break
		}
		if k, _, ok := bytes.Cut(line, []byte(":")); ok && len(k) > 0 && k[0] != ' ' && k[0] != '\t' && k[0] != '#' {
			keys = append(keys, string(bytes.TrimSpace(k)))
		}
		if next <= pos {
			break
		}
		pos = next
	}
	return keys
}
