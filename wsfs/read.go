// Package wsfs is the one way ahpls reads files and walks folders of a
// workspace it did not write: `ahpls check` in CI, the language server's
// scan and the publisher to an agent host all go through it.
//
// A repository can hold anything a file system can: FIFOs that block an
// open(2) forever, symlinks to /dev/zero or out of the workspace, symlink
// loops, sparse files of any size. The reader (ReadFile, ReadIn) accepts
// regular files only, decides that before it opens anything (Lstat after
// resolving symlinks), opens without blocking (O_NONBLOCK on Unix) and checks
// again on the open descriptor (fstat), then reads through a limited reader.
// The walker (Walk) lists directories without opening files and never
// follows a symlinked directory, so neither loops nor FIFOs can hang it.
//
// Errors are *Error values naming the path relative to the root they were
// asked under, never where a symlink points: their text may be shown to an
// agent host.
//
// Start at ReadIn (a file below a root), Walk (the files below a root) and
// Matcher (exclude globs).
package wsfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// Reason says why a file was refused.
type Reason int

const (
	// NotExist: nothing at the path (or a dangling symlink).
	NotExist Reason = iota + 1
	// NotRegular: a FIFO, socket, device, directory or other non-file.
	NotRegular
	// OutsideRoot: a symlink (or a chain) that leads out of the root.
	OutsideRoot
	// LinkLoop: a symlink chain that never ends (or is too long).
	LinkLoop
	// IOError: the file system refused (permissions, I/O error).
	IOError
)

func (r Reason) String() string {
	switch r {
	case NotExist:
		return "not found"
	case NotRegular:
		return "not a regular file"
	case OutsideRoot:
		return "a symlink that leads out of the workspace"
	case LinkLoop:
		return "a symlink loop"
	case IOError:
		return "unreadable"
	}
	return "refused"
}

// Error is a refused read. Path is what the caller asked for (relative to
// the root for ReadIn), Detail a short description of what is there (e.g.
// "a FIFO"); neither ever holds a symlink's target.
type Error struct {
	Path   string
	Reason Reason
	Detail string
	// Err is the underlying error for errors.Is (fs.ErrNotExist,
	// fs.ErrPermission); its text is not part of Error().
	Err error
}

func (e *Error) Error() string {
	d := e.Detail
	if d == "" {
		d = e.Reason.String()
	}
	return fmt.Sprintf("%s: %s", e.Path, d)
}

func (e *Error) Unwrap() error {
	if e.Err != nil {
		return e.Err
	}
	if e.Reason == NotExist {
		return fs.ErrNotExist
	}
	return nil
}

