package wsfs

// The one write path. Every writer of workspace files (`ahpls check --fix`,
// and the checks the language server makes before it hands an editor an
// edit) goes through here, under the reader's rules: a path below a root,
// symlinks resolved and kept inside it, regular files only. A Writer opens
// its root once and holds it; every later step works relative to that
// handle (openat/renameat on Unix), so a folder swapped for a symlink after
// the root was opened cannot redirect a write. Right before the new text
// replaces the old, the file is checked again: still the same file, still
// one link, still the text the edit was planned from. The new file gets the
// old one's mode (setuid/setgid included) and owner.

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Reasons a write is refused, next to the reader's.
const (
	// Changed: the file is not the one (or no longer holds the text) the
	// edit was planned from.
	Changed Reason = 100 + iota
	// HardLinked: the file has other hard links, which replacing it would
	// silently cut.
	HardLinked
	// Exists: a rename's target already exists.
	Exists
	// OwnerLost: the new file could not be given the old one's owner.
	OwnerLost
)

// beforeCommit, when set (tests), runs after the new text is ready and
// before the final checks and the rename: the moment an attacker would
// swap the file.
var beforeCommit func(rel string)

// foldCase (tests) makes existence checks of rename targets ignore case,
// as on macOS and Windows file systems, so the temporary-name path of a
// case-only rename can be tested on a case-sensitive one.
var foldCase bool

// Writer changes files below one root. Close it when done.
type Writer struct {
	r *Root
	h writeHandle
}

// OpenWriter opens the root folder dir for writing below it. The folder is
// resolved once, here; later writes go through the open handle.
func OpenWriter(dir string) (*Writer, error) {
	r := NewRoot(dir)
	if r.real == "" {
		return nil, &Error{Path: dir, Reason: NotExist, Detail: "the workspace folder is missing", Err: fs.ErrNotExist}
	}
	h, err := openWriteHandle(r.real)
	if err != nil {
		return nil, statErr(dir, err)
	}
	return &Writer{r: r, h: h}, nil
}

// Root is the reader of the same folder.
func (w *Writer) Root() *Root { return w.r }

// Close releases the root handle.
func (w *Writer) Close() error { return w.h.close() }

// Replace writes data over rel if rel still holds old, atomically (a
// temporary file in the same folder renamed over it). rel may be a symlink
// that stays inside the root; the file it leads to is replaced and the
// link kept.
func (w *Writer) Replace(rel string, old, data []byte) error {
	in, err := w.inside(rel)
	if err != nil {
		return err
	}
	return w.h.replace(rel, in, old, data)
}

// inside resolves rel under the reader's rules and returns its real path
// relative to the root, slash-separated.
func (w *Writer) inside(rel string) (string, error) {
	real, err := w.r.Resolve(rel)
	if err != nil {
		return "", err
	}
	in, err := filepath.Rel(w.r.real, real)
	if err != nil || in == "." || !fs.ValidPath(filepath.ToSlash(in)) {
		return "", &Error{Path: rel, Reason: NotRegular, Detail: "the workspace folder itself"}
	}
	return filepath.ToSlash(in), nil
}

// Rename moves the entry oldRel (a file or folder; a symlink is moved as
// the link) to newRel, both below the root. The parents are resolved under
// the reader's rules. A case-only rename (PDF → pdf) goes through a
// temporary name, so it works where the file system ignores case.
func (w *Writer) Rename(oldRel, newRel string) error {
	steps, err := RenameSteps(w.r.dir, oldRel, newRel)
	if err != nil {
		return err
	}
	for i := 1; i < len(steps); i++ {
		from, err := w.parentInside(steps[i-1])
		if err != nil {
			return err
		}
		to, err := w.parentInside(steps[i])
		if err != nil {
			return err
		}
		if err := w.h.rename(steps[i], from, to); err != nil {
			return err
		}
	}
	return nil
}

// parentInside is inside for rel's parent, joined with rel's own name:
// the entry itself is never followed.
func (w *Writer) parentInside(rel string) (string, error) {
	if !fs.ValidPath(rel) || rel == "." {
		return "", &Error{Path: rel, Reason: NotExist, Detail: "not a path inside the workspace", Err: fs.ErrNotExist}
	}
	dir := path.Dir(rel)
	if dir == "." {
		return path.Base(rel), nil
	}
	in, err := w.inside(dir)
	if err != nil {
		return "", err
	}
	return in + "/" + path.Base(rel), nil
}

