package wsfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Entry is one thing the walker found: a file, a directory, a symlink (never
// followed: a symlinked folder is reported, not entered) or anything else a
// folder can hold. Type is the type part of its mode as the directory
// listing reports it, before any symlink.
type Entry struct {
	Rel  string      // slash-separated, relative to the walked root
	Type fs.FileMode // fs.ModeDir, fs.ModeSymlink, fs.ModeNamedPipe, … (0: regular file)
}

// IsDir reports a directory (not a symlink to one).
func (e Entry) IsDir() bool { return e.Type.IsDir() }

// WalkOptions bound a walk.
type WalkOptions struct {
	// MaxDepth is how many folder levels below the root are entered (a
	// file may sit at most MaxDepth folders deep); 0 means no limit.
	MaxDepth int
	// Exclude skips matching files and whole matching folders. Nil means
	// DefaultExcludes only; use NewMatcher to add the user's globs.
	Exclude *Matcher
	// Under, when set, walks only the folder at this slash-separated path
	// below the root (entries still relative to the root; depth and
	// excludes still counted from it). An excluded or symlinked Under
	// yields nothing.
	Under string
	// Listed, when set, is called with the rel ("" for the root) of every
	// folder whose listing succeeded in full, before its entries: every
	// child of it that fn is not told about was excluded (or cut short by
	// fn's SkipDir), so callers can answer "does X exist" from the walk.
	Listed func(rel string)
}

// SkipDir, returned by the callback for a directory, skips its contents.
var SkipDir = fs.SkipDir

// Walk calls fn for every entry below root in lexical order, depth first,
// folders before their contents. It lists folders with os.ReadDir, which
// never opens the files it lists, and enters only real folders (no
// symlinks), so FIFOs, devices and link loops cannot stall it. Unreadable
// folders are skipped. fn may return SkipDir for a directory, or any other
// error to stop the walk (Walk returns it). A missing root is an error.
func Walk(root string, opt WalkOptions, fn func(Entry) error) error {
	st, err := os.Stat(root)
	if err != nil {
		return statErr(".", err)
	}
	if !st.IsDir() {
		return &Error{Path: ".", Reason: NotRegular, Detail: "not a folder"}
	}
	ex := opt.Exclude
	if ex == nil {
		ex = defaultMatcher
	}
	dir, rel, depth := root, "", 0
	if u := strings.Trim(opt.Under, "/"); u != "" && u != "." {
		if !fs.ValidPath(u) || ex.Match(u) {
			return nil
		}
		dir, rel, depth = filepath.Join(root, filepath.FromSlash(u)), u, Depth(u)+1
		if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
			return nil
		}
		if opt.MaxDepth > 0 && depth > opt.MaxDepth {
			return nil
		}
	}
	err = walkDir(dir, rel, depth, opt.MaxDepth, ex, opt.Listed, fn)
	if errors.Is(err, SkipDir) {
		return nil
	}
	return err
}

func walkDir(dir, rel string, depth, maxDepth int, ex *Matcher, listed func(string), fn func(Entry) error) error {
	des, err := os.ReadDir(dir)
	if err != nil && len(des) == 0 {
		return nil // unreadable folder: skipped, as a listing error is not the user's file
	}
	if err == nil && listed != nil {
		listed(rel)
	}
	for _, de := range des {
		name := de.Name()
		r := name
		if rel != "" {
			r = rel + "/" + name
		}
		t := de.Type()
		if ex.Match(r) {
			continue
		}
		err := fn(Entry{Rel: r, Type: t})
		if t.IsDir() {
			if err == SkipDir {
				continue
			}
			if err != nil {
				return err
			}
			if maxDepth > 0 && depth+1 > maxDepth {
				continue
			}
			if err := walkDir(filepath.Join(dir, name), r, depth+1, maxDepth, ex, listed, fn); err != nil {
				return err
			}
			continue
		}
		if err == SkipDir {
			return nil // SkipDir on a file skips the rest of its folder, as fs.WalkDir does
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Depth is the number of folders rel sits in ("a/b/SKILL.md" → 2).
func Depth(rel string) int { return strings.Count(rel, "/") }
