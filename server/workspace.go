package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/settings"
	"github.com/ahpls-dev/ahpls/wsfs"
)

// folder is a workspace folder: its URI and its path on disk.
type folder struct {
	uri  uri.URI
	path string // cleaned, absolute
}

// location says where a URI sits: inside a workspace folder (rel is
// slash-separated from its root) or outside any (root is empty and rel is a
// best guess from the path's tail, so a loose SKILL.md still gets skill
// rules).
type location struct {
	root string
	rel  string
	path string
}

func uriPath(u uri.URI) (string, bool) {
	if !u.IsFile() {
		return "", false
	}
	p := u.FsPath()
	if p == "" {
		return "", false
	}
	return filepath.Clean(p), true
}

// locate finds the innermost workspace folder holding u.
func (s *Server) locate(u uri.URI) (location, bool) {
	p, ok := uriPath(u)
	if !ok {
		return location{}, false
	}
	s.mu.Lock()
	folders := s.folders
	s.mu.Unlock()
	best := -1
	for i, f := range folders {
		if p == f.path || strings.HasPrefix(p, f.path+string(filepath.Separator)) {
			if best < 0 || len(f.path) > len(folders[best].path) {
				best = i
			}
		}
	}
	if best >= 0 {
		rel, err := filepath.Rel(folders[best].path, p)
		if err == nil && rel != "." {
			return location{root: folders[best].path, rel: filepath.ToSlash(rel), path: p}, true
		}
	}
	// Outside every folder: use the longest tail that classifies, so
	// .../proj/.github/skills/x/SKILL.md reads as a skill of proj.
	segs := strings.Split(filepath.ToSlash(p), "/")
	for start := max(1, len(segs)-model.MaxDepth-1); start < len(segs); start++ {
		rel := strings.Join(segs[start:], "/")
		if model.Classify(rel, nil) != model.KindNone {
			return location{rel: rel, path: p}, true
		}
	}
	return location{rel: segs[len(segs)-1], path: p}, true
}

// readRel reads a file of a workspace folder, preferring an open buffer;
// rel must stay inside the folder.
func (s *Server) readRel(root, rel string) ([]byte, bool) {
	if root == "" || !fs.ValidPath(rel) {
		return nil, false
	}
	p := filepath.Join(root, filepath.FromSlash(rel))
	if snap, ok := s.DocumentSnapshot(uri.File(p)); ok {
		return snap.Text, true
	}
	b, err := wsfs.ReadIn(root, rel, diagnostics.MaxFileSize+1)
	return b, err == nil
}

// readLoc reads a file from disk through the safe reader: below its
// workspace folder, symlinks must stay inside it; outside every folder
// (a file the editor opened) any regular file. At most one byte more than
// the rules check is read, so a huge file costs 4 MiB, not its size, and
// still trips file/too-large; a FIFO is refused without blocking.
func readLoc(loc location) ([]byte, error) {
	if loc.root != "" && fs.ValidPath(loc.rel) {
		return wsfs.ReadIn(loc.root, loc.rel, diagnostics.MaxFileSize+1)
	}
	return wsfs.ReadFile(loc.path, diagnostics.MaxFileSize+1)
}

// readPath is readLoc for a path the server has not located yet.
func (s *Server) readPath(p string) ([]byte, error) {
	if loc, ok := s.locate(uri.File(p)); ok {
		return readLoc(loc)
	}
	return wsfs.ReadFile(p, diagnostics.MaxFileSize+1)
}

// wsLayout answers plugin-root questions from manifests on disk or in open
// buffers; one per check (or one per scan, shared by its walkers),
// memoised.
type wsLayout struct {
	s    *Server
	root string
	r    *wsfs.Root // when set (a scan), reads share its resolved folders
	seen *wsfs.Seen // when set (a scan), absences are answered from the walk
	memo sync.Map   // folder → model.PluginFormat
	// claude: plugin root → whether a Claude marketplace lists it.
	claude sync.Map
	// markets: folder → its Claude marketplace parsed (nil: none there).
	markets sync.Map
}

