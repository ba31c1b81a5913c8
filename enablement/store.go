package enablement

import (
	"bytes"
	"container/list"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// StoreCapacity bounds decisions across Global and Workspace together.
const StoreCapacity = 512

// maxStoreFile: anything larger is treated as corrupt rather than parsed.
const maxStoreFile = 1 << 20

const storeVersion = 1

// lruEntry names one stored decision; recency changes on writes only.
type lruEntry struct {
	Scope Kind   `json:"scope"`
	Key   string `json:"key"`
	Dir   string `json:"dir,omitempty"`
}

type storeFile struct {
	Version            int                        `json:"version"`
	Folder             string                     `json:"folder,omitempty"`
	Global             map[string]bool            `json:"global,omitempty"`
	WorkingDirectories map[string]map[string]bool `json:"workingDirectories,omitempty"`
	LRU                []lruEntry                 `json:"lru"`
}

// Durable is a copy of a store's decisions, in the file's shape.
type Durable struct {
	Global             map[string]bool            `json:"global,omitempty"`
	WorkingDirectories map[string]map[string]bool `json:"workingDirectories,omitempty"`
}

// Store holds durable Global and Workspace decisions in a bounded LRU,
// persisted as one JSON file written atomically. Both the host's overlay
// and the client's own Global decisions use it. Safe for concurrent use.
type Store struct {
	mu     sync.Mutex
	path   string // "" = memory only
	folder string
	log    *slog.Logger
	cap    int

	global map[string]bool
	dirs   map[string]map[string]bool
	lru    *list.List // of lruEntry, front = oldest
	index  map[lruEntry]*list.Element

	// beforeRename lets tests stop a write between the fsynced temp file and
	// the rename, as a crash would.
	beforeRename func() error
}

// OpenStore loads the store at path ("" = memory only). It never fails: a
// missing file is an empty store; a corrupt one (bad JSON, shape or version,
// or over 1 MiB) is logged once, renamed to <path>.corrupt, and the store
// starts empty. Leftover temp files from an interrupted write are removed.
func OpenStore(path string, log *slog.Logger) *Store {
	return openStore(path, "", log)
}

func openStore(path, folder string, log *slog.Logger) *Store {
	if log == nil {
		log = slog.New(slog.DiscardHandler) // the caller passes the process's logger
	}
	s := &Store{path: path, folder: folder, log: log, cap: StoreCapacity,
		global: map[string]bool{}, dirs: map[string]map[string]bool{},
		lru: list.New(), index: map[lruEntry]*list.Element{}}
	if path == "" {
		return s
	}
	s.removeStrayTemps()
	f, err := s.read()
	switch {
	case errors.Is(err, os.ErrNotExist):
	case errors.Is(err, errCorrupt):
		s.log.Warn("enablement: corrupt store, starting empty", "path", path, "err", err)
		if rerr := os.Rename(path, path+".corrupt"); rerr != nil {
			s.log.Warn("enablement: cannot set corrupt store aside", "path", path, "err", rerr)
		}
	case err != nil:
		s.log.Warn("enablement: cannot read store, starting empty", "path", path, "err", err)
	default:
		s.load(f)
	}
	return s
}

var errCorrupt = errors.New("corrupt")

func (s *Store) read() (*storeFile, error) {
	fh, err := os.Open(s.path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxStoreFile+1))
	if err != nil {
		return nil, err
	}
	return decodeStoreFile(data, s.folder)
}

// decodeStoreFile checks and decodes a store file's bytes; every way it can
// be wrong is errCorrupt.
func decodeStoreFile(data []byte, folder string) (*storeFile, error) {
	if len(data) > maxStoreFile {
		return nil, fmt.Errorf("%w: larger than %d bytes", errCorrupt, maxStoreFile)
	}
	var f storeFile
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: %v", errCorrupt, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: trailing data", errCorrupt)
	}
	if f.Version != storeVersion {
		return nil, fmt.Errorf("%w: version %d", errCorrupt, f.Version)
	}
	if f.Folder != folder {
		return nil, fmt.Errorf("%w: file belongs to folder %q", errCorrupt, f.Folder)
	}
	for _, e := range f.LRU {
		if e.Scope != KindGlobal && e.Scope != KindWorkspace {
			return nil, fmt.Errorf("%w: lru scope %q", errCorrupt, e.Scope)
		}
	}
	return &f, nil
}