// ReasonOf returns the Reason of a refusal from this package, or 0.
func ReasonOf(err error) Reason {
	// The common case without errors.As, whose target escapes: this is
	// asked of every missing manifest of every folder.
	if e, ok := err.(*Error); ok {
		return e.Reason
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return 0
}

// Describe names a file mode for messages: "a FIFO", "a device", ….
func Describe(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// Root is a folder files are read below. Symlinks are resolved and must
// stay inside it. The zero value is not usable; see NewRoot.
type Root struct {
	dir  string // as given, cleaned
	real string // dir with symlinks resolved ("" when it is missing)
	// realDirs caches folders (rel) whose path from the root holds no
	// symlink, so resolving a file in them costs one lstat instead of one
	// per path component. A Root is meant to live for one run (a check,
	// one request): a folder swapped for a symlink during its life is
	// still caught for the final component by O_NOFOLLOW, not for parents.
	realDirs sync.Map
	// knownReal, when set, answers the same question from the caller's
	// own record of a folder walk (SetKnownRealDirs).
	knownReal func(rel string) bool
}

// NewRoot returns the root at dir. A missing dir is not an error here;
// every read below it fails with NotExist.
func NewRoot(dir string) *Root {
	dir = filepath.Clean(dir)
	// Absolute, so that resolved paths compare with it ("." would not).
	real, err := filepath.Abs(dir)
	if err == nil {
		real, err = filepath.EvalSymlinks(real)
	}
	if err != nil {
		real = ""
	}
	return &Root{dir: dir, real: real}
}

// SetKnownRealDirs hands the root a lookup for folders reached without a
// symlink, which it then asks before its own cache: `ahpls check` and the
// server's scan answer it from the walk's record (Seen.RealDir: a folder
// the walk listed as a folder, not a symlink), so a big walk does not
// keep a second copy of every folder's path here. Set it before the root
// is used; known must be safe for concurrent use.
func (r *Root) SetKnownRealDirs(known func(rel string) bool) { r.knownReal = known }

// Dir is the folder the root was made with.
func (r *Root) Dir() string { return r.dir }

// ReadIn reads rel below root; see Root.Read.
func ReadIn(root, rel string, limit int64) ([]byte, error) {
	return NewRoot(root).Read(rel, limit)
}

// Read reads rel (slash-separated, fs.ValidPath) below the root: symlinks
// are resolved and must stay inside it, the result must be a regular file,
// and at most limit bytes are read (pass the largest size you accept + 1 to
// tell a too-large file from one that fits). limit <= 0 means no limit.
func (r *Root) Read(rel string, limit int64) ([]byte, error) {
	p, st, err := r.resolve(rel)
	if err != nil {
		return nil, err
	}
	if st != nil {
		// resolve already lstat-ed p: skip the second lstat.
		if !st.Mode().IsRegular() {
			return nil, &Error{Path: rel, Reason: NotRegular, Detail: Describe(st.Mode())}
		}
		return readOpen(rel, p, limit, nil)
	}
	return readResolved(rel, p, limit)
}

// Stat returns the info of rel's target with symlinks resolved inside the
// root (any type: existence questions never open the file; Read decides
// whether it can be read).
func (r *Root) Stat(rel string) (fs.FileInfo, error) {
	p, st, err := r.resolve(rel)
	if err != nil {
		return nil, err
	}
	if st != nil {
		return st, nil
	}
	st, err = os.Lstat(p)
	if err != nil {
		return nil, statErr(rel, err)
	}
	return st, nil
}

// ReadDir lists the directory rel below the root (after resolving symlinks,
// which must stay inside it), sorted by name.
func (r *Root) ReadDir(rel string) ([]fs.DirEntry, error) {
	p, err := r.Resolve(rel)
	if err != nil {
		return nil, err
	}
	des, err := os.ReadDir(p)
	if err != nil {
		return des, statErr(rel, err)
	}
	return des, nil
}

// Resolve returns the real path of rel below the root with every symlink
// resolved, or an *Error when rel is not a valid relative path, does not
// exist, loops or leads out of the root.
func (r *Root) Resolve(rel string) (string, error) {
	p, _, err := r.resolve(rel)
	return p, err
}

// resolve is Resolve that also returns the lstat of the result when it
// made one on the final path (a plain file in a folder known to hold no
// symlink), so Stat and Read need not lstat it again; nil otherwise.
func (r *Root) resolve(rel string) (string, fs.FileInfo, error) {
	if rel == "" {
		rel = "."
	}
	if !fs.ValidPath(rel) {
		return "", nil, &Error{Path: rel, Reason: NotExist, Detail: "not a path inside the workspace", Err: fs.ErrNotExist}
	}
	if r.real == "" {
		return "", nil, &Error{Path: rel, Reason: NotExist, Detail: "the workspace folder is missing", Err: fs.ErrNotExist}
	}
	p := filepath.Join(r.real, filepath.FromSlash(rel))
	// A missing path is the common answer (broken links in Markdown): one
	// lstat settles it, and saying "missing" leaks nothing whichever way
	// the parents' symlinks lead.
	st, lerr := os.Lstat(p)
	if errors.Is(lerr, fs.ErrNotExist) {
		return "", nil, &Error{Path: rel, Reason: NotExist, Err: fs.ErrNotExist}
	}
	dir := path.Dir(rel)
	if dir == "." || r.knownReal != nil && r.knownReal(dir) || r.isRealDir(dir) {
		if lerr == nil && st.Mode()&fs.ModeSymlink == 0 {
			return p, st, nil
		}
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", nil, statErr(rel, err)
	}
	if !Within(r.real, real) {
		return "", nil, &Error{Path: rel, Reason: OutsideRoot}
	}
	if dir != "." && filepath.Dir(real) == filepath.Join(r.real, filepath.FromSlash(dir)) {
		r.realDirs.Store(dir, true)
	}
	return real, nil, nil
}

func (r *Root) isRealDir(dir string) bool {
	_, ok := r.realDirs.Load(dir)
	return ok
}

// ReadEntry reads a file the walker reported. A plain regular file below
// folders the walker entered (never through a symlink) needs no symlink
// resolution, so this is one open, one fstat and the read; anything else
// goes through Read.
func (r *Root) ReadEntry(e Entry, limit int64) ([]byte, error) {
	return r.ReadEntryInto(e, limit, nil)
}

// ReadEntryInto is ReadEntry reading into into's storage when it is large
// enough, so that a walk that lets go of each text before the next can
// read them all into one buffer (a 10,000-skill scan allocated 120 MB of
// buffers, one a file). The result then shares into's storage.
func (r *Root) ReadEntryInto(e Entry, limit int64, into []byte) ([]byte, error) {
	if e.Type.IsRegular() {
		return readOpen(e.Rel, filepath.Join(r.dir, filepath.FromSlash(e.Rel)), limit, into)
	}
	return r.Read(e.Rel, limit)
}

// Within reports whether p is dir or below it (both clean, absolute or both
// relative to the same place).
func Within(dir, p string) bool {
	if p == dir {
		return true
	}
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return strings.HasPrefix(p, dir)
	}
	return strings.HasPrefix(p, dir+string(filepath.Separator))
}

// ReadFile reads the file at p, which the caller chose (a path named on the
// command line, an editor's file outside any workspace folder): symlinks are
// followed wherever they lead, but the target must be a regular file, and
// at most limit bytes are read (limit <= 0: no limit).
func ReadFile(p string, limit int64) ([]byte, error) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil, statErr(p, err)
	}
	return readResolved(p, real, limit)
}

