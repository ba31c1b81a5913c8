package virtualplugin

import (
	"crypto/sha256"
	"encoding/json"

	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/wsfs"
)

// MaxFileSize is the largest file published; larger files are left out
// with an Exclusion (a host would not parse them either).
const MaxFileSize = 4 << 20

// Options configure a Builder.
type Options struct {
	// Check decides whether a customization file may be published: a
	// non-empty reason leaves it out ("not published to agent sessions:
	// <reason>"). nil publishes everything. Verdicts are cached per path and
	// content hash.
	Check func(rel string, kind model.Kind, text []byte) (reason string)
	// Overlay returns the text of an open editor buffer for an absolute
	// path; open buffers win over disk.
	Overlay func(abs string) ([]byte, bool)
	// Exclude, when set, leaves matching workspace paths out of every
	// tree (`ahpls.exclude`); wsfs.DefaultExcludes always apply.
	Exclude *wsfs.Matcher
}

// Exclusion is a file left out of publication and why.
type Exclusion struct {
	Path   string // slash path relative to the workspace folder
	Reason string
}

// File is one file of a published plugin tree.
type File struct {
	VPath  string // slash path inside the plugin
	Source string // absolute path of the real file; empty when generated
	// Confine is the absolute folder Source must resolve inside when read
	// (its skill folder, its plugin root or, for a loose file, its own
	// folder): a symlink may not publish anything else of the workspace.
	Confine string
	Data    []byte   // content kept in memory: generated files and open buffers
	Sum     [32]byte // sha256 of the content
	Size    int64
	// From are the absolute paths of the workspace files a generated file
	// was made of (merged hooks), so a kept version carrying it is
	// withdrawn when one of them is deleted or excluded (keep.go).
	From []string
}

// Plugin is one published plugin tree. It is immutable once built.
type Plugin struct {
	Name  string
	URI   string
	Root  string // absolute folder the files come from (the workspace folder for the synthesized plugin)
	Synth bool   // true for the folder's loose customizations
	Files []*File
	Nonce string
	// MCPServers are the server names of the tree's .mcp.json, sorted.
	MCPServers []string

	indexOnce sync.Once
	byPath    map[string]*File
	dirs      map[string][]dirEntry
}

type dirEntry struct {
	name  string
	isDir bool
}

// Snapshot is the result of one build of a workspace folder.
type Snapshot struct {
	Folder     string
	Key        string
	Plugins    []*Plugin
	Exclusions []Exclusion
}

// entry is what the builder remembers of one candidate file.
type entry struct {
	rel    string
	kind   model.Kind
	size   int64
	sum    [32]byte
	data   []byte // set when the content came from an overlay
	tooBig bool
	loaded bool
	reason string

	// Placement, fixed by the path (plugin roots changing means a rescan).
	root        string // plugin folder it belongs to; "" for loose files
	skillFolder string // loose skill folder it is part of, if any
	vpath       string // path inside its plugin; "" for loose files published otherwise (hooks) or not at all
	unit        string // folder (rel, "" = workspace) a symlinked source must stay inside: see unitOf
	file        *File  // built once per load, shared by every snapshot while unchanged
}

// Builder scans one workspace folder and keeps per-file hashes, so a
// rebuild after one file changed reads one file.
type Builder struct {
	folder string // absolute, symlinks resolved
	root   *wsfs.Root
	key    string
	opts   Options

	mu          sync.Mutex
	entries     map[string]*entry // by rel path
	sorted      []string          // keys of entries, sorted; nil when the key set changed
	pluginRoots map[string]model.PluginFormat
	scanned     bool
}

// NewBuilder prepares a builder for an absolute workspace folder path.
func NewBuilder(folder string, opts Options) (*Builder, error) {
	abs, err := filepath.Abs(folder)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace folder %s: %w", folder, err)
	}
	return &Builder{folder: real, root: wsfs.NewRoot(real), key: FolderKey(abs), opts: opts, entries: map[string]*entry{}}, nil
}

// Folder is the resolved workspace folder.
func (b *Builder) Folder() string { return b.folder }

// Key is the folder's URI key.
func (b *Builder) Key() string { return b.key }

// Build returns the current snapshot. The first call walks the folder;
// later calls re-read only files named in Changed since (and re-validate
// nothing else), so call Changed for every file event.
func (b *Builder) Build() (*Snapshot, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.scanned {
		if err := b.walk(); err != nil {
			return nil, err
		}
		b.scanned = true
	}
	return b.assemble(), nil
}