// load installs f: LRU entries without a decision go, decisions without an
// LRU entry are appended in sorted key order, the capacity is enforced.
func (s *Store) load(f *storeFile) {
	maps.Copy(s.global, f.Global)
	for dir, m := range f.WorkingDirectories {
		if len(m) > 0 {
			s.dirs[dir] = maps.Clone(m)
		}
	}
	for _, e := range f.LRU {
		if _, dup := s.index[e]; dup || !s.has(e) {
			continue
		}
		s.index[e] = s.lru.PushBack(e)
	}
	var missing []lruEntry
	for k := range s.global {
		if e := (lruEntry{Scope: KindGlobal, Key: k}); s.index[e] == nil {
			missing = append(missing, e)
		}
	}
	for dir, m := range s.dirs {
		for k := range m {
			if e := (lruEntry{Scope: KindWorkspace, Key: k, Dir: dir}); s.index[e] == nil {
				missing = append(missing, e)
			}
		}
	}
	slices.SortFunc(missing, func(a, b lruEntry) int {
		return strings.Compare(a.Key+"\x00"+a.Dir+"\x00"+string(a.Scope), b.Key+"\x00"+b.Dir+"\x00"+string(b.Scope))
	})
	for _, e := range missing {
		s.index[e] = s.lru.PushBack(e)
	}
	s.evict()
}

func (s *Store) has(e lruEntry) bool {
	if e.Scope == KindGlobal {
		_, ok := s.global[e.Key]
		return ok
	}
	_, ok := s.dirs[e.Dir][e.Key]
	return ok
}

func (s *Store) evict() {
	for s.lru.Len() > s.cap {
		e := s.lru.Remove(s.lru.Front()).(lruEntry)
		delete(s.index, e)
		s.drop(e)
	}
}

func (s *Store) drop(e lruEntry) {
	if e.Scope == KindGlobal {
		delete(s.global, e.Key)
		return
	}
	delete(s.dirs[e.Dir], e.Key)
	if len(s.dirs[e.Dir]) == 0 {
		delete(s.dirs, e.Dir)
	}
}

func (s *Store) touch(e lruEntry) {
	if el := s.index[e]; el != nil {
		s.lru.MoveToBack(el)
	} else {
		s.index[e] = s.lru.PushBack(e)
	}
	s.evict()
}

// Global returns the stored Global decision for key.
func (s *Store) Global(key string) (enabled, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	enabled, ok = s.global[key]
	return
}

// Workspace returns the stored Workspace decision for key in dir.
func (s *Store) Workspace(dir, key string) (enabled, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	enabled, ok = s.dirs[dir][key]
	return
}

// Dirs lists the directories holding Workspace decisions, sorted.
func (s *Store) Dirs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.dirs))
}

// Len is the number of stored decisions (LRU entries).
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lru.Len()
}

// Snapshot copies the decisions.
func (s *Store) Snapshot() Durable {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := Durable{Global: maps.Clone(s.global), WorkingDirectories: map[string]map[string]bool{}}
	for dir, m := range s.dirs {
		d.WorkingDirectories[dir] = maps.Clone(m)
	}
	return d
}

// SetGlobal stores a Global decision and makes it the most recent.
func (s *Store) SetGlobal(key string, enabled bool) error {
	return s.set(lruEntry{Scope: KindGlobal, Key: key}, enabled)
}

// DeleteGlobal removes a Global decision; it reports whether one existed.
func (s *Store) DeleteGlobal(key string) (bool, error) {
	return s.del(lruEntry{Scope: KindGlobal, Key: key})
}

