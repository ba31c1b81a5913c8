package virtualplugin

import (
	"container/list"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
)

// Encoded reads, cached by content hash (issue 16). A host may ask for the
// same published file many times at once; re-reading and re-encoding a
// 4 MiB file per request made each answer cost ~15 MB. The cache keeps the
// JSON of each ReadResult (base64 included) keyed by the file's sha256,
// the encoding asked for and the content type, bounded in bytes (least
// recently used goes first), so concurrent reads share one encoding.

// DefaultReadCacheBytes bounds the encoded results kept.
const DefaultReadCacheBytes = 32 << 20

type encKey struct {
	sum         [32]byte
	base64      bool
	contentType string
}

type encEntry struct {
	key encKey
	raw json.RawMessage
}

type encCache struct {
	mu    sync.Mutex
	items map[encKey]*list.Element
	lru   list.List
	bytes int64
	limit int64
}

func (c *encCache) get(k encKey) (json.RawMessage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[k]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(e)
	return e.Value.(*encEntry).raw, true
}

func (c *encCache) put(k encKey, raw json.RawMessage) {
	if int64(len(raw)) > c.limit {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.items == nil {
		c.items = map[encKey]*list.Element{}
	}
	if _, ok := c.items[k]; ok {
		return
	}
	c.items[k] = c.lru.PushFront(&encEntry{k, raw})
	c.bytes += int64(len(raw))
	for c.bytes > c.limit {
		last := c.lru.Back()
		ent := last.Value.(*encEntry)
		c.lru.Remove(last)
		delete(c.items, ent.key)
		c.bytes -= int64(len(ent.raw))
	}
}

// ReadJSON answers resourceRead like Read, as the encoded result, from the
// cache when the same content was encoded before. A cached answer is given
// only while the file is still where it was published: inside the root, a
// regular file of the published size (the content itself was hashed when
// it was encoded).
func (s *Server) ReadJSON(uri, encoding string) (json.RawMessage, error) {
	return s.ReadJSONAt(uri, "", encoding)
}

// ReadJSONAt is ReadJSON in the plugin version with that nonce. A kept
// version's file whose content changed on disk is answered from the cache
// when the host read that content before (the key is its hash), as long
// as the file is still there (keep.go).
func (s *Server) ReadJSONAt(uri, nonce, encoding string) (json.RawMessage, error) {
	p, root, vpath, kept, err := s.lookupAt(uri, nonce)
	if err != nil {
		return nil, err
	}
	f, ok := p.File(vpath)
	if !ok {
		return nil, notFound(uri)
	}
	key := encKey{sum: f.Sum, base64: encoding == "base64", contentType: contentType(vpath)}
	if raw, ok := s.enc.get(key); ok && (stillPublished(f, root) || kept && stillThere(f, root)) {
		return raw, nil
	}
	res, err := s.ReadAt(uri, nonce, encoding)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	s.enc.put(key, raw)
	return raw, nil
}

func stillPublished(f *File, root string) bool {
	if f.Data != nil {
		return true
	}
	real, err := filepath.EvalSymlinks(f.Source)
	if err != nil || !within(root, real) {
		return false
	}
	info, err := os.Stat(real)
	return err == nil && info.Mode().IsRegular() && info.Size() == f.Size
}
