package shared

// md/link (customization-formats.md §4): relative Markdown links and
// `#file:` references whose target is missing. Code fences, code spans and
// HTML comments are skipped, as are placeholders (`${…}`, `{{…}}`, `<…>`)
// and words without '/' or '.', which are rarely paths.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"bytes"
	"net/url"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/model"
)

// LinkRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var LinkRules = []*core.Rule{mdLink}

var mdLink = &core.Rule{
	ID:       "md/link",
	Summary:  "A relative link or #file: reference points at a missing file.",
	Kinds:    core.MDKinds,
	Severity: "VS WARN · VH, CC, CL LOSE (the linked instructions are missing when the agent follows the link). Links inside CommonMark code fences and code spans are not links.",
	Evidence: []core.Evidence{
		{Consumer: "VS", Reaction: "WARN", Source: "`src/vs/workbench/contrib/chat/common/promptSyntax/languageProviders/promptValidator.ts` validateBody: 'promptValidator.fileNotFound' \"File '{0}' not found at '{1}'.\" at MarkerSeverity.Warning"},
		{Consumer: "AS", Reaction: "–", Source: "specification.mdx, File references: \"use relative paths from the skill root\"; the agent reads them on demand"},
		{Consumer: "all", Reaction: "fence", Source: "CommonMark 0.31 §4.5: the closing fence is at least as long as the opening one, of the same character"},
	},
}

var (
	fileRefMark = []byte("#file:")
	linkOpen    = []byte("](")
	fileRef     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`#file:([^\s)\]` + "`" + `]+)`) })
	schemeLike  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`) })
)

// CheckLinks reports missing link targets in the Markdown body.
func CheckLinks(m *core.MDFile) {
	if m.F.FS == nil {
		return
	}
	ScanBody(m, func(line []byte, off int) {
		for i := 0; i+1 < len(line); i++ {
			j := bytes.Index(line[i:], linkOpen)
			if j < 0 {
				break
			}
			i += j
			s := i + 2
			e := s
			depth := 0
			for e < len(line) && line[e] != ' ' && line[e] != '\t' {
				if line[e] == '(' {
					depth++
				}
				if line[e] == ')' {
					if depth == 0 {
						break
					}
					depth--
				}
				e++
			}
			checkTarget(m, string(line[s:e]), model.Span{Start: off + s, End: off + e}, false)
			i = e
		}
		if !bytes.Contains(line, fileRefMark) {
			return
		}
		for _, loc := range fileRef().FindAllSubmatchIndex(line, -1) {
			t := strings.TrimRight(string(line[loc[2]:loc[3]]), ".,;:")
			checkTarget(m, t, model.Span{Start: off + loc[2], End: off + loc[2] + len(t)}, true)
		}
	})
}

// statExists reports whether rel exists, asking the workspace once per
// path and check.
func statExists(m *core.MDFile, rel string) bool {
	ok, seen := m.Exists[rel]
	if !seen {
		_, err := m.F.FS.Stat(rel)
		ok = err == nil
		if m.Exists == nil {
			m.Exists = map[string]bool{}
		}
		m.Exists[rel] = ok
	}
	return ok
}

// ScanBody calls fn for each body line with code spans, fenced code and
// HTML comments blanked out (offsets are preserved). fn must neither modify
// nor keep line: it may be the file's own bytes or a reused buffer.
func ScanBody(m *core.MDFile, fn func(line []byte, off int)) {
	md := m.Fm.Markdown
	var fence core.CodeFence
	comment := false
	buf := make([]byte, 0, 256)
	for pos := md.Start; pos < md.End; {
		e, n := syntax.LineAt(m.Text, pos)
		line := m.Text[pos:e]
		if fence.Step(line) {
			pos = n
			continue
		}
		if !comment && bytes.IndexByte(line, '`') < 0 && bytes.IndexByte(line, '<') < 0 {
			fn(line, pos) // nothing to blank: no copy (fn only reads)
			pos = n
			continue
		}
		buf = append(buf[:0], line...)
		comment = blankComments(buf, comment)
		BlankCodeSpans(buf)
		fn(buf, pos)
		pos = n
	}
}

// blankComments replaces HTML comments with spaces; in reports whether the
// line starts inside one, and the result whether it ends inside one.
func blankComments(b []byte, in bool) bool {
	i := 0
	for i < len(b) {
		if in {
			j := bytes.Index(b[i:], []byte("-->"))
			end := len(b)
			if j >= 0 {
				end = i + j + 3
				in = false
			}
			for k := i; k < end; k++ {
				b[k] = ' '
			}
			i = end
			continue
		}
		j := bytes.Index(b[i:], []byte("<!--"))
		if j < 0 {
			break
		}
		i += j
		in = true
	}
	return in
}

