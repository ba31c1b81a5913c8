package hostlink

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahpclient/wire"
	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/wsfs"
)

// Load diagnostics (issue 7): what the host says about the containers and
// MCP servers of every joined session becomes diagnostics on the workspace
// files they came from. The whole set is recomputed from the mirrored
// session states on every change, so a session leaving or a state moving
// to loaded clears by construction.

// Rule ids of host-reported diagnostics.
const (
	RuleLoadError    = "host/load-error"
	RuleLoadDegraded = "host/load-degraded"
	RuleMCPError     = "host/mcp-error"
	RuleExcluded     = "publish/excluded"
)

// report is one finding of one session before sessions are merged.
type report struct {
	file    string
	rule    string
	sev     model.Severity
	span    model.Span
	text    string // message without the session part
	session string
}

// place is where a finding lands.
type place struct {
	file string
	span model.Span
	text string // the part of the host's message about this place
}

// placeLoad places a load message. Hosts join several per-file problems
// with "; " ("skills/a/SKILL.md: …; agents/b.md: …"): when every part names
// a file of its own, each part goes to its file; otherwise the whole
// message goes to one place.
func (lp *loadPlacer) placeLoad(c wire.Customization, own *pubPlugin, msg string) []place {
	locate := func(m string) (place, bool, bool) {
		if own != nil {
			return lp.placeInOwn(own, m)
		}
		return lp.placeInHost(c, m)
	}
	if parts := strings.Split(msg, "; "); len(parts) > 1 {
		var out []place
		for _, part := range parts {
			at, named, ok := locate(part)
			if !ok || !named {
				out = nil
				break
			}
			at.text = part
			out = append(out, at)
		}
		if out != nil {
			return out
		}
	}
	at, _, ok := locate(msg)
	if !ok {
		return nil
	}
	at.text = msg
	return []place{at}
}

// loadPlacer places the host's load reports on workspace files. One is
// made per refresh over a snapshot of what is published, so it needs no
// lock of its own and takes none of the link's.
type loadPlacer struct {
	host     string // the host's name in messages
	clientID string
	folders  []*folder
	pubs     map[string]*pubPlugin // current publication, by customization id
	history  map[string]*pubPlugin // by served nonce
	readText func(abs string) ([]byte, bool)
}

// loadReporter turns what the host says about the joined sessions'
// containers and MCP servers into the board's host diagnostics.
type loadReporter struct {
	client *ahpclient.Client
	host   hostView
	set    *folderSet
	pub    *publisher
	board  *board
	// mu serialises refreshes (the set is recomputed whole each time, so
	// the last one must land last); it is taken before the board's locks.
	// It guards no field.
	mu sync.Mutex
}

func (r *loadReporter) newPlacer() *loadPlacer {
	lp := &loadPlacer{host: r.host.name(), clientID: r.client.ClientID(), folders: r.set.folders, readText: r.set.readText}
	lp.pubs, lp.history = r.pub.published()
	return lp
}

// refresh recomputes every host diagnostic and publishes
// the files whose set changed. Sessions are read one by one while actions
// keep arriving, so a refresh may see one session a step ahead of another;
// the refresh that every such action triggers follows, and the set
// converges on the mirrored state.
func (r *loadReporter) refresh() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pub.closed() {
		return
	}
	lp := r.newPlacer()
	var reports []report
	for _, s := range r.client.Joined() {
		st, ok := r.client.State(s)
		if !ok {
			continue
		}
		label := s
		if t, ok := st["title"].(string); ok && t != "" {
			label = strconv.Quote(t)
		}
		for _, c := range r.host.customizations(s) {
			reports = append(reports, lp.containerReports(c, label)...)
		}
	}

	type key struct {
		file, rule, text string
		span             model.Span
	}
	merged := map[key]map[string]bool{}
	sev := map[key]model.Severity{}
	for _, rep := range reports {
		k := key{rep.file, rep.rule, rep.text, rep.span}
		if merged[k] == nil {
			merged[k] = map[string]bool{}
		}
		merged[k][rep.session] = true
		sev[k] = rep.sev
	}
	next := map[string][]model.Diagnostic{}
	for k, sessions := range merged {
		names := make([]string, 0, len(sessions))
		for s := range sessions {
			names = append(names, s)
		}
		sort.Strings(names)
		where := "session " + names[0]
		if len(names) > 1 {
			where = "sessions " + strings.Join(names, ", ")
		}
		next[k.file] = append(next[k.file], model.Diagnostic{
			Rule:     k.rule,
			Severity: sev[k],
			Message:  strings.Replace(k.text, "\x00", where, 1),
			Span:     k.span,
		})
	}
	for _, ds := range next {
		sort.Slice(ds, func(i, j int) bool {
			if ds[i].Span.Start != ds[j].Span.Start {
				return ds[i].Span.Start < ds[j].Span.Start
			}
			return ds[i].Message < ds[j].Message
		})
	}

	if dirty, ok := r.board.setHost(next); ok {
		r.board.publish(dirty)
	}
}

