package wsfs

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
)

// .gitignore governs only files git does not track: a committed file that a
// later .gitignore line matches is still in every clone, and consumers load
// it. So the walker honours .gitignore only inside a git work tree, and
// never for a path the work tree's index tracks. A tree without .git (an
// export, a snapshot) holds only what was committed: nothing is skipped.

// maxGitIndexSize bounds the index read; larger indexes are not read (and
// then .gitignore is not honoured: better checked than silently skipped).
const maxGitIndexSize = 256 << 20

// Tracked is the set of paths a git index tracks, relative to a walk root,
// with every folder above them.
type Tracked struct {
	files map[string]bool
	dirs  map[string]bool
}

// Has reports whether rel (a file, or a folder when dir) is tracked or
// holds a tracked file.
func (t *Tracked) Has(rel string, dir bool) bool {
	if t == nil {
		return false
	}
	if dir {
		return t.dirs[rel]
	}
	return t.files[rel]
}

// GitTracked finds the git work tree holding root (a .git folder or file at
// root or above) and returns the paths its index tracks below root. ok is
// false when root is in no work tree or the index cannot be read.
func GitTracked(root string) (t *Tracked, ok bool) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, false
	}
	top, gitDir := "", ""
	for d := abs; ; {
		p := filepath.Join(d, ".git")
		if st, err := os.Lstat(p); err == nil {
			switch {
			case st.IsDir():
				gitDir = p
			case st.Mode().IsRegular():
				// A worktree or submodule: "gitdir: <path>".
				b, err := ReadFile(p, 4096)
				if err != nil {
					return nil, false
				}
				g := strings.TrimSpace(strings.TrimPrefix(string(b), "gitdir:"))
				if !filepath.IsAbs(g) {
					g = filepath.Join(d, g)
				}
				gitDir = g
			}
			top = d
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, false
		}
		d = parent
	}
	b, err := ReadFile(filepath.Join(gitDir, "index"), maxGitIndexSize+1)
	if err != nil || len(b) > maxGitIndexSize {
		return nil, false
	}
	paths, ok := parseGitIndex(b)
	if !ok {
		return nil, false
	}
	prefix, err := filepath.Rel(top, abs)
	if err != nil {
		return nil, false
	}
	prefix = filepath.ToSlash(prefix)
	t = &Tracked{files: map[string]bool{}, dirs: map[string]bool{}}
	for _, p := range paths {
		if prefix != "." {
			var cut bool
			if p, cut = strings.CutPrefix(p, prefix+"/"); !cut {
				continue
			}
		}
		t.files[p] = true
		for d := p; ; {
			i := strings.LastIndexByte(d, '/')
			if i < 0 {
				break
			}
			d = d[:i]
			if t.dirs[d] {
				break
			}
			t.dirs[d] = true
		}
	}
	return t, true
}

// parseGitIndex reads the paths of a git index (versions 2, 3 and 4, SHA-1
// object names). ok is false for anything else.
func parseGitIndex(b []byte) (paths []string, ok bool) {
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return nil, false
	}
	version := binary.BigEndian.Uint32(b[4:8])
	n := binary.BigEndian.Uint32(b[8:12])
	if version < 2 || version > 4 || uint64(n) > uint64(len(b)) {
		return nil, false
	}
	const fixed = 40 + 20 + 2 // stat data, object name, flags
	pos := 12
	prev := ""
	for range n {
		if pos+fixed > len(b) {
			return nil, false
		}
		flags := binary.BigEndian.Uint16(b[pos+60 : pos+62])
		start := pos
		pos += fixed
		if version >= 3 && flags&0x4000 != 0 {
			pos += 2
		}
		if pos > len(b) {
			return nil, false
		}
		var name string
		if version == 4 {
			// The name drops some bytes of the previous one and adds a
			// NUL-terminated suffix.
			var drop int
			c := 0
			if pos >= len(b) {
				return nil, false
			}
			c = int(b[pos])
			pos++
			drop = c & 127
			for c&128 != 0 {
				if pos >= len(b) || drop > len(b) {
					return nil, false
				}
				c = int(b[pos])
				pos++
				drop = ((drop + 1) << 7) | (c & 127)
			}
			end := bytes.IndexByte(b[pos:], 0)
			if end < 0 || drop > len(prev) {
				return nil, false
			}
			name = prev[:len(prev)-drop] + string(b[pos:pos+end])
			pos += end + 1
		} else {
			end := bytes.IndexByte(b[pos:], 0)
			if end < 0 {
				return nil, false
			}
			name = string(b[pos : pos+end])
			// Entries are padded with 1 to 8 NULs to a multiple of 8.
			pos = start + ((pos-start+end)/8+1)*8
		}
		prev = name
		paths = append(paths, name)
	}
	return paths, true
}