// PluginRoot is asked for every folder above every file: a memo hit takes
// no lock. Two walkers may detect the same folder at once and get the same
// answer.
func (l *wsLayout) PluginRoot(dir string) model.PluginFormat {
	if l.root == "" {
		return model.FormatNone
	}
	if f, ok := l.memo.Load(dir); ok {
		return f.(model.PluginFormat)
	}
	got, _ := l.memo.LoadOrStore(dir, diagnostics.DetectPluginFormat(l.read, dir))
	return got.(model.PluginFormat)
}

// ClaudeListed implements model.ClaudeListing (implied targets) from
// manifests on disk or in open buffers, memoised like PluginRoot.
func (l *wsLayout) ClaudeListed(dir string) bool {
	if l.root == "" {
		return false
	}
	if v, ok := l.claude.Load(dir); ok {
		return v.(bool)
	}
	got := model.ClaudeListedBy(l.marketplace, dir)
	l.claude.Store(dir, got)
	return got
}

// marketplace is the Claude marketplace at folder m, parsed once per
// layout (each plugin root it lists asks for it).
func (l *wsLayout) marketplace(m string) (model.MarketplaceListing, bool) {
	if v, ok := l.markets.Load(m); ok {
		ml := v.(model.MarketplaceListing)
		return ml, ml != nil
	}
	var ml model.MarketplaceListing
	if b, ok := l.read(path.Join(m, ".claude-plugin/marketplace.json")); ok {
		ml = model.ParseMarketplaceListing(b, m)
	}
	l.markets.Store(m, ml)
	return ml, ml != nil
}

// read is readRel through the layout's Root and walk when it has them.
func (l *wsLayout) read(rel string) ([]byte, bool) {
	if l.r == nil {
		return l.s.readRel(l.root, rel)
	}
	return wsFS{s: l.s, root: l.root, r: l.r, seen: l.seen}.readBuffered(rel)
}

// wsFS is diagnostics.WorkspaceFS confined to one folder; open buffers count
// as existing files.
type wsFS struct {
	s    *Server
	root string
	r    *wsfs.Root // nil: a fresh one per call
	seen *wsfs.Seen // nil: ask the disk
	// trees, when set (a scan), keeps the agent trees the subagent
	// duplicate check read, for the scan's other files
	// (diagnostics.TreeMemo); nil: each check reads the tree itself.
	trees *diagnostics.AgentTrees
}

// AgentTrees implements diagnostics.TreeMemo.
func (w wsFS) AgentTrees() *diagnostics.AgentTrees { return w.trees }

func (w wsFS) fsRoot() *wsfs.Root {
	if w.r != nil {
		return w.r
	}
	return wsfs.NewRoot(w.root)
}

// readBuffered is ReadFile as a found/not-found answer.
func (w wsFS) readBuffered(rel string) ([]byte, bool) {
	b, err := w.ReadFile(rel)
	return b, err == nil
}

func (w wsFS) Stat(rel string) (fs.FileInfo, error) {
	if !fs.ValidPath(rel) {
		return nil, fs.ErrNotExist
	}
	p := filepath.Join(w.root, filepath.FromSlash(rel))
	if fi, err, known := w.seen.Stat(rel); known {
		if err == nil {
			return fi, nil
		}
		if snap, ok := w.s.DocumentSnapshot(uri.File(p)); ok {
			return bufferInfo{name: filepath.Base(p), size: int64(len(snap.Text))}, nil
		}
		return nil, err
	}
	// wsfs refuses symlinks that lead out of the workspace.
	st, err := w.fsRoot().Stat(rel)
	if err == nil {
		return st, nil
	}
	if wsfs.ReasonOf(err) == wsfs.OutsideRoot {
		return nil, fs.ErrNotExist
	}
	if snap, ok := w.s.DocumentSnapshot(uri.File(p)); ok {
		return bufferInfo{name: filepath.Base(p), size: int64(len(snap.Text))}, nil
	}
	return nil, err
}