// SetWorkspace stores a Workspace decision for dir.
func (s *Store) SetWorkspace(dir, key string, enabled bool) error {
	return s.set(lruEntry{Scope: KindWorkspace, Key: key, Dir: dir}, enabled)
}

// DeleteWorkspace removes a Workspace decision; it reports whether one existed.
func (s *Store) DeleteWorkspace(dir, key string) (bool, error) {
	return s.del(lruEntry{Scope: KindWorkspace, Key: key, Dir: dir})
}

func (s *Store) set(e lruEntry, enabled bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.Scope == KindGlobal {
		s.global[e.Key] = enabled
	} else {
		if s.dirs[e.Dir] == nil {
			s.dirs[e.Dir] = map[string]bool{}
		}
		s.dirs[e.Dir][e.Key] = enabled
	}
	s.touch(e)
	return s.persist()
}

func (s *Store) del(e lruEntry) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.has(e) {
		return false, nil
	}
	s.drop(e)
	if el := s.index[e]; el != nil {
		s.lru.Remove(el)
		delete(s.index, e)
	}
	return true, s.persist()
}

func (s *Store) persist() error {
	if s.path == "" {
		return nil
	}
	if s.lru.Len() == 0 {
		if err := os.Remove(s.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	f := storeFile{Version: storeVersion, Folder: s.folder, Global: s.global, LRU: []lruEntry{}}
	if len(s.dirs) > 0 {
		f.WorkingDirectories = s.dirs
	}
	for el := s.lru.Front(); el != nil; el = el.Next() {
		f.LRU = append(f.LRU, el.Value.(lruEntry))
	}
	data, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return writeFileAtomic(s.path, data, s.beforeRename)
}

const tempInfix = ".tmp-"

func (s *Store) removeStrayTemps() {
	matches, _ := filepath.Glob(globEscape(s.path) + tempInfix + "*")
	for _, m := range matches {
		_ = os.Remove(m)
	}
}

func globEscape(p string) string {
	r := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)
	return r.Replace(p)
}

// writeFileAtomic leaves either the old or the new content at path, never a
// mix: temp file in the same directory, fsync, rename, fsync the directory.
func writeFileAtomic(path string, data []byte, beforeRename func() error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+tempInfix+"*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, werr := tmp.Write(data)
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil && beforeRename != nil {
		// A "crash" here leaves the temp file behind on purpose.
		if err := beforeRename(); err != nil {
			return err
		}
	}
	if werr == nil {
		werr = os.Rename(name, path)
	}
	if werr != nil {
		_ = os.Remove(name)
		return werr
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // best effort: not every filesystem supports it
		_ = d.Close()
	}
	return nil
}

// SessionData persists a session's Session-scope decisions, keyed by
// customization id, alongside the session.
type SessionData interface {
	Load(session string) (map[string]bool, error)
	Save(session string, decisions map[string]bool) error
}

// SessionFiles stores each session's decisions as one JSON file in Dir.
type SessionFiles struct{ Dir string }

func (f SessionFiles) file(session string) string {
	return filepath.Join(f.Dir, hashName(session, 16)+".json")
}

// Load reads a session's decisions; none stored is an empty map.
func (f SessionFiles) Load(session string) (map[string]bool, error) {
	data, err := os.ReadFile(f.file(session))
	if errors.Is(err, os.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	if len(data) > maxStoreFile {
		return nil, fmt.Errorf("session decisions larger than %d bytes", maxStoreFile)
	}
	var m map[string]bool
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]bool{}
	}
	return m, nil
}

// Save writes a session's decisions atomically; an empty map removes the file.
func (f SessionFiles) Save(session string, decisions map[string]bool) error {
	if len(decisions) == 0 {
		err := os.Remove(f.file(session))
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	data, err := json.Marshal(decisions)
	if err != nil {
		return err
	}
	return writeFileAtomic(f.file(session), data, nil)
}