// BlankCodeSpans replaces `code` spans (any backtick run length) with spaces.
func BlankCodeSpans(b []byte) {
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '`')
		if j < 0 {
			return
		}
		i += j
		n := 0
		for i+n < len(b) && b[i+n] == '`' {
			n++
		}
		close := indexRun(b[i+n:], '`', n)
		if close < 0 {
			i += n
			continue
		}
		end := i + n + close + n
		for k := i; k < end; k++ {
			b[k] = ' '
		}
		i = end
	}
}

// indexRun is where n c's in a row first occur in b, as
// bytes.Index(b, bytes.Repeat([]byte{c}, n)) finds it, without building the
// run.
func indexRun(b []byte, c byte, n int) int {
	for i := 0; i+n <= len(b); {
		j := bytes.IndexByte(b[i:], c)
		if j < 0 {
			return -1
		}
		i += j
		k := 0
		for i+k < len(b) && k < n && b[i+k] == c {
			k++
		}
		if k == n {
			return i
		}
		i += k
	}
	return -1
}

func checkTarget(m *core.MDFile, t string, span model.Span, fileRef bool) {
	shown := t
	t, root, ok := resolvePlaceholder(m, t)
	if !ok {
		return // a placeholder the skill's consumer does not fill: not a missing file
	}
	if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "/") || strings.HasPrefix(t, "~") ||
		strings.Contains(t, "${") || strings.Contains(t, "{{") || strings.ContainsAny(t, "<>{}") || schemeLike().MatchString(t) {
		return
	}
	if !strings.ContainsAny(t, "/.") {
		return
	}
	p := t
	if i := strings.IndexAny(p, "#?"); i >= 0 {
		p = p[:i]
	}
	if p == "" {
		return
	}
	if u, err := url.PathUnescape(p); err == nil {
		p = u
	}
	candidates := []string{path.Join(path.Dir(m.F.Path), p)}
	if root != "" {
		candidates = []string{path.Join(root, p)}
	} else if fileRef {
		candidates = append(candidates, path.Clean(p))
	}
	for _, c := range candidates {
		if c == ".." || strings.HasPrefix(c, "../") {
			return // outside the workspace folder: not ours to judge
		}
		if statExists(m, c) {
			return
		}
	}
	// The agent reads a linked file when it needs it: a dead link loses
	// that part of the instructions for every reader; VS Code's validator
	// also marks it.
	m.Report(mdLink, span, model.V(model.Lose).With(model.Verdicts{model.TargetVSCode: model.Warn,
		model.TargetClaudeCode: model.Lose, model.TargetCopilotCLI: model.Lose}),
		"{T} cannot follow this link: "+syntax.Quote(shown)+" does not exist.")
}

// resolvePlaceholder reads a link that starts with a template placeholder
// the way the file's consumer fills it: Claude Code replaces
// ${CLAUDE_SKILL_DIR} with a skill's folder and ${CLAUDE_PLUGIN_ROOT} with
// the plugin's root, and starts a skill's text with "Base directory for
// this skill: <folder>", which {baseDir} names for the model (2.1.332). It
// returns the rest of the link and the folder it is relative to ("" for
// no placeholder, "." for the workspace root); ok is false for a
// placeholder no consumer fills, which is no path to check.
func resolvePlaceholder(m *core.MDFile, t string) (rest, root string, ok bool) {
	if !strings.HasPrefix(t, "${") && !strings.HasPrefix(t, "{") {
		return t, "", true
	}
	name, after, found := strings.Cut(t, "}")
	if !found {
		return t, "", false
	}
	after = strings.TrimPrefix(after, "/")
	dir := path.Dir(m.F.Path)
	switch name {
	case "${CLAUDE_SKILL_DIR", "{baseDir":
		if m.Kind != model.KindSkill {
			return t, "", false
		}
	case "${CLAUDE_PLUGIN_ROOT":
		pf, r := model.PluginOf(m.F.Path, m.F.Layout)
		if pf == model.FormatNone {
			return t, "", false
		}
		dir = r
	default:
		return t, "", false
	}
	if dir == "" {
		dir = "."
	}
	if after == "" {
		return "", "", false // the folder itself
	}
	return after, dir, true
}