// readResolved reads real (no symlinks left) and names it as shown.
func readResolved(shown, real string, limit int64) ([]byte, error) {
	st, err := os.Lstat(real)
	if err != nil {
		return nil, statErr(shown, err)
	}
	if !st.Mode().IsRegular() {
		return nil, &Error{Path: shown, Reason: NotRegular, Detail: Describe(st.Mode())}
	}
	return readOpen(shown, real, limit, nil)
}

// readOpenFile opens p without blocking and without following a final
// symlink, and reads it if the descriptor is a regular file. readOpen (per
// platform) is this, or a leaner equivalent.
func readOpenFile(shown, p string, limit int64) ([]byte, error) {
	f, err := openNoBlock(p)
	if err != nil {
		return nil, statErr(shown, err)
	}
	defer f.Close()
	// The path may have been swapped between Lstat and open: trust only
	// the descriptor.
	fst, err := f.Stat()
	if err != nil {
		return nil, statErr(shown, err)
	}
	if !fst.Mode().IsRegular() {
		return nil, &Error{Path: shown, Reason: NotRegular, Detail: Describe(fst.Mode())}
	}
	var r io.Reader = f
	size := fst.Size()
	if limit > 0 {
		r = io.LimitReader(f, limit)
		if size > limit {
			size = limit
		}
	}
	// Size the buffer from fstat (bounded by limit) so one read fills it.
	buf := make([]byte, 0, size+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, statErr(shown, err)
		}
	}
}

// statErr turns an os error into an *Error naming shown only (the os
// error's own text would carry absolute paths).
func statErr(shown string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &Error{Path: shown, Reason: NotExist, Err: fs.ErrNotExist}
	case isLoop(err):
		return &Error{Path: shown, Reason: LinkLoop}
	case errors.Is(err, fs.ErrPermission):
		return &Error{Path: shown, Reason: IOError, Detail: "permission denied", Err: fs.ErrPermission}
	}
	return &Error{Path: shown, Reason: IOError}
}

// isLoop recognises "too many links" from EvalSymlinks (its own counter) and
// ELOOP from the kernel.
func isLoop(err error) bool {
	if isELOOP(err) {
		return true
	}
	return strings.Contains(err.Error(), "too many links")
}
