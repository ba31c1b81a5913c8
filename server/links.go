package server

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/wsfs"
)

// textDocument/documentLink and textDocument/definition over the paths a
// customization file names: relative Markdown links and `#file:`
// references, component paths of plugin manifests and marketplace sources,
// hook script paths (`${CLAUDE_PLUGIN_ROOT}/…`, `$CLAUDE_PROJECT_DIR/…`) and
// the files an MCP server's `command`/`args` name. Only targets that exist
// become links (a missing one already has an md/link or manifest finding),
// and only inside the file's workspace folder.

// fileLink is one path in a file and the file or folder it names.
type fileLink struct {
	span   model.Span
	target string // absolute path
}

func (l *lspServer) DocumentLink(ctx context.Context, p *protocol.DocumentLinkParams) ([]protocol.DocumentLink, error) {
	s := l.s
	out := []protocol.DocumentLink{}
	d, ok := s.doc(p.TextDocument.URI)
	if !ok || d.kind == model.KindNone {
		return out, nil
	}
	idx := model.NewLineIndex(d.text)
	enc := s.Encoding()
	for _, fl := range links(d) {
		t := uri.File(fl.target)
		out = append(out, protocol.DocumentLink{Range: lspRange(idx.Range(fl.span, enc)), Target: &t})
	}
	return out, nil
}

func (l *lspServer) Definition(ctx context.Context, p *protocol.DefinitionParams) (protocol.DefinitionResult, error) {
	s := l.s
	d, ok := s.doc(p.TextDocument.URI)
	if !ok || d.kind == model.KindNone {
		return protocol.LocationSlice{}, nil
	}
	off := offsetAt(d.text, p.Position, s.Encoding())
	for _, fl := range links(d) {
		if off >= fl.span.Start && off <= fl.span.End {
			if st, err := os.Stat(fl.target); err == nil && st.IsDir() {
				// A folder: its skill or manifest is the definition.
				for _, f := range append([]string{"SKILL.md"}, model.ManifestPaths...) {
					if _, err := os.Stat(filepath.Join(fl.target, filepath.FromSlash(f))); err == nil && confinedIn(d.loc)(filepath.Join(fl.target, filepath.FromSlash(f))) {
						fl.target = filepath.Join(fl.target, filepath.FromSlash(f))
						break
					}
				}
			}
			return protocol.LocationSlice{{URI: uri.File(fl.target)}}, nil
		}
	}
	if d.kind.Markdown() {
		if locs := nameDefinition(d, off, &s.symbols); len(locs) > 0 {
			return locs, nil
		}
	}
	return protocol.LocationSlice{}, nil
}

// maxLinks bounds the links of one file.
const maxLinks = 2000

// links finds the existing paths d names.
func links(d docInfo) []fileLink {
	var out []fileLink
	dir := filepath.Dir(d.loc.path)
	confined := confinedIn(d.loc)
	add := func(span model.Span, target string) {
		if len(out) >= maxLinks || !confined(target) {
			return
		}
		if _, err := os.Stat(target); err != nil {
			if d.buffered == nil || !d.buffered(uri.File(target)) {
				return
			}
		}
		out = append(out, fileLink{span: span, target: target})
	}
	if d.kind.Markdown() {
		for _, r := range markdownRefs(d.text) {
			add(r.span, filepath.Join(dir, filepath.FromSlash(r.path)))
		}
		return out
	}
	root, _ := diagnostics.ParseJSON(d.text)
	if root == nil {
		return nil
	}
	pluginRoot := pluginRootOf(d.loc)
	switch d.kind {
	case model.KindPlugin:
		for _, key := range []string{"skills", "agents", "commands", "hooks", "mcpServers", "outputStyles", "lspServers"} {
			forStrings(root.Get(key), func(v *diagnostics.JSONValue) {
				if p, ok := relPath(v.Str); ok {
					add(v.StrSpan(d.text, 0, len(v.Str)), filepath.Join(pluginRoot, filepath.FromSlash(p)))
				}
			})
		}
	case model.KindMarketplace:
		base := d.loc.root
		if base == "" {
			base = dir
		}
		if pr := root.Get("metadata").Get("pluginRoot"); pr.Is(diagnostics.JSONString) {
			if p, ok := relPath(pr.Str); ok {
				base = filepath.Join(base, filepath.FromSlash(p))
			}
		}
		if ps := root.Get("plugins"); ps.Is(diagnostics.JSONArray) {
			for _, it := range ps.Items {
				if src := it.Get("source"); src.Is(diagnostics.JSONString) {
					if p, ok := relPath(src.Str); ok {
						add(src.StrSpan(d.text, 0, len(src.Str)), filepath.Join(base, filepath.FromSlash(p)))
					}
				}
			}
		}
	}
	// Hook commands and MCP server commands anywhere in the file (hooks.json,
	// settings, manifests with inline hooks or servers, .mcp.json).
	walkJSON(root, 0, func(key string, v *diagnostics.JSONValue) {
		switch key {
		case "command", "args", "cwd":
		default:
			return
		}
		forStrings(v, func(sv *diagnostics.JSONValue) {
			for _, r := range commandPaths(sv.Str) {
				var base string
				switch r.base {
				case "plugin":
					base = pluginRoot
				case "project":
					base = d.loc.root
				default:
					if d.kind != model.KindMCP && d.kind != model.KindPlugin {
						continue // a bare relative path of a hook runs in an unknown cwd
					}
					base = pluginRoot
					if d.kind == model.KindMCP {
						base = dir
					}
				}
				if base == "" {
					continue
				}
				add(sv.StrSpan(d.text, r.start, r.end), filepath.Join(base, filepath.FromSlash(r.path)))
			}
		})
	})
	return out
}

