package server

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
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
	b, err := readLimited(p)
	return b, err == nil
}

// readLimited reads at most one byte more than the rules check, so a huge
// file costs 4 MiB, not its size, and still trips file/too-large.
func readLimited(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, errors.New("is a directory")
	}
	return io.ReadAll(io.LimitReader(f, diagnostics.MaxFileSize+1))
}

// wsLayout answers plugin-root questions from manifests on disk or in open
// buffers; one per check, memoised.
type wsLayout struct {
	s    *Server
	root string
	mu   sync.Mutex
	memo map[string]model.PluginFormat
}

func (l *wsLayout) PluginRoot(dir string) model.PluginFormat {
	if l.root == "" {
		return model.FormatNone
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if f, ok := l.memo[dir]; ok {
		return f
	}
	f := diagnostics.DetectPluginFormat(func(rel string) ([]byte, bool) { return l.s.readRel(l.root, rel) }, dir)
	if l.memo == nil {
		l.memo = map[string]model.PluginFormat{}
	}
	l.memo[dir] = f
	return f
}

// wsFS is diagnostics.WorkspaceFS confined to one folder; open buffers count
// as existing files.
type wsFS struct {
	s    *Server
	root string
}

func (w wsFS) Stat(rel string) (fs.FileInfo, error) {
	if !fs.ValidPath(rel) {
		return nil, fs.ErrNotExist
	}
	p := filepath.Join(w.root, filepath.FromSlash(rel))
	st, err := os.Stat(p)
	if err == nil {
		// Refuse symlinks that lead out of the workspace.
		if real, err2 := filepath.EvalSymlinks(p); err2 == nil {
			rootReal, _ := filepath.EvalSymlinks(w.root)
			if rootReal != "" && real != rootReal && !strings.HasPrefix(real, rootReal+string(filepath.Separator)) {
				return nil, fs.ErrNotExist
			}
		}
		return st, nil
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
	if _, err := w.Stat(rel); err != nil {
		return nil, err
	}
	return readLimited(p)
}

// ReadDir implements diagnostics.WorkspaceLister (duplicate-name rules),
// with Stat's confinement: a folder reached through a symlink out of the
// workspace lists as missing.
func (w wsFS) ReadDir(rel string) ([]fs.DirEntry, error) {
	if _, err := w.Stat(rel); err != nil {
		return nil, err
	}
	return os.ReadDir(filepath.Join(w.root, filepath.FromSlash(rel)))
}

// scanFolder walks a workspace folder for customization files (depth ≤
// model.MaxDepth, skipping .git and node_modules, never following symlinks)
// and feeds each into the funnel.
func (s *Server) scanFolder(root string) int { return s.scanUnder(root, root) }

// scanUnder scans the part of workspace folder root below start.
func (s *Server) scanUnder(root, start string) int {
	layout := &wsLayout{s: s, root: root}
	n := 0
	_ = filepath.WalkDir(start, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if e.IsDir() {
			if p != root && rel != "." && (model.SkipDir(e.Name()) || strings.Count(rel, "/") >= model.MaxDepth) {
				return filepath.SkipDir
			}
			return nil
		}
		if e.Type()&fs.ModeSymlink != 0 || !e.Type().IsRegular() {
			return nil
		}
		if model.Classify(rel, layout) == model.KindNone {
			return nil
		}
		n++
		s.fileEvent(uri.File(p), CauseScan)
		return nil
	})
	return n
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
	add := func(root string) {
		_ = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil || !e.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			if p != root && (model.SkipDir(e.Name()) || strings.Count(filepath.ToSlash(rel), "/") >= model.MaxDepth) {
				return filepath.SkipDir
			}
			_ = w.Add(p)
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
	ext := strings.ToLower(filepath.Ext(p))
	ours := ext == ".md" || ext == ".json"
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
