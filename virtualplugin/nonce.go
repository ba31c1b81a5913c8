package virtualplugin

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
)

// Nonce hashes a tree's canonical listing: each file's virtual path and
// content hash, sorted by path. The same content gives the same nonce
// whatever the scan order, mtimes or machine; any changed byte, renamed
// path, or added or removed file gives a new one. The path is
// length-prefixed so that no two listings can serialize alike.
func Nonce(files []*File) string {
	sorted := files
	if !sort.SliceIsSorted(files, func(i, j int) bool { return files[i].VPath < files[j].VPath }) {
		sorted = append([]*File(nil), files...)
		sort.Slice(sorted, func(i, j int) bool { return sorted[i].VPath < sorted[j].VPath })
	}
	h := sha256.New()
	var n [8]byte
	for _, f := range sorted {
		l := uint64(len(f.VPath))
		for i := range n {
			n[i] = byte(l >> (8 * i))
		}
		h.Write(n[:])
		h.Write([]byte(f.VPath))
		h.Write(f.Sum[:])
	}
	return "sha256-" + hex.EncodeToString(h.Sum(nil))[:32]
}