// RenameSteps plans moving oldRel to newRel below root: the names the entry
// takes in turn, oldRel first and newRel last. A case-only rename takes a
// temporary name between the two, since on a case-insensitive file system
// the target "exists" (it is the same entry) and one rename would be
// refused or do nothing. Any other existing target is refused, as are
// paths outside the root and the root itself. The language server turns
// the steps into RenameFile operations; Writer.Rename applies them.
func RenameSteps(root, oldRel, newRel string) ([]string, error) {
	for _, p := range []string{oldRel, newRel} {
		if !fs.ValidPath(p) || p == "." {
			return nil, &Error{Path: p, Reason: NotExist, Detail: "not a path inside the workspace (the workspace folder itself is never moved)", Err: fs.ErrNotExist}
		}
	}
	if oldRel == newRel {
		return []string{oldRel}, nil
	}
	r := NewRoot(root)
	if _, err := r.Resolve(path.Dir(oldRel)); err != nil {
		return nil, err
	}
	if _, err := r.Resolve(path.Dir(newRel)); err != nil {
		return nil, err
	}
	src, err := lstatIn(r, oldRel)
	if err != nil {
		return nil, statErr(oldRel, err)
	}
	caseOnly := strings.EqualFold(oldRel, newRel)
	if dst, err := lstatIn(r, newRel); err == nil {
		// On a case-insensitive file system the new spelling finds the
		// old entry: that is not a clash.
		if !caseOnly || !os.SameFile(src, dst) {
			return nil, &Error{Path: newRel, Reason: Exists, Detail: "already exists"}
		}
	}
	if !caseOnly {
		return []string{oldRel, newRel}, nil
	}
	tmp := path.Join(path.Dir(oldRel), "."+path.Base(newRel)+".ahpls-rename-"+randomSuffix())
	return []string{oldRel, tmp, newRel}, nil
}

// lstatIn lstats rel (its parent resolved inside r), folding case when
// the foldCase seam asks for it.
func lstatIn(r *Root, rel string) (fs.FileInfo, error) {
	parent, err := r.Resolve(path.Dir(rel))
	if err != nil {
		return nil, err
	}
	st, err := os.Lstat(filepath.Join(parent, path.Base(rel)))
	if err != nil && foldCase && errors.Is(err, fs.ErrNotExist) {
		des, derr := os.ReadDir(parent)
		if derr != nil {
			return nil, err
		}
		for _, de := range des {
			if strings.EqualFold(de.Name(), path.Base(rel)) {
				return os.Lstat(filepath.Join(parent, de.Name()))
			}
		}
	}
	return st, err
}

// EditTarget is the check the language server makes before it offers an
// edit of rel below root (a quick fix, fix-all, a rename's reference
// update), the same one Writer.Replace makes before writing: rel resolves
// inside root, and is a regular file. An editor applying the edit writes
// wherever the path leads, so an edit of a symlink out of the workspace
// must never be offered.
func EditTarget(root, rel string) error {
	st, err := NewRoot(root).Stat(rel)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return &Error{Path: rel, Reason: NotRegular, Detail: Describe(st.Mode())}
	}
	return nil
}

// Confined reports whether p (absolute) is root or below it once every
// symlink is resolved; a path that does not exist yet counts by its
// nearest existing parent. Links and definitions offered to an editor
// use it, so none points through a symlink out of the workspace.
func Confined(root, p string) bool {
	rr, err := filepath.EvalSymlinks(root)
	if err != nil {
		return false
	}
	rr, _ = filepath.Abs(rr)
	p = filepath.Clean(p)
	for q := p; ; q = filepath.Dir(q) {
		real, err := filepath.EvalSymlinks(q)
		if err == nil {
			real, _ = filepath.Abs(real)
			return Within(rr, real)
		}
		if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(q) == q {
			return false
		}
		if _, lerr := os.Lstat(q); lerr == nil {
			return false // a dangling symlink: its target is unknown
		}
	}
}

// Contains reports whether rel (slash-separated, below the root) has its
// real path inside the root; a path that does not exist counts by its
// nearest existing parent, and a dangling or looping link does not count.
// Unlike Confined it resolves the root once, and folders known to hold no
// symlink cost one lstat: for many paths under one root (a file's links).
func (r *Root) Contains(rel string) bool {
	if !fs.ValidPath(rel) || r.real == "" {
		return false
	}
	for q := rel; ; q = path.Dir(q) {
		_, _, err := r.resolve(q)
		if err == nil {
			return true
		}
		if ReasonOf(err) != NotExist || q == "." {
			return false
		}
		if _, lerr := os.Lstat(filepath.Join(r.real, filepath.FromSlash(q))); lerr == nil {
			return false // there, but leads nowhere: a dangling link
		}
	}
}

// changedErr names a file that is not what the edit was planned from.
func changedErr(rel string) error {
	return &Error{Path: rel, Reason: Changed, Detail: "changed on disk since ahpls read it; nothing was written (run again to fix the new text)"}
}

// hardLinkErr names a file with other hard links.
func hardLinkErr(rel string, n uint64) error {
	return &Error{Path: rel, Reason: HardLinked, Detail: fmt.Sprintf("has %d hard links; replacing it would cut the others off, so ahpls leaves it alone (apply the fix by hand)", n)}
}

// tempName is a fresh name for the new text beside name.
func tempName(name string) string {
	return "." + name + ".ahpls-" + randomSuffix()
}

func randomSuffix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