// confinedIn returns the test of whether a target lies inside the
// workspace folder of loc (or, for a file outside every folder, next to
// it): by its path, and by its real path, so a symlink in the workspace
// to /etc offers no link to /etc/passwd. One wsfs.Root serves every
// target of a request.
func confinedIn(loc location) func(target string) bool {
	root := loc.root
	if root == "" {
		root = filepath.Dir(loc.path)
	}
	wr := wsfs.NewRoot(root)
	return func(target string) bool {
		target = filepath.Clean(target)
		if target == root {
			return true
		}
		rel, ok := strings.CutPrefix(target, root+string(filepath.Separator))
		return ok && wr.Contains(filepath.ToSlash(rel))
	}
}

// pluginRootOf finds the plugin root a JSON file belongs to: the nearest
// folder at or above it that holds a plugin manifest; else the parent of a
// `hooks` folder; else the workspace folder.
func pluginRootOf(loc location) string {
	slash := filepath.ToSlash(loc.path)
	// A manifest: its root is what is left without the manifest path (the
	// longer locations first: ".claude-plugin/plugin.json" ends in
	// "plugin.json" too).
	for _, long := range []bool{true, false} {
		for _, m := range model.ManifestPaths {
			if (m != "plugin.json") == long && strings.HasSuffix(slash, "/"+m) {
				return filepath.FromSlash(strings.TrimSuffix(slash, "/"+m))
			}
		}
	}
	dir := filepath.Dir(loc.path)
	stop := loc.root
	for d := dir; ; d = filepath.Dir(d) {
		for _, m := range model.ManifestPaths {
			if _, err := os.Stat(filepath.Join(d, filepath.FromSlash(m))); err == nil {
				return d
			}
		}
		if d == stop || stop == "" || filepath.Dir(d) == d || !strings.HasPrefix(d, stop) {
			break
		}
	}
	if filepath.Base(dir) == "hooks" {
		return filepath.Dir(dir)
	}
	if stop != "" {
		return stop
	}
	return dir
}

// forStrings calls fn for v if it is a string, or for each string item of
// an array v.
func forStrings(v *diagnostics.JSONValue, fn func(*diagnostics.JSONValue)) {
	switch {
	case v.Is(diagnostics.JSONString):
		fn(v)
	case v.Is(diagnostics.JSONArray):
		for _, it := range v.Items {
			if it.Is(diagnostics.JSONString) {
				fn(it)
			}
		}
	}
}

// walkJSON calls fn for every object member below v (depth-bounded).
func walkJSON(v *diagnostics.JSONValue, depth int, fn func(key string, v *diagnostics.JSONValue)) {
	if v == nil || depth > 12 {
		return
	}
	switch v.Kind {
	case diagnostics.JSONObject:
		for _, m := range v.Members {
			fn(m.Key, m.Value)
			walkJSON(m.Value, depth+1, fn)
		}
	case diagnostics.JSONArray:
		for _, it := range v.Items {
			walkJSON(it, depth+1, fn)
		}
	}
}

// relPath accepts a relative path ("./x", "x/y", ".") and returns it
// cleaned of its "./"; URLs, absolute paths and placeholders are refused.
func relPath(p string) (string, bool) {
	if p == "" || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || strings.Contains(p, "${") || strings.Contains(p, "{{") || schemeRE().MatchString(p) {
		return "", false
	}
	return strings.TrimPrefix(p, "./"), true
}

var schemeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`) })

// cmdPath is a path inside a command string: decoded offsets [start, end)
// into the string and what it is relative to.
type cmdPath struct {
	start, end int
	path       string
	base       string // "plugin", "project" or "" (relative)
}

var cmdVar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{?(CLAUDE_PLUGIN_ROOT|CLAUDE_PROJECT_DIR)\}?/`) })