// ReadFile implements diagnostics.WorkspaceReader for cross-file rules: an
// open buffer wins, else the disk, never outside the folder.
func (w wsFS) ReadFile(rel string) ([]byte, error) {
	if !fs.ValidPath(rel) {
		return nil, fs.ErrNotExist
	}
	p := filepath.Join(w.root, filepath.FromSlash(rel))
	if snap, ok := w.s.DocumentSnapshot(uri.File(p)); ok {
		return snap.Text, nil
	}
	if w.seen.Absent(rel) {
		return nil, &wsfs.Error{Path: rel, Reason: wsfs.NotExist, Err: fs.ErrNotExist}
	}
	return w.fsRoot().Read(rel, diagnostics.MaxFileSize+1)
}

// ReadDir implements diagnostics.WorkspaceLister (duplicate-name rules),
// with Stat's confinement: a folder reached through a symlink out of the
// workspace lists as missing.
func (w wsFS) ReadDir(rel string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(rel) {
		return nil, fs.ErrNotExist
	}
	return w.fsRoot().ReadDir(rel)
}

// gitIgnoreChanged rescans below a .gitignore that was created, changed or
// deleted: files it no longer ignores are new to the server. Files it now
// ignores are cleared by the workspace re-check that follows every batch
// of watched-file changes (excluded reads the .gitignore files afresh).
func (s *Server) gitIgnoreChanged(u uri.URI) {
	p, ok := uriPath(u)
	if !ok || filepath.Base(p) != wsfs.GitIgnoreFile {
		return
	}
	if loc, ok := s.locate(u); ok && loc.root != "" {
		s.scanUnder(loc.root, filepath.Dir(p))
	}
}

// configChanged re-checks every known file when a workspace folder's
// .ahpls/config.json changed on disk: its overrides change findings
// anywhere (rulesFor's memo is keyed by the config's size and mtime).
func (s *Server) configChanged(u uri.URI) {
	p, ok := uriPath(u)
	if !ok || !strings.HasSuffix(filepath.ToSlash(p), "/"+settings.ConfigFile) {
		return
	}
	s.recheckAll(CauseConfig)
}

// excludes is the exclude set of workspace folder root: the defaults,
// `ahpls.exclude` and the folder's own .ahpls/config.json, and whether
// .gitignore files count there (yes unless the config says "gitignore":
// false). It is rebuilt when the settings or the config file (size,
// mtime) change.
func (s *Server) excludes(root string) exEntry {
	st := s.Settings()
	key := strings.Join(st.Exclude, "\x00")
	if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(settings.ConfigFile))); err == nil {
		key += fmt.Sprintf("\x00%d\x00%d", fi.Size(), fi.ModTime().UnixNano())
	}
	// The index says which files git tracks (never skipped for .gitignore).
	if st, err := os.Stat(filepath.Join(root, ".git", "index")); err == nil {
		key += fmt.Sprintf("\x00i%d\x00%d", st.Size(), st.ModTime().UnixNano())
	}
	s.exMu.Lock()
	defer s.exMu.Unlock()
	if c, ok := s.exCache[root]; ok && c.key == key {
		return c
	}
	folder, err := st.FolderOf(root, false)
	if err != nil {
		s.log.Warn("workspace config ignored", "folder", root, "error", err)
	}
	all, noGitIgnore := folder.Exclude, !folder.GitIgnore
	m, err := wsfs.NewMatcher(all)
	if err != nil {
		m, _ = wsfs.NewMatcher(nil) // globs were validated when parsed; keep the defaults
	}
	if s.exCache == nil {
		s.exCache = map[string]exEntry{}
	}
	e := exEntry{key: key, m: m, noGitIgnore: noGitIgnore, overrides: folder.Overrides}
	if !noGitIgnore {
		e.tracked, e.inRepo = wsfs.GitTracked(root)
	}
	s.exCache[root] = e
	return e
}