// Changed tells the builder that files or folders (absolute paths) were
// created, modified or deleted, or that an open buffer changed.
func (b *Builder) Changed(paths ...string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.scanned {
		return
	}
	for _, p := range paths {
		rel, ok := b.rel(p)
		if !ok {
			continue
		}
		if isManifestRel(rel) {
			// A manifest appearing or going away moves files between the
			// synthesized plugin and a plugin folder: rescan.
			b.entries = map[string]*entry{}
			b.scanned = false
			_ = b.walk()
			b.scanned = true
			return
		}
		info, err := os.Lstat(p)
		switch {
		case err != nil:
			b.removePrefix(rel)
		case info.IsDir():
			b.walkDir(p, rel)
		default:
			b.consider(rel, info.Mode().Type())
		}
	}
}

// SetExclude replaces Options.Exclude (the `ahpls.exclude` globs or a
// folder's .ahpls/config.json changed): the next Build walks the folder
// again under the new globs, so a newly excluded file leaves every tree (it
// is no longer served) and a file no longer excluded comes back.
func (b *Builder) SetExclude(m *wsfs.Matcher) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.opts.Exclude = m
	b.entries = map[string]*entry{}
	b.sorted = nil
	b.scanned = false
}

// Recheck drops every file's publication verdict, so the next Build runs
// Options.Check again over each file (the rules changed, not the files).
func (b *Builder) Recheck() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.entries {
		e.loaded = false
	}
}

func isManifestRel(rel string) bool {
	_, _, ok := model.ManifestRoot(rel)
	return ok
}

func (b *Builder) rel(abs string) (string, bool) {
	r, err := filepath.Rel(b.folder, abs)
	if err != nil {
		// The editor may name the unresolved path of a symlinked folder.
		if real, err2 := filepath.EvalSymlinks(filepath.Dir(abs)); err2 == nil {
			r, err = filepath.Rel(b.folder, filepath.Join(real, filepath.Base(abs)))
		}
		if err != nil {
			return "", false
		}
	}
	r = filepath.ToSlash(r)
	if r == "." || r == ".." || strings.HasPrefix(r, "../") {
		return "", false
	}
	return r, true
}

func (b *Builder) removePrefix(rel string) {
	b.sorted = nil
	delete(b.entries, rel)
	prefix := rel + "/"
	for k := range b.entries {
		if strings.HasPrefix(k, prefix) {
			delete(b.entries, k)
		}
	}
}

func (b *Builder) walk() error {
	b.pluginRoots = map[string]model.PluginFormat{}
	b.sorted = nil
	if _, err := os.Stat(b.folder); err != nil {
		return err
	}
	b.walkDir(b.folder, "")
	return nil
}

// walkDir records candidate files below dir (rel "" = the folder) with
// wsfs.Walk: it never opens a file to list it and never enters a symlinked
// folder; a symlinked file is recorded only if it resolves to a regular file
// inside its own skill folder, plugin root or folder (consider).
func (b *Builder) walkDir(dir, rel string) {
	if rel != "" && wsfs.Depth(rel)+1 <= model.MaxPluginDepth {
		if f := b.detectPlugin(rel); f != model.FormatNone {
			b.pluginRoots[rel] = f
		}
	}
	_ = wsfs.Walk(b.folder, wsfs.WalkOptions{MaxDepth: publishDepth, Exclude: b.opts.Exclude, Under: rel}, func(e wsfs.Entry) error {
		if e.IsDir() {
			if wsfs.Depth(e.Rel)+1 <= model.MaxPluginDepth {
				if f := b.detectPlugin(e.Rel); f != model.FormatNone {
					b.pluginRoots[e.Rel] = f
				}
			}
			return nil
		}
		b.consider(e.Rel, e.Type)
		return nil
	})
}

// publishDepth bounds the publisher's walk, which unlike `ahpls check`
// has a limit (issue #25): it publishes what the consumers' own discovery
// finds, and that is shallow. VS Code lists each prompt, agent and
// instructions location's direct children and skills at
// <location>/<name>/SKILL.md (promptFilesLocator.ts resolveFilesAtLocation,
// findClaudeSkillsInFolder); a plugin's components sit at fixed paths below
// its root (<root>/skills/<name>/SKILL.md, <root>/agents/*.md,
// <root>/hooks/hooks.json: pluginParsers.ts resolveComponentDirs). So: a
// plugin root at most model.MaxPluginDepth folders deep, plus a skill's
// own folder and a few levels of its resources.
const publishDepth = model.MaxPluginDepth + 2