// containerReports maps one top-level customization (and its MCP
// children) to findings. The session placeholder "\x00" in text is
// replaced once sessions are merged.
func (lp *loadPlacer) containerReports(c wire.Customization, session string) []report {
	host := lp.host
	var out []report
	switch {
	case c.IsContainer():
		pp := lp.ownPlugin(c)
		if c.Load != nil && (c.Load.Kind == wire.LoadError || c.Load.Kind == wire.LoadDegraded) {
			what := fmt.Sprintf("%s %q", c.Type, c.Name)
			for _, part := range lp.placeLoad(c, pp, c.Load.Message) {
				r := report{file: part.file, span: part.span, session: session}
				if c.Load.Kind == wire.LoadError {
					r.rule, r.sev = RuleLoadError, model.SeverityError
					r.text = fmt.Sprintf("Agent host %s could not load %s (\x00): %s", host, what, part.text)
				} else {
					r.rule, r.sev = RuleLoadDegraded, model.SeverityWarning
					r.text = fmt.Sprintf("Agent host %s loaded %s with problems (\x00): %s", host, what, part.text)
				}
				out = append(out, r)
			}
		}
		for _, ch := range c.Children {
			if ch.Type != "mcpServer" {
				continue
			}
			if r, ok := lp.mcpReport(ch, &c, pp, host, session); ok {
				out = append(out, r)
			}
		}
	case c.Type == "mcpServer":
		if r, ok := lp.mcpReport(c, nil, nil, host, session); ok {
			out = append(out, r)
		}
	}
	return out
}

// mcpReport maps an MCP server in state error to its key in .mcp.json.
func (lp *loadPlacer) mcpReport(s wire.Customization, container *wire.Customization, own *pubPlugin, host, session string) (report, bool) {
	if s.State == nil || s.State.Kind != "error" {
		return report{}, false
	}
	var st struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(s.State.Raw, &st)
	file := ""
	switch {
	case own != nil:
		file = lp.ownFile(own, ".mcp.json")
	case container != nil:
		if abs, _, ok := lp.workspacePath(container.URI); ok {
			file = mcpFileAt(abs)
		}
	default:
		file = lp.topLevelMCPFile(s)
	}
	if file == "" {
		return report{}, false
	}
	text, _ := lp.readText(file)
	span, ok := diagnostics.MCPServerKeySpan(text, s.Name)
	if !ok {
		span = firstLine(text)
	}
	msg := st.Error.Message
	if msg == "" {
		msg = "the server failed"
	}
	return report{
		file: file, span: span, session: session, rule: RuleMCPError, sev: model.SeverityError,
		text: fmt.Sprintf("Agent host %s could not run MCP server %q (\x00): %s", host, s.Name, msg),
	}, true
}

// topLevelMCPFile finds the config of a top-level MCP server: its URI when
// that names a workspace file or one of our plugins; when the URI names no
// file at all (mcp:, a host id), the root .mcp.json of a folder that
// defines a server of that name.
func (lp *loadPlacer) topLevelMCPFile(s wire.Customization) string {
	if abs, _, ok := lp.workspacePath(s.URI); ok {
		if f := mcpFileAt(abs); f != "" {
			return f
		}
	}
	if strings.HasPrefix(s.URI, "virtual://ahpls/") {
		var pp *pubPlugin
		for _, p := range lp.pubs {
			if s.URI == p.source.URI || strings.HasPrefix(s.URI, p.source.URI+"/") {
				pp = p
			}
		}
		if pp != nil {
			return lp.ownFile(pp, ".mcp.json")
		}
	}
	if strings.HasPrefix(s.URI, "file:") || strings.HasPrefix(s.URI, "virtual:") {
		return "" // a config outside the workspace: not ours to mark
	}
	for _, f := range lp.folders {
		p := filepath.Join(f.abs, ".mcp.json")
		if text, ok := lp.readText(p); ok {
			if _, ok := diagnostics.MCPServerKeySpan(text, s.Name); ok {
				return p
			}
		}
	}
	return ""
}