// commandPaths finds the script paths of a command line: after
// ${CLAUDE_PLUGIN_ROOT}/ or $CLAUDE_PROJECT_DIR/, or words that start with
// "./" or end in a script extension.
func commandPaths(cmd string) []cmdPath {
	var out []cmdPath
	for _, m := range cmdVar().FindAllStringSubmatchIndex(cmd, 8) {
		s := m[1]
		e := s
		for e < len(cmd) && !strings.ContainsRune(" \t\"'`;&|<>()", rune(cmd[e])) {
			e++
		}
		if e > s {
			base := "plugin"
			if cmd[m[2]:m[3]] == "CLAUDE_PROJECT_DIR" {
				base = "project"
			}
			out = append(out, cmdPath{start: m[0], end: e, path: cmd[s:e], base: base})
		}
	}
	if len(out) > 0 {
		return out
	}
	// Plain words: ./script.sh, scripts/run.py, server.js.
	pos := 0
	for _, w := range strings.Fields(cmd) {
		i := strings.Index(cmd[pos:], w) + pos
		pos = i + len(w)
		w = strings.Trim(w, `"'`)
		if strings.HasPrefix(w, "-") || strings.Contains(w, "$") || schemeRE().MatchString(w) || strings.HasPrefix(w, "/") {
			continue
		}
		ext := strings.ToLower(filepath.Ext(w))
		if strings.HasPrefix(w, "./") || strings.HasPrefix(w, "../") || scriptExt[ext] {
			out = append(out, cmdPath{start: i, end: i + len(w), path: strings.TrimPrefix(w, "./")})
		}
	}
	return out
}

var scriptExt = map[string]bool{".sh": true, ".py": true, ".js": true, ".mjs": true, ".cjs": true, ".ts": true, ".rb": true, ".ps1": true, ".bash": true, ".jar": true}

// mdRef is a link target in the Markdown body.
type mdRef struct {
	span model.Span
	path string // slash-separated, relative to the file's folder
}

var fileRefRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`#file:([^\s)\]` + "`" + `]+)`) })

// markdownRefs finds relative link targets and #file: references in the
// body, skipping fenced code and code spans.
func markdownRefs(text []byte) []mdRef {
	var out []mdRef
	fm := diagnostics.SplitFrontmatter(text)
	start := fm.Markdown.Start
	if !fm.Present {
		start = 0
	}
	_, fences := markdownOutline(text)
	// Lines come in order and fences are sorted: walk them together.
	fi := 0
	inFence := func(off int) bool {
		for fi < len(fences) {
			f := fences[fi]
			end := f.close.End
			if f.close == (model.Span{}) {
				end = len(text)
			}
			if off > end {
				fi++
				continue
			}
			return off >= f.open.Start
		}
		return false
	}
	for pos := start; pos < len(text) && len(out) < maxLinks; {
		e := pos
		for e < len(text) && text[e] != '\n' {
			e++
		}
		next := e + 1
		if inFence(pos) {
			pos = next
			continue
		}
		line := append([]byte(nil), text[pos:e]...)
		blankSpans(line)
		for i := 0; i+1 < len(line); i++ {
			if line[i] != ']' || line[i+1] != '(' {
				continue
			}
			s := i + 2
			j := s
			depth := 0
			for j < len(line) && line[j] != ' ' && line[j] != '\t' {
				if line[j] == '(' {
					depth++
				}
				if line[j] == ')' {
					if depth == 0 {
						break
					}
					depth--
				}
				j++
			}
			if p, ok := linkPath(string(line[s:j])); ok {
				out = append(out, mdRef{span: model.Span{Start: pos + s, End: pos + j}, path: p})
			}
			i = j
		}
		for _, m := range fileRefRE().FindAllSubmatchIndex(line, -1) {
			t := strings.TrimRight(string(line[m[2]:m[3]]), ".,;:")
			if p, ok := linkPath(t); ok {
				out = append(out, mdRef{span: model.Span{Start: pos + m[2], End: pos + m[2] + len(t)}, path: p})
			}
		}
		pos = next
	}
	return out
}

// linkPath turns a Markdown link target into a relative path, or refuses it
// (anchors, URLs, absolute paths, placeholders).
func linkPath(t string) (string, bool) {
	t = strings.TrimSuffix(strings.TrimPrefix(t, "<"), ">")
	if i := strings.IndexAny(t, "#?"); i >= 0 {
		t = t[:i]
	}
	p, ok := relPath(t)
	if !ok || p == "" || strings.ContainsAny(p, "<>") {
		return "", false
	}
	if u, err := url.PathUnescape(p); err == nil {
		p = u
	}
	return p, true
}

// blankSpans replaces `code` spans with spaces, offsets preserved.
func blankSpans(b []byte) {
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := run(b[i:], '`')
		end := bytes.Index(b[i+n:], bytes.Repeat([]byte("`"), n))
		if end < 0 {
			i += n
			continue
		}
		stop := i + n + end + n
		for k := i; k < stop; k++ {
			b[k] = ' '
		}
		i = stop
	}
}