func (b *Builder) detectPlugin(rel string) model.PluginFormat {
	read := func(r string) ([]byte, bool) {
		data, err := b.root.Read(r, MaxFileSize+1)
		return data, err == nil
	}
	return detectPluginFormat(read, rel)
}

// unitOf is the folder a file is published as part of: its plugin root,
// its loose skill folder, else its own folder. A symlinked file must
// resolve inside it, so a link in a skill cannot publish the workspace's
// .env.
func (b *Builder) unitOf(rel string) string {
	if r := b.pluginOf(rel); r != "" {
		return r
	}
	if f, ok := skillFolder(rel); ok {
		return f
	}
	if d := path.Dir(rel); d != "." {
		return d
	}
	return ""
}

// ReadSource reads a published file's source from disk, confined to its
// unit (File.Confine) through the safe reader: a symlink that now leads
// elsewhere, a FIFO or a device swapped in is an error, never a hang.
func ReadSource(f *File) ([]byte, error) {
	confine := f.Confine
	if confine == "" {
		confine = filepath.Dir(f.Source)
	}
	rel, err := filepath.Rel(confine, f.Source)
	if err != nil {
		return nil, &wsfs.Error{Path: filepath.Base(f.Source), Reason: wsfs.OutsideRoot}
	}
	return wsfs.ReadIn(confine, filepath.ToSlash(rel), MaxFileSize+1)
}

// consider records rel if it belongs to some published tree.
func (b *Builder) consider(rel string, typ fs.FileMode) {
	if b.opts.Exclude != nil && b.opts.Exclude.Match(rel) {
		b.record(rel, nil)
		return
	}
	if b.pluginOf(rel) == "" && !b.looseCandidate(rel) {
		b.record(rel, nil)
		return
	}
	unit := b.unitOf(rel)
	var st fs.FileInfo
	var err error
	if typ&fs.ModeSymlink != 0 {
		// Only inside its own unit: never another part of the workspace,
		// never outside it.
		inUnit := strings.TrimPrefix(strings.TrimPrefix(rel, unit), "/")
		st, err = wsfs.NewRoot(filepath.Join(b.folder, filepath.FromSlash(unit))).Stat(inUnit)
	} else {
		st, err = os.Lstat(filepath.Join(b.folder, filepath.FromSlash(rel)))
	}
	if err != nil || !st.Mode().IsRegular() {
		b.record(rel, nil)
		return
	}
	e := &entry{rel: rel, kind: model.Classify(rel, layout(b.pluginRoots)), size: st.Size(), root: b.pluginOf(rel), unit: unit}
	if e.root != "" {
		e.vpath = strings.TrimPrefix(rel, e.root+"/")
	} else if folder, ok := skillFolder(rel); ok {
		e.skillFolder = folder
		e.vpath = "skills/" + path.Base(folder) + strings.TrimPrefix(rel, folder)
	} else {
		e.vpath = looseVPath(rel, e.kind)
	}
	b.record(rel, e)
}

// record sets or (with nil) drops rel's entry, keeping the sorted key list
// valid when the key set did not change.
func (b *Builder) record(rel string, e *entry) {
	_, had := b.entries[rel]
	switch {
	case e != nil:
		b.entries[rel] = e
		if !had {
			b.sorted = nil
		}
	case had:
		delete(b.entries, rel)
		b.sorted = nil
	}
}

// looseVPath is where a loose customization file goes in the synthesized
// plugin ("" = not published as a file of its own).
func looseVPath(rel string, kind model.Kind) string {
	base := path.Base(rel)
	switch kind {
	case model.KindAgent:
		if strings.HasPrefix(rel, ".github/agents/") {
			return "agents/" + base
		}
	case model.KindClaudeAgent:
		return "agents/" + base
	case model.KindPrompt:
		return "commands/" + base
	case model.KindCommand:
		if rest, ok := strings.CutPrefix(rel, ".claude/commands/"); ok {
			return "commands/" + rest
		}
	case model.KindInstructions:
		return "rules/" + base
	case model.KindRule:
		if rest, ok := strings.CutPrefix(rel, ".claude/rules/"); ok {
			return "rules/" + rest
		}
	case model.KindMCP:
		if rel == ".mcp.json" {
			return ".mcp.json"
		}
	}
	return ""
}