// mcpFileAt is abs itself when it is a file, else abs/.mcp.json if present.
func mcpFileAt(abs string) string {
	st, err := os.Stat(abs)
	if err != nil {
		return ""
	}
	if st.Mode().IsRegular() {
		return abs
	}
	p := filepath.Join(abs, ".mcp.json")
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
		return p
	}
	return ""
}

// ownPlugin returns the published version a host container reports on,
// or nil when the container is not one of ours. The nonce picks the exact
// version when the host echoes it; else the current one.
func (lp *loadPlacer) ownPlugin(c wire.Customization) *pubPlugin {
	me := lp.clientID
	if c.Nonce != "" {
		if p := lp.history[c.Nonce]; p != nil && p.id == c.ID {
			return p
		}
	}
	if p := lp.pubs[c.ID]; p != nil {
		return p
	}
	if c.ClientID == me || strings.HasPrefix(c.ID, me+":") {
		for _, p := range lp.pubs {
			if p.source.URI == c.URI {
				return p
			}
		}
	}
	return nil
}

// editorPath turns a builder path (symlinks resolved) into the path the
// editor uses for the folder.
func editorPath(f *folder, src string) string {
	if rel, err := filepath.Rel(f.builder.Folder(), src); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.Join(f.abs, rel)
	}
	return src
}

// ownFile is the real file behind a virtual path of one of our plugins.
func (lp *loadPlacer) ownFile(pp *pubPlugin, vpath string) string {
	if f, ok := pp.source.File(vpath); ok && f.Source != "" {
		return editorPath(pp.folder, f.Source)
	}
	return ""
}

// pathRef is a file named in a host message, with a line when given.
type pathRef struct {
	path string
	line int // 1-based; 0 = none
}

var (
	pathToken = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:[A-Za-z]:)?[\w.\-~@+/\\]*[\w\-]\.(?:md|mdc|json|jsonc|yaml|yml|sh|py|js|ts|toml|txt)\b(?::(\d+))?`)
	})
	lineWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bline (\d+)\b`) })
)

