package wsfs

import (
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"time"
)

// Seen is the record of what a folder walk saw: the folders it listed in
// full, each with its entries, and the entries it reported without
// listing (those .gitignore left out: they exist, so a link to one is not
// broken). Rules ask whether thousands of paths exist (links in Markdown,
// a parent skill's SKILL.md) and probe every folder for plugin manifests
// that are nearly always absent; `ahpls check` and the server's scan
// answer those from here without a syscall, and ask the disk only what the
// walk has not seen (a folder not listed yet, an excluded path, a
// symlink, whose target decides).
//
// The walk's own entry slices are kept, not copied into a map of every
// path: on a big tree this record is most of what a check holds. A nil
// *Seen knows nothing. Safe for concurrent use: the walk is still under
// way while files are checked.
type Seen struct {
	mu     sync.RWMutex
	listed map[string][]Entry // folder ("" for the root) → entries in path order
	extra  map[string]fs.FileMode
	ex     *Matcher
}

// NewSeen returns an empty record for a walk with the exclusions ex
// (excluded paths may exist: the walk keeps no record of them).
func NewSeen(ex *Matcher) *Seen {
	return &Seen{listed: map[string][]Entry{}, extra: map[string]fs.FileMode{}, ex: ex}
}

// Listed records a folder's complete listing; it has the shape of
// WalkOptions.Listed. es must be in path order and must not change
// afterwards (the walk's listings are both).
func (s *Seen) Listed(rel string, es []Entry) {
	s.mu.Lock()
	s.listed[rel] = es
	s.mu.Unlock()
}

// Saw records one entry the walk reported without listing it (a skipped,
// gitignored path that exists).
func (s *Seen) Saw(e Entry) {
	s.mu.Lock()
	s.extra[e.Rel] = e.Type
	s.mu.Unlock()
}

// lookup is what the walk knows of rel: its folder ("" for the root),
// whether that folder was listed, and rel's type if the walk saw it.
func (s *Seen) lookup(rel string) (dir string, listed bool, t fs.FileMode, seen bool) {
	dir = path.Dir(rel)
	if dir == "." {
		dir = ""
	}
	s.mu.RLock()
	es, listed := s.listed[dir]
	t, seen = s.extra[rel]
	s.mu.RUnlock()
	if i, ok := slices.BinarySearchFunc(es, rel, func(e Entry, rel string) int { return strings.Compare(e.Rel, rel) }); ok {
		t, seen = es[i].Type, true
	}
	return dir, listed, t, seen
}

// RealDir reports that rel is a folder the walk listed as a folder: it
// was reached without a symlink (the walk enters none), which is the
// question Root.SetKnownRealDirs asks.
func (s *Seen) RealDir(rel string) bool {
	if s == nil {
		return false
	}
	_, listed, t, seen := s.lookup(rel)
	return listed && seen && t == fs.ModeDir
}

// Stat answers Stat for rel from the walk when it can. known is false
// when the walk did not list rel's folder, rel is excluded (it may exist;
// the walk kept no record) or a symlink (whose target decides); the
// caller then asks the disk. An absence is an *Error with NotExist.
func (s *Seen) Stat(rel string) (fi fs.FileInfo, err error, known bool) {
	if s == nil || !fs.ValidPath(rel) || rel == "." {
		return nil, nil, false
	}
	_, listed, t, seen := s.lookup(rel)
	switch {
	case !listed || t&fs.ModeSymlink != 0:
		return nil, nil, false
	case seen:
		return seenInfo{name: path.Base(rel), mode: t}, nil, true
	case s.ex.Match(rel):
		return nil, nil, false
	}
	return nil, &Error{Path: rel, Reason: NotExist, Err: fs.ErrNotExist}, true
}

// Absent reports that rel surely does not exist: its folder was listed
// and rel was neither among the entries nor excluded, or its folder is
// itself absent. Anything else answers false and the caller reads.
func (s *Seen) Absent(rel string) bool {
	if s == nil || !fs.ValidPath(rel) || rel == "." {
		return false
	}
	dir, listed, _, seen := s.lookup(rel)
	if !listed {
		return dir != "" && s.Absent(dir)
	}
	return !seen && !s.ex.Match(rel)
}

// seenInfo is the fs.FileInfo of an entry the walk saw: its name and
// type, which is all the rules ask of Stat (existence, folder or file).
type seenInfo struct {
	name string
	mode fs.FileMode
}

func (i seenInfo) Name() string       { return i.name }
func (i seenInfo) Size() int64        { return 0 }
func (i seenInfo) Mode() fs.FileMode  { return i.mode }
func (i seenInfo) ModTime() time.Time { return time.Time{} }
func (i seenInfo) IsDir() bool        { return i.mode.IsDir() }
func (i seenInfo) Sys() any           { return nil }