// pluginOf returns the plugin root containing rel ("" when none), the
// outermost one when plugins nest.
func (b *Builder) pluginOf(rel string) string {
	segs := strings.Split(rel, "/")
	for i := 1; i < len(segs) && i <= model.MaxPluginDepth; i++ {
		root := strings.Join(segs[:i], "/")
		if _, ok := b.pluginRoots[root]; ok {
			return root
		}
	}
	return ""
}

// looseCandidate: classified customization files and everything inside a
// skill folder of the loose skill roots.
func (b *Builder) looseCandidate(rel string) bool {
	if _, ok := skillFolder(rel); ok {
		return true
	}
	return model.Classify(rel, layout(b.pluginRoots)) != model.KindNone
}

var skillRoots = []string{".github/skills/", ".claude/skills/", ".agents/skills/"}

// skillFolder returns the skill folder ("<root>/skills/<n>") of a file in
// one of the loose skill roots.
func skillFolder(rel string) (string, bool) {
	for _, r := range skillRoots {
		if rest, ok := strings.CutPrefix(rel, r); ok {
			if i := strings.IndexByte(rest, '/'); i > 0 {
				return r + rest[:i], true
			}
		}
	}
	return "", false
}

type layout map[string]model.PluginFormat

func (l layout) PluginRoot(dir string) model.PluginFormat { return l[dir] }

func within(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, "../") && !filepath.IsAbs(r)
}

// load hashes an entry (and runs the check) once; Changed replaces the
// entry of a file that moved, so unchanged files cost nothing on rebuild.
func (b *Builder) load(e *entry) error {
	if e.loaded {
		return nil
	}
	abs := filepath.Join(b.folder, filepath.FromSlash(e.rel))
	var text []byte
	if data, ok := b.overlay(abs); ok {
		e.data, e.size = data, int64(len(data))
		text = data
	} else if e.size > MaxFileSize {
		e.tooBig, e.loaded = true, true
		return nil
	} else {
		var err error
		if text, err = ReadSource(&File{Source: abs, Confine: filepath.Join(b.folder, filepath.FromSlash(e.unit))}); err != nil {
			return err
		}
		e.size = int64(len(text))
	}
	e.tooBig = len(text) > MaxFileSize
	e.sum = sha256.Sum256(text)
	if !e.tooBig && e.kind != model.KindNone && b.opts.Check != nil {
		e.reason = b.opts.Check(e.rel, e.kind, text)
	}
	e.file = &File{VPath: e.vpath, Source: abs, Confine: filepath.Join(b.folder, filepath.FromSlash(e.unit)), Data: e.data, Sum: e.sum, Size: e.size}
	e.loaded = true
	return nil
}

func (b *Builder) overlay(abs string) ([]byte, bool) {
	if b.opts.Overlay == nil {
		return nil, false
	}
	return b.opts.Overlay(abs)
}

// assemble lays the current entries out as plugins. Called with mu held.
// Its cost on a rebuild is a pass over the sorted entries plus hashing the
// listing: files that did not change are neither read nor re-allocated.
func (b *Builder) assemble() *Snapshot {
	snap := &Snapshot{Folder: b.folder, Key: b.key}
	if b.sorted == nil {
		b.sorted = make([]string, 0, len(b.entries))
		for rel := range b.entries {
			b.sorted = append(b.sorted, rel)
		}
		sort.Strings(b.sorted)
	}
	exclude := func(rel, reason string) {
		snap.Exclusions = append(snap.Exclusions, Exclusion{Path: rel, Reason: reason})
	}
	usable := func(e *entry) bool {
		switch {
		case e.tooBig:
			exclude(e.rel, fmt.Sprintf("larger than %d MiB", MaxFileSize>>20))
			return false
		case e.reason != "":
			exclude(e.rel, e.reason)
			return false
		}
		return true
	}

	byRoot := map[string][]*File{}
	badRoot := map[string]bool{}
	var loose []*entry
	for _, rel := range b.sorted {
		e := b.entries[rel]
		if err := b.load(e); err != nil {
			continue
		}
		if e.root == "" {
			loose = append(loose, e)
			continue
		}
		if !usable(e) {
			if isManifestRel(e.rel) {
				badRoot[e.root] = true
			}
			continue
		}
		byRoot[e.root] = append(byRoot[e.root], e.file)
	}

	roots := make([]string, 0, len(byRoot))
	for r := range byRoot {
		roots = append(roots, r)
	}
	sort.Strings(roots)
	usedNames := map[string]bool{}
	var folders []*Plugin
	for _, root := range roots {
		if badRoot[root] {
			continue
		}
		name := pluginName(root, byRoot[root])
		for usedNames[name] {
			name += "-2"
		}
		usedNames[name] = true
		folders = append(folders, newPlugin(name, PluginURI(b.key, name), filepath.Join(b.folder, filepath.FromSlash(root)), false, byRoot[root]))
	}
	if p := b.synthesize(loose, exclude, usable, usedNames); p != nil {
		snap.Plugins = append(snap.Plugins, p)
	}
	snap.Plugins = append(snap.Plugins, folders...)
	return snap
}

