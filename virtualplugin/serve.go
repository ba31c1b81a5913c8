package virtualplugin

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"sync"
	"unicode/utf8"

	"github.com/ahpls-dev/ahpls/wsfs"
)

// AHP error codes the reverse resource* answers use (ahp.md §7).
const (
	CodeMethodNotFound   = -32601
	CodeNotFound         = -32008
	CodePermissionDenied = -32009
)

// Error is a resource* failure with its AHP error code.
type Error struct {
	Code    int
	Message string
}

func (e *Error) Error() string { return e.Message }

func notFound(uri string) error { return &Error{CodeNotFound, "not found: " + uri} }
func denied(uri, why string) error {
	return &Error{CodePermissionDenied, fmt.Sprintf("read access not granted: %s (%s)", uri, why)}
}

// ReadOnly is the answer to every write-like request on a virtual tree.
var ReadOnly = &Error{CodePermissionDenied, "virtual:// plugin trees are read-only"}

// ResolveResult is resourceResolve's result.
type ResolveResult struct {
	URI         string `json:"uri"`
	Type        string `json:"type"`
	Size        *int64 `json:"size,omitempty"`
	ContentType string `json:"contentType,omitempty"`
	Etag        string `json:"etag,omitempty"`
}

// ListEntry is one child in resourceList's result.
type ListEntry struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// ListResult is resourceList's result.
type ListResult struct {
	Entries []ListEntry `json:"entries"`
}

// ReadResult is resourceRead's result.
type ReadResult struct {
	Data        string `json:"data"`
	Encoding    string `json:"encoding"`
	ContentType string `json:"contentType,omitempty"`
}

// Server answers the host's reverse reads for the currently published
// plugins of every workspace folder.
type Server struct {
	mu      sync.RWMutex
	plugins map[string]*Plugin // by "<folderKey>/<name>"
	roots   map[string]string  // plugin key → workspace folder its files must stay in
	keep    keepState          // superseded versions still readable by nonce (keep.go)
	enc     encCache           // encoded reads by content hash (readcache.go)
}

// NewServer returns an empty server.
func NewServer() *Server {
	return &Server{plugins: map[string]*Plugin{}, roots: map[string]string{}, enc: encCache{limit: DefaultReadCacheBytes},
		keep: keepState{byKey: map[string][]*keptVersion{}, versions: DefaultKeepVersions, limit: DefaultKeepBytes, untrusted: map[string]bool{}}}
}

// Publish replaces what is served for a snapshot's folder. A plugin
// version it replaces or leaves out stays readable by its nonce, within
// the bounds, unless withdrawn (keep.go).
func (s *Server) Publish(snap *Snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// What this publication carries, computed only when some version is
	// kept or superseded (an unchanged republish costs nothing more).
	var present map[string]bool
	carried := func() map[string]bool {
		if present == nil {
			present = publishedSources(snap)
		}
		return present
	}
	// Withdrawal first: no kept version carries a file this publication
	// no longer does. Every kept version's files were all in the previous
	// publication (checked when it was kept, and at each publication
	// since), so only a file that left the previous publication can
	// withdraw one: when none did, the kept versions are not walked.
	if s.keep.count > 0 {
		for k, old := range s.plugins {
			if len(k) > len(snap.Key) && k[:len(snap.Key)+1] == snap.Key+"/" && !carriedBy(old, carried()) {
				s.keep.filter(snap.Key, func(v *keptVersion) bool { return carriedBy(v.p, carried()) })
				break
			}
		}
	}
	next := make(map[string]*Plugin, len(snap.Plugins))
	for _, p := range snap.Plugins {
		next[snap.Key+"/"+p.Name] = p
	}
	for k, old := range s.plugins {
		if len(k) > len(snap.Key) && k[:len(snap.Key)+1] == snap.Key+"/" {
			if p, ok := next[k]; !ok || p.Nonce != old.Nonce {
				s.keep.supersede(k, snap.Key, old, s.roots[k], carried)
			}
			delete(s.plugins, k)
			delete(s.roots, k)
		}
	}
	for key, p := range next {
		s.keep.drop(key, p.Nonce) // current again
		s.plugins[key] = p
		s.roots[key] = snap.Folder
	}
}