// exEntry is one cached exclude matcher and what it was built from.
type exEntry struct {
	key string
	// overrides are the config's "overrides" (rule levels by glob).
	overrides   []diagnostics.Override
	m           *wsfs.Matcher
	noGitIgnore bool
	inRepo      bool          // root is in a git work tree: .gitignore counts
	tracked     *wsfs.Tracked // what its index tracks
}

// excluded reports whether a located file is excluded from diagnostics
// (and so from publication): by a glob, or by .gitignore as the scan
// skips it (the .gitignore files on its path are read each time: a few
// small reads per paced check, and never stale).
func (s *Server) excluded(loc location) bool {
	if loc.root == "" {
		return false
	}
	e := s.excludes(loc.root)
	return e.m.Match(loc.rel) || (!e.noGitIgnore && e.inRepo && wsfs.IgnoredPath(loc.root, loc.rel, model.LoadedWhenIgnored, e.tracked))
}

// startFSWatch is the fallback when the editor cannot watch files for us:
// fsnotify on every folder below the workspace folders (directories only, as
// fsnotify recommends), rename treated as remove, overflow answered by a
// rescan.
func (s *Server) startFSWatch(roots []string) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		s.log.Warn("file watching unavailable", "error", err)
		return
	}
	add := func(dir string) {
		_ = w.Add(dir)
		_ = wsfs.Walk(dir, wsfs.WalkOptions{}, func(e wsfs.Entry) error {
			if e.IsDir() {
				_ = w.Add(filepath.Join(dir, filepath.FromSlash(e.Rel)))
			}
			return nil
		})
	}
	for _, r := range roots {
		add(r)
	}
	s.mu.Lock()
	if s.state == stateShutdown || s.ctx.Err() != nil {
		s.mu.Unlock()
		_ = w.Close()
		return
	}
	s.watcher = w
	s.mu.Unlock()
	go func() {
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				s.onFSEvent(ev, add)
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				if errors.Is(err, fsnotify.ErrEventOverflow) {
					s.log.Warn("file watcher overflowed; rescanning")
					for _, r := range roots {
						s.scanFolder(r)
					}
				}
			}
		}
	}()
}

func (s *Server) onFSEvent(ev fsnotify.Event, addDir func(string)) {
	p := filepath.Clean(ev.Name)
	u := uri.File(p)
	ours := model.MaybeCustomization(filepath.ToSlash(p))
	switch {
	case ev.Has(fsnotify.Remove), ev.Has(fsnotify.Rename):
		// A removed folder takes its files with it.
		s.forgetUnder(p)
		s.fileEvent(u, CauseDeleted)
	case ev.Has(fsnotify.Create):
		if st, err := os.Lstat(p); err == nil && st.IsDir() {
			addDir(p)
			if loc, ok := s.locate(u); ok && loc.root != "" {
				s.scanUnder(loc.root, p)
			}
			return
		}
		if !ours {
			s.notifyPath(u)
			return
		}
		s.fileEvent(u, CauseCreated)
	case ev.Has(fsnotify.Write):
		if !ours {
			s.notifyPath(u)
			return
		}
		s.fileEvent(u, CauseChanged)
	default:
		return
	}
	s.scheduleRecheckAll()
}

// bufferInfo describes an open buffer that is not on disk yet.
type bufferInfo struct {
	name string
	size int64
}

func (b bufferInfo) Name() string       { return b.name }
func (b bufferInfo) Size() int64        { return b.size }
func (b bufferInfo) Mode() fs.FileMode  { return 0o644 }
func (b bufferInfo) ModTime() time.Time { return time.Time{} }
func (b bufferInfo) IsDir() bool        { return false }
func (b bufferInfo) Sys() any           { return nil }