// synthesize lays the folder's loose customizations out as an Open Plugins
// package (customization-formats.md §2.1 → the layout of ahp.md §6).
func (b *Builder) synthesize(loose []*entry, exclude func(rel, reason string), usable func(*entry) bool, usedNames map[string]bool) *Plugin {
	// Which skill folders publish: the first root in priority order wins a
	// name, and a skill whose SKILL.md is left out takes its folder along.
	winner := make(map[string]bool, len(loose))      // skill folder → published
	nameOwner := make(map[string]string, len(loose)) // skill name → folder
	for _, root := range skillRoots {
		for _, e := range loose {
			if e.skillFolder == "" || !strings.HasPrefix(e.skillFolder, root) || !strings.EqualFold(e.rel[len(e.skillFolder):], "/SKILL.md") {
				continue
			}
			name := path.Base(e.skillFolder)
			if other, dup := nameOwner[name]; dup {
				exclude(e.rel, fmt.Sprintf("a skill named '%s' is already published from %s", name, other))
				continue
			}
			if usable(e) {
				winner[e.skillFolder] = true
				nameOwner[name] = e.skillFolder
			}
		}
	}
	files := make([]*File, 0, len(loose)+2)
	taken := map[string]string{} // vpath → source rel, for the non-skill kinds
	var hooks []*entry
	for _, e := range loose {
		switch {
		case e.skillFolder != "":
			if winner[e.skillFolder] {
				files = append(files, e.file)
			}
		case e.kind == model.KindHooks:
			if strings.HasPrefix(e.rel, ".github/hooks/") && usable(e) {
				hooks = append(hooks, e)
			}
		case e.vpath != "":
			if !usable(e) {
				continue
			}
			if prev, ok := taken[e.vpath]; ok {
				exclude(e.rel, fmt.Sprintf("'%s' already publishes as %s", prev, e.vpath))
				continue
			}
			taken[e.vpath] = e.rel
			files = append(files, e.file)
		}
	}
	if len(hooks) > 0 {
		if f := b.mergeHooks(hooks, exclude); f != nil {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return nil
	}
	name := kebab(filepath.Base(b.folder))
	if name == "" {
		name = "workspace"
	}
	for usedNames[name] {
		name += "-workspace"
	}
	manifest, _ := json.MarshalIndent(map[string]string{
		"name":        name,
		"description": "Customizations of workspace folder " + filepath.Base(b.folder) + ", published by ahpls",
		"version":     "1.0.0",
	}, "", "  ")
	files = append(files, generated(".plugin/plugin.json", manifest))
	return newPlugin(name, PluginURI(b.key, name), b.folder, true, files)
}

// mergeHooks publishes the workspace's hook files as one hooks/hooks.json:
// one file is passed through unchanged; several are merged event by event
// in file-name order.
func (b *Builder) mergeHooks(hooks []*entry, exclude func(rel, reason string)) *File {
	if len(hooks) == 1 {
		f := *hooks[0].file
		f.VPath = "hooks/hooks.json"
		return &f
	}
	merged := map[string][]json.RawMessage{}
	version := json.RawMessage(nil)
	var from []string
	for _, e := range hooks {
		text := e.data
		if text == nil {
			var err error
			if text, err = ReadSource(e.file); err != nil {
				continue
			}
		}
		var doc struct {
			Version json.RawMessage              `json:"version"`
			Hooks   map[string][]json.RawMessage `json:"hooks"`
		}
		if err := json.Unmarshal(text, &doc); err != nil {
			exclude(e.rel, "cannot be merged with the other hook files: "+err.Error())
			continue
		}
		from = append(from, e.file.Source)
		if doc.Version != nil {
			version = doc.Version
		}
		for ev, hs := range doc.Hooks {
			merged[ev] = append(merged[ev], hs...)
		}
	}
	out := map[string]any{"hooks": merged}
	if version != nil {
		out["version"] = version
	}
	data, err := json.MarshalIndent(out, "", "  ") // map keys marshal sorted: deterministic
	if err != nil {
		return nil
	}
	f := generated("hooks/hooks.json", data)
	f.From = from
	return f
}

func generated(vpath string, data []byte) *File {
	return &File{VPath: vpath, Data: data, Sum: sha256.Sum256(data), Size: int64(len(data))}
}

// pluginName prefers the effective manifest's name when it is plain
// kebab-case, else the folder's name in kebab-case.
func pluginName(root string, files []*File) string {
	for _, m := range model.ManifestPaths {
		for _, f := range files {
			if f.VPath != m {
				continue
			}
			data := f.Data
			if data == nil {
				data, _ = ReadSource(f)
			}
			var doc struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(data, &doc) == nil && doc.Name != "" && kebab(doc.Name) == doc.Name {
				return doc.Name
			}
			break
		}
	}
	if n := kebab(path.Base(root)); n != "" {
		return n
	}
	return "plugin"
}

// kebab lowers s and joins its alphanumeric runs with single hyphens.
func kebab(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}

func newPlugin(name, uri, root string, synth bool, files []*File) *Plugin {
	sort.Slice(files, func(i, j int) bool { return files[i].VPath < files[j].VPath })
	p := &Plugin{Name: name, URI: uri, Root: root, Synth: synth, Files: files}
	p.Nonce = Nonce(files)
	if i := sort.Search(len(files), func(i int) bool { return files[i].VPath >= ".mcp.json" }); i < len(files) && files[i].VPath == ".mcp.json" {
		p.MCPServers = mcpServerNames(files[i])
	}
	return p
}

// index builds the path and directory lookups on first use: a host reads a
// tree once per nonce, while rebuilds happen on every keystroke.
func (p *Plugin) index() {
	p.indexOnce.Do(func() {
		p.byPath = make(map[string]*File, len(p.Files))
		p.dirs = map[string][]dirEntry{}
		seen := map[string]bool{}
		for _, f := range p.Files {
			p.byPath[f.VPath] = f
			child, isDir := f.VPath, false
			for {
				if isDir && seen[child] {
					break // this folder and its ancestors are recorded
				}
				if isDir {
					seen[child] = true
				}
				dir := path.Dir(child)
				if dir == "." {
					dir = ""
				}
				p.dirs[dir] = append(p.dirs[dir], dirEntry{name: path.Base(child), isDir: isDir})
				if dir == "" {
					break
				}
				child, isDir = dir, true
			}
		}
		if _, ok := p.dirs[""]; !ok {
			p.dirs[""] = nil
		}
		for _, es := range p.dirs {
			sort.Slice(es, func(i, j int) bool { return es[i].name < es[j].name })
		}
	})
}

// File returns the file at a path inside the plugin.
func (p *Plugin) File(vpath string) (*File, bool) {
	p.index()
	f, ok := p.byPath[vpath]
	return f, ok
}

func mcpServerNames(f *File) []string {
	if f == nil {
		return nil
	}
	data := f.Data
	if data == nil {
		data, _ = ReadSource(f)
	}
	var wrapped struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	var names []string
	if json.Unmarshal(data, &wrapped) == nil && wrapped.MCPServers != nil {
		for n := range wrapped.MCPServers {
			names = append(names, n)
		}
	} else {
		var bare map[string]json.RawMessage
		if json.Unmarshal(data, &bare) == nil {
			for n := range bare {
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	return names
}

// detectPluginFormat is the layout model's plugin detection (model/layout.go),
// so the publisher and the rules agree on which folders are plugins.
func detectPluginFormat(read func(rel string) ([]byte, bool), dir string) model.PluginFormat {
	return model.DetectPluginFormat(read, dir)
}
