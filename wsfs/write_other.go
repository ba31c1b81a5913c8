//go:build !unix

package wsfs

import (
	"bytes"
	"io"
	"os"
	"path"
)

// writeHandle outside Unix is an os.Root: it opens paths below the folder
// it holds and refuses any that a symlink leads out of. There is no
// openat(O_NOFOLLOW) to pin each step, so the file is checked again (same
// file, same text, no link) right before the rename.
type writeHandle struct{ r *os.Root }

func openWriteHandle(real string) (writeHandle, error) {
	r, err := os.OpenRoot(real)
	return writeHandle{r}, err
}

func (h writeHandle) close() error { return h.r.Close() }

func (h writeHandle) replace(shown, in string, old, data []byte) error {
	name := path.Base(in)
	st, err := h.r.Lstat(in)
	if err != nil {
		return statErr(shown, err)
	}
	if !st.Mode().IsRegular() {
		return &Error{Path: shown, Reason: NotRegular, Detail: Describe(st.Mode())}
	}
	f, err := h.r.Open(in)
	if err != nil {
		return statErr(shown, err)
	}
	defer f.Close()
	fst, err := f.Stat()
	if err != nil || !os.SameFile(st, fst) {
		return changedErr(shown)
	}
	if n, ok := linkCount(f); ok && n > 1 {
		return hardLinkErr(shown, n)
	}
	if err := sameTextFile(shown, f, old); err != nil {
		return err
	}
	tmp := path.Join(path.Dir(in), tempName(name))
	t, err := h.r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, st.Mode().Perm())
	if err != nil {
		return statErr(shown, err)
	}
	_, werr := t.Write(data)
	if werr == nil {
		werr = t.Sync()
	}
	if cerr := t.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		h.r.Remove(tmp)
		return statErr(shown, werr)
	}
	if beforeCommit != nil {
		beforeCommit(shown)
	}
	now, err := h.r.Lstat(in)
	if err != nil || !now.Mode().IsRegular() || !os.SameFile(st, now) {
		h.r.Remove(tmp)
		return changedErr(shown)
	}
	if err := sameTextFile(shown, f, old); err != nil {
		h.r.Remove(tmp)
		return err
	}
	if err := h.r.Rename(tmp, in); err != nil {
		h.r.Remove(tmp)
		return statErr(shown, err)
	}
	return nil
}

// sameTextFile reads f from its start and compares it with old.
func sameTextFile(shown string, f *os.File, old []byte) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return statErr(shown, err)
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(len(old))+1))
	if err != nil {
		return statErr(shown, err)
	}
	if !bytes.Equal(b, old) {
		return changedErr(shown)
	}
	return nil
}

func (h writeHandle) rename(shown, from, to string) error {
	src, err := h.r.Lstat(from)
	if err != nil {
		return statErr(shown, err)
	}
	if there, err := h.r.Lstat(to); err == nil && !os.SameFile(src, there) {
		return &Error{Path: shown, Reason: Exists, Detail: "already exists"}
	}
	if err := h.r.Rename(from, to); err != nil {
		return statErr(shown, err)
	}
	return nil
}