// Plugin returns the served plugin for a URI, if any.
func (s *Server) Plugin(uri string) (*Plugin, bool) {
	key, _, err := parseURI(uri)
	if err != nil {
		return nil, false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, ok := s.plugins[key]
	return p, ok
}

// lookupAt finds the plugin version a request names: the current one when
// nonce is empty or the current nonce, else a kept version (kept true).
func (s *Server) lookupAt(uri, nonce string) (p *Plugin, root, vpath string, kept bool, err error) {
	key, vpath, err := parseURI(uri)
	if err != nil {
		if errors.Is(err, errNotVirtual) {
			return nil, "", "", false, denied(uri, "ahpls serves only its own virtual:// plugin trees")
		}
		return nil, "", "", false, denied(uri, err.Error())
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, ok := s.plugins[key]
	if ok && (nonce == "" || nonce == p.Nonce) {
		return p, s.roots[key], vpath, false, nil
	}
	if nonce != "" {
		if v := s.keep.find(key, nonce); v != nil {
			return v.p, v.root, vpath, true, nil
		}
		return nil, "", "", false, &Error{CodeNotFound, "not found: " + uri + " (version " + nonce + " is not kept)"}
	}
	return nil, "", "", false, notFound(uri)
}

// Resolve answers resourceResolve.
func (s *Server) Resolve(uri string) (*ResolveResult, error) { return s.ResolveAt(uri, "") }

// ResolveAt answers resourceResolve in the plugin version with that nonce
// (empty: the current one).
func (s *Server) ResolveAt(uri, nonce string) (*ResolveResult, error) {
	p, _, vpath, _, err := s.lookupAt(uri, nonce)
	if err != nil {
		return nil, err
	}
	p.index()
	if f, ok := p.byPath[vpath]; ok {
		size := f.Size
		return &ResolveResult{URI: uri, Type: "file", Size: &size, ContentType: contentType(vpath), Etag: "sha256-" + hex.EncodeToString(f.Sum[:8])}, nil
	}
	if _, ok := p.dirs[vpath]; ok {
		res := &ResolveResult{URI: uri, Type: "directory"}
		if vpath == "" {
			res.Etag = p.Nonce
		}
		return res, nil
	}
	return nil, notFound(uri)
}

// List answers resourceList: direct children of a directory.
func (s *Server) List(uri string) (*ListResult, error) { return s.ListAt(uri, "") }

// ListAt answers resourceList in the plugin version with that nonce.
func (s *Server) ListAt(uri, nonce string) (*ListResult, error) {
	p, _, vpath, _, err := s.lookupAt(uri, nonce)
	if err != nil {
		return nil, err
	}
	p.index()
	des, ok := p.dirs[vpath]
	if !ok {
		return nil, notFound(uri)
	}
	out := &ListResult{Entries: make([]ListEntry, len(des))}
	for i, d := range des {
		t := "file"
		if d.isDir {
			t = "directory"
		}
		out.Entries[i] = ListEntry{Name: d.name, Type: t}
	}
	return out, nil
}

// Read answers resourceRead. encoding is "utf-8", "base64" or empty (the
// server picks utf-8 for valid UTF-8 text, base64 otherwise).
func (s *Server) Read(uri, encoding string) (*ReadResult, error) { return s.ReadAt(uri, "", encoding) }

// ReadAt answers resourceRead in the plugin version with that nonce. A
// kept version's workspace file is read from disk, and served only while
// its content there is still the version's.
func (s *Server) ReadAt(uri, nonce, encoding string) (*ReadResult, error) {
	p, root, vpath, _, err := s.lookupAt(uri, nonce)
	if err != nil {
		return nil, err
	}
	f, ok := p.File(vpath)
	if !ok {
		return nil, notFound(uri)
	}
	data, err := readConfined(f, root)
	if err != nil {
		var ae *Error
		if errors.As(err, &ae) {
			ae.Message = ae.Message + ": " + uri
			return nil, ae
		}
		return nil, notFound(uri)
	}
	res := &ReadResult{ContentType: contentType(vpath)}
	if encoding != "base64" && utf8.Valid(data) && !bytes.ContainsRune(data, 0) {
		res.Encoding, res.Data = "utf-8", string(data)
	} else {
		res.Encoding, res.Data = "base64", base64.StdEncoding.EncodeToString(data)
	}
	return res, nil
}

// readConfined returns a file's published bytes. Disk files are re-checked
// at read time through the safe reader: the path must still resolve inside
// the file's unit (its skill folder, plugin root or folder, within root) to
// a regular file, opened without blocking (a FIFO swapped in is refused,
// not waited on), and its content must still be what the nonce promised.
// Error texts never name a path: they go to the host.
func readConfined(f *File, root string) ([]byte, error) {
	if f.Data != nil {
		return f.Data, nil
	}
	if f.Confine != "" && !within(root, f.Confine) {
		return nil, &Error{CodePermissionDenied, "read access not granted: the file is outside the workspace folder"}
	}
	if f.Confine == "" {
		f = &File{Source: f.Source, Confine: root, Sum: f.Sum}
	}
	data, err := ReadSource(f)
	switch wsfs.ReasonOf(err) {
	case 0:
	case wsfs.OutsideRoot:
		return nil, &Error{CodePermissionDenied, "read access not granted: the file now points outside what was published"}
	case wsfs.NotRegular, wsfs.LinkLoop:
		return nil, &Error{CodePermissionDenied, "read access not granted: not a regular file"}
	default:
		return nil, &Error{CodeNotFound, "not found"}
	}
	if sha256.Sum256(data) != f.Sum {
		return nil, &Error{CodeNotFound, "changed since it was published; a new version is on its way"}
	}
	return data, nil
}

func contentType(vpath string) string {
	switch path.Ext(vpath) {
	case ".md":
		return "text/markdown"
	case ".json":
		return "application/json"
	case ".txt":
		return "text/plain"
	case ".sh", ".py", ".js", ".ts":
		return "text/plain"
	}
	return "application/octet-stream"
}
