package server

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/settings"
	"github.com/ahpls-dev/ahpls/wsfolder"
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
func (part workspace) locate(u uri.URI) (location, bool) {
	s := part.s
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
func (part workspace) readPath(p string) ([]byte, error) {
	s := part.s
	if loc, ok := s.locate(uri.File(p)); ok {
		return readLoc(loc)
	}
	return wsfs.ReadFile(p, diagnostics.MaxFileSize+1)
}

// bufferIn is the wsfolder.Overlay of workspace folder root: its open
// buffers by path below it.
func (part workspace) bufferIn(root string) wsfolder.Overlay {
	s := part.s
	return func(rel string) ([]byte, bool) {
		snap, ok := s.DocumentSnapshot(uri.File(filepath.Join(root, filepath.FromSlash(rel))))
		return snap.Text, ok
	}
}

// wsLayout is the wsfolder.Layout of one check outside a scan: manifests on
// disk or in open buffers, memoised; made on first use, so that a check
// outside every folder (root "") costs nothing.
type wsLayout struct {
	s    *Server
	root string
	r    *wsfs.Root // nil: a fresh one (one per edit, shared with its wsFS)
	once sync.Once
	l    *wsfolder.Layout
}

func (l *wsLayout) layout() *wsfolder.Layout {
	l.once.Do(func() { l.l = wsfolder.NewLayout(wsFS{s: l.s, root: l.root, r: l.r}.folderFS()) })
	return l.l
}

// PluginRoot implements model.Layout.
func (l *wsLayout) PluginRoot(dir string) model.PluginFormat {
	if l.root == "" {
		return model.FormatNone
	}
	return l.layout().PluginRoot(dir)
}

// ClaudeListed implements model.ClaudeListing (implied targets).
func (l *wsLayout) ClaudeListed(dir string) bool {
	if l.root == "" {
		return false
	}
	return l.layout().ClaudeListed(dir)
}

// HasFile implements model.Files.
func (l *wsLayout) HasFile(rel string) bool {
	if l.root == "" {
		return false
	}
	return l.layout().HasFile(rel)
}

// wsFS is the wsfolder.FS of one check outside a scan: confined to the
// folder, open buffers counted as existing files.
type wsFS struct {
	s    *Server
	root string
	// r is the root shared by every read of one edit's check: a fresh
	// root per read resolved the workspace folder's path each time
	// (issue #42); nil makes one per call.
	r *wsfs.Root
}

func (w wsFS) folderFS() wsfolder.FS {
	r := w.r
	if r == nil {
		r = wsfs.NewRoot(w.root)
	}
	return wsfolder.FS{Root: r, Overlay: w.s.bufferIn(w.root)}
}

func (w wsFS) Stat(rel string) (fs.FileInfo, error)      { return w.folderFS().Stat(rel) }
func (w wsFS) ReadFile(rel string) ([]byte, error)       { return w.folderFS().ReadFile(rel) }
func (w wsFS) ReadDir(rel string) ([]fs.DirEntry, error) { return w.folderFS().ReadDir(rel) }

// gitIgnoreChanged rescans below a .gitignore that was created, changed or
// deleted: files it no longer ignores are new to the server. Files it now
// ignores are cleared by the workspace re-check that follows every batch
// of watched-file changes (excluded reads the .gitignore files afresh).
func (part workspace) gitIgnoreChanged(u uri.URI) {
	s := part.s
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
func (part workspace) configChanged(u uri.URI) {
	s := part.s
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
func (part workspace) excludes(root string) exEntry {
	s := part.s
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
	// The folder's config is read as `ahpls check` reads it (wsfolder).
	folder, err := wsfolder.ReadConfig(root, st.Exclude, false, func(msg string) {
		s.log.Warn("workspace config ignored", "detail", msg)
	})
	m, noGitIgnore := folder.Exclude, !folder.GitIgnore
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
func (part workspace) excluded(loc location) bool {
	s := part.s
	if loc.root == "" {
		return false
	}
	e := s.excludes(loc.root)
	return e.m.Match(loc.rel) || (!e.noGitIgnore && e.inRepo && wsfs.IgnoredPath(loc.root, loc.rel, model.LoadedWhenIgnored, e.tracked))
}

// textOf returns the text for u from an open buffer or disk.
func (part workspace) textOf(u uri.URI) []byte {
	s := part.s
	if snap, ok := s.DocumentSnapshot(u); ok {
		return snap.Text
	}
	if p, ok := uriPath(u); ok {
		if b, err := s.readPath(p); err == nil {
			return b
		}
	}
	return nil
}