// pathRefs extracts file names from a free-text message, longest first.
func pathRefs(msg string) []pathRef {
	var out []pathRef
	line := 0
	if m := lineWord().FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
	}
	for _, m := range pathToken().FindAllStringSubmatchIndex(msg, -1) {
		// Hosts may run elsewhere (Windows paths), so backslashes always
		// separate.
		r := pathRef{path: strings.ReplaceAll(msg[m[0]:m[1]], `\`, "/"), line: line}
		if m[2] >= 0 {
			r.line, _ = strconv.Atoi(msg[m[2]:m[3]])
			r.path = strings.ReplaceAll(msg[m[0]:m[2]-1], `\`, "/")
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].path) > len(out[j].path) })
	return out
}

// lineSpan is the content of a 1-based line, or the first line when the
// line is out of range.
func lineSpan(text []byte, line int) model.Span {
	if line <= 1 {
		return firstLine(text)
	}
	start, n := 0, 1
	for n < line {
		i := bytes.IndexByte(text[start:], '\n')
		if i < 0 {
			return firstLine(text)
		}
		start += i + 1
		n++
	}
	s := firstLine(text[start:])
	return model.Span{Start: start + s.Start, End: start + s.End}
}

// placeInOwn locates a load message on one of our plugins: the file it
// names (by virtual path, or by its workspace-relative path; a host's
// materialized copy ends with the virtual path), else the plugin's
// manifest, else its first Markdown file.
func (lp *loadPlacer) placeInOwn(pp *pubPlugin, msg string) (at place, named, ok bool) {
	refs := pathRefs(msg)
	best, bestLen, bestLine := "", 0, 0
	for _, f := range pp.source.Files {
		if f.Source == "" {
			continue
		}
		abs := editorPath(pp.folder, f.Source)
		rel, _ := filepath.Rel(pp.folder.abs, abs)
		names := []string{f.VPath, filepath.ToSlash(rel)}
		for _, r := range refs {
			for _, n := range names {
				if (r.path == n || strings.HasSuffix(r.path, "/"+n)) && len(n) > bestLen {
					best, bestLen, bestLine = abs, len(n), r.line
				}
			}
		}
	}
	named = best != ""
	if best == "" {
		for _, m := range model.ManifestPaths {
			if p := lp.ownFile(pp, m); p != "" {
				best = p
				break
			}
		}
	}
	// The synthesized plugin has no manifest of its own: its first Markdown
	// customization (in path order) stands for it, else any real file.
	for _, md := range []bool{true, false} {
		for _, f := range pp.source.Files {
			if best == "" && f.Source != "" && (!md || strings.HasSuffix(f.VPath, ".md")) {
				best = editorPath(pp.folder, f.Source)
			}
		}
	}
	if best == "" {
		return place{}, false, false
	}
	text, _ := lp.readText(best)
	return place{file: best, span: lineSpan(text, bestLine)}, named, true
}

// workspacePath maps a file: URI to an absolute path inside a workspace
// folder.
func (lp *loadPlacer) workspacePath(uri string) (string, *folder, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", nil, false
	}
	p := filepath.Clean(filepath.FromSlash(u.Path))
	for _, f := range lp.folders {
		for _, root := range []string{f.abs, f.builder.Folder()} {
			if p == root || strings.HasPrefix(p, root+string(filepath.Separator)) {
				rel, _ := filepath.Rel(root, p)
				return filepath.Join(f.abs, rel), f, true
			}
		}
	}
	return "", nil, false
}

// placeInHost locates a load message on a host container whose URI lies in
// a workspace folder: the file the message names (relative to the
// container or the folder), else the container file itself, else the
// manifest in the container folder, else its first customization file.
func (lp *loadPlacer) placeInHost(c wire.Customization, msg string) (at place, named, ok bool) {
	abs, f, ok := lp.workspacePath(c.URI)
	if !ok {
		return place{}, false, false
	}
	st, err := os.Stat(abs)
	if err != nil {
		return place{}, false, false
	}
	dir := abs
	if st.Mode().IsRegular() {
		dir = filepath.Dir(abs)
	}
	for _, r := range pathRefs(msg) {
		cands := []string{filepath.Join(dir, filepath.FromSlash(r.path)), filepath.Join(f.abs, filepath.FromSlash(r.path))}
		if filepath.IsAbs(filepath.FromSlash(r.path)) {
			cands = []string{filepath.FromSlash(r.path)}
		}
		for _, p := range cands {
			if !strings.HasPrefix(p, f.abs+string(filepath.Separator)) {
				continue
			}
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				text, _ := lp.readText(p)
				return place{file: p, span: lineSpan(text, r.line)}, true, true
			}
		}
	}
	target := ""
	if st.Mode().IsRegular() {
		target = abs
	} else {
		for _, m := range model.ManifestPaths {
			p := filepath.Join(abs, filepath.FromSlash(m))
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				target = p
				break
			}
		}
		if target == "" {
			target = firstCustomizationFile(f.abs, abs)
		}
	}
	if target == "" {
		return place{}, false, false
	}
	text, _ := lp.readText(target)
	return place{file: target, span: firstLine(text)}, false, true
}

// firstCustomizationFile is the first file (in path order) under dir that
// the customization model recognises.
func firstCustomizationFile(root, dir string) string {
	base, err := filepath.Rel(root, dir)
	if err != nil {
		return ""
	}
	base = filepath.ToSlash(base)
	found := ""
	_ = wsfs.Walk(dir, wsfs.WalkOptions{MaxDepth: model.MaxDepth}, func(e wsfs.Entry) error {
		if !e.Type.IsRegular() {
			return nil
		}
		rel := e.Rel
		if base != "." {
			rel = base + "/" + e.Rel
		}
		if model.Classify(rel, nil) != model.KindNone {
			found = filepath.Join(dir, filepath.FromSlash(e.Rel))
			return errFound
		}
		return nil
	})
	return found
}

// errFound stops a walk at the first match.
var errFound = errors.New("found")
