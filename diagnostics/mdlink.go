package diagnostics

// md/link (customization-formats.md §4): relative Markdown links and
// `#file:` references whose target is missing. Code fences, code spans and
// HTML comments are skipped, as are placeholders (`${…}`, `{{…}}`, `<…>`)
// and words without '/' or '.', which are rarely paths.

import (
	"bytes"
	"net/url"
	"path"
	"regexp"
	"strings"

	"github.com/ahpls-dev/ahpls/model"
)

// linkRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var linkRules = []RuleInfo{
	{
		ID:       "md/link",
		Summary:  "A relative link or #file: reference points at a missing file.",
		Kinds:    mdKinds,
		Severity: "V WARN.",
	},
}

var (
	fileRef    = regexp.MustCompile(`#file:([^\s)\]` + "`" + `]+)`)
	schemeLike = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
)

// checkLinks reports missing link targets in the Markdown body.
func (m *mdFile) checkLinks() {
	if m.f.FS == nil {
		return
	}
	m.scanBody(func(line []byte, off int) {
		for i := 0; i+1 < len(line); i++ {
			if line[i] != ']' || line[i+1] != '(' {
				continue
			}
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
			m.checkTarget(string(line[s:e]), model.Span{Start: off + s, End: off + e}, false)
			i = e
		}
		for _, loc := range fileRef.FindAllSubmatchIndex(line, -1) {
			t := strings.TrimRight(string(line[loc[2]:loc[3]]), ".,;:")
			m.checkTarget(t, model.Span{Start: off + loc[2], End: off + loc[2] + len(t)}, true)
		}
	})
}

// scanBody calls fn for each body line with code spans, fenced code and
// HTML comments blanked out (offsets are preserved).
func (m *mdFile) scanBody(fn func(line []byte, off int)) {
	md := m.fm.Markdown
	fence := ""
	comment := false
	buf := make([]byte, 0, 256)
	for pos := md.Start; pos < md.End; {
		e, n := lineAt(m.text, pos)
		line := m.text[pos:e]
		trim := bytes.TrimLeft(line, " ")
		if len(line)-len(trim) <= 3 && (bytes.HasPrefix(trim, []byte("```")) || bytes.HasPrefix(trim, []byte("~~~"))) {
			mark := string(trim[:3])
			switch {
			case fence == "":
				fence = mark
			case fence == mark:
				fence = ""
			}
			pos = n
			continue
		}
		if fence != "" {
			pos = n
			continue
		}
		buf = append(buf[:0], line...)
		comment = blankComments(buf, comment)
		blankCodeSpans(buf)
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

// blankCodeSpans replaces `code` spans (any backtick run length) with spaces.
func blankCodeSpans(b []byte) {
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(b) && b[i+n] == '`' {
			n++
		}
		close := bytes.Index(b[i+n:], bytes.Repeat([]byte("`"), n))
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

func (m *mdFile) checkTarget(t string, span model.Span, fileRef bool) {
	if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "/") || strings.HasPrefix(t, "~") ||
		strings.Contains(t, "${") || strings.Contains(t, "{{") || strings.ContainsAny(t, "<>") || schemeLike.MatchString(t) {
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
	candidates := []string{path.Join(path.Dir(m.f.Path), p)}
	if fileRef {
		candidates = append(candidates, path.Clean(p))
	}
	for _, c := range candidates {
		if c == ".." || strings.HasPrefix(c, "../") {
			return // outside the workspace folder: not ours to judge
		}
		if _, err := m.f.FS.Stat(c); err == nil {
			return
		}
	}
	m.report("md/link", span, model.V(model.Warn),
		"{T} warn{s}: link target "+q(t)+" does not exist.")
}
