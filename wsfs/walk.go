package wsfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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
	// Listed, when set, is called with the rel ("" for the root) and the
	// entries (excludes dropped) of every folder whose listing succeeded in
	// full, before fn hears of any of them: a child not among them was
	// excluded, so callers can answer "does X exist" from the walk, even
	// while it is still under way.
	Listed func(rel string, entries []Entry)
}

// SkipDir, returned by the callback for a directory, skips its contents.
var SkipDir = fs.SkipDir

// Walk calls fn for every entry below root in lexical order, depth first,
// folders before their contents. It lists folders (listDir: getdents on
// Linux, os.ReadDir elsewhere), which never opens the files it lists, and
// enters only real folders (no symlinks), so FIFOs, devices and link loops
// cannot stall it. Unreadable
// folders are skipped. fn may return SkipDir for a directory, or any other
// error to stop the walk (Walk returns it). A missing root is an error.
func Walk(root string, opt WalkOptions, fn func(Entry) error) error {
	start, ex, err := walkStart(root, opt)
	if err != nil || ex == nil {
		return err
	}
	err = walkDir(start, opt.MaxDepth, ex, opt.Listed, fn)
	if errors.Is(err, SkipDir) {
		return nil
	}
	return err
}

// walkStart checks the root and finds the folder both walkers start at
// (the root, or opt.Under below it). A nil matcher with a nil error means
// there is nothing to walk (Under excluded, missing or too deep).
func walkStart(root string, opt WalkOptions) (folder, *Matcher, error) {
	st, err := os.Stat(root)
	if err != nil {
		return folder{}, nil, statErr(".", err)
	}
	if !st.IsDir() {
		return folder{}, nil, &Error{Path: ".", Reason: NotRegular, Detail: "not a folder"}
	}
	ex := opt.Exclude
	if ex == nil {
		ex = defaultMatcher
	}
	start := folder{dir: root, top: true}
	if u := strings.Trim(opt.Under, "/"); u != "" && u != "." {
		if !fs.ValidPath(u) || ex.Match(u) {
			return folder{}, nil, nil
		}
		start = folder{dir: filepath.Join(root, filepath.FromSlash(u)), rel: u, depth: Depth(u) + 1, top: true}
		if st, err := os.Lstat(start.dir); err != nil || !st.IsDir() {
			return folder{}, nil, nil
		}
		if opt.MaxDepth > 0 && start.depth > opt.MaxDepth {
			return folder{}, nil, nil
		}
	}
	return start, ex, nil
}

// dirEntry is one name of a folder listing with the type part of its mode
// (before any symlink).
type dirEntry struct {
	name string
	typ  fs.FileMode
}

// walkDir is Walk below one folder: depth first, each subfolder entered as
// soon as fn has seen it.
func walkDir(f folder, maxDepth int, ex *Matcher, listed func(string, []Entry), fn func(Entry) error) error {
	return visit(f, maxDepth, ex, listed, fn, func(sub folder) error {
		return walkDir(sub, maxDepth, ex, listed, fn)
	})
}

// visit lists the folder f, calls Listed and then fn for each entry in
// order, and hands each subfolder fn does not skip (and the depth limit
// allows) to enter: at once for Walk, queued for WalkParallel. SkipDir on
// a file skips the rest of its folder, as fs.WalkDir does.
func visit(f folder, maxDepth int, ex *Matcher, listed func(string, []Entry), fn func(Entry) error, enter func(folder) error) error {
	entries, names, ok := listing(f.dir, f.rel, f.top, ex, listed)
	if !ok {
		return nil
	}
	for i, e := range entries {
		err := fn(e)
		if e.Type.IsDir() {
			if err == SkipDir {
				continue
			}
			if err != nil {
				return err
			}
			if maxDepth > 0 && f.depth+1 > maxDepth {
				continue
			}
			if err := enter(folder{dir: f.dir + string(filepath.Separator) + names[i], rel: e.Rel, depth: f.depth + 1}); err != nil {
				return err
			}
			continue
		}
		if err == SkipDir {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// listing lists the folder dir (rel below the root) for both walkers:
// sorted, excludes dropped, with each entry's name beside it, and tells
// listed when the listing is complete. ok is false for an unreadable
// folder, which is skipped (a listing error is not the user's file). Only
// the folder the walk starts at (top) may be reached through a symlink.
func listing(dir, rel string, top bool, ex *Matcher, listed func(string, []Entry)) (entries []Entry, names []string, ok bool) {
	des, err := listDir(dir, top)
	if err != nil && len(des) == 0 {
		return nil, nil, false
	}
	slices.SortFunc(des, func(a, b dirEntry) int { return strings.Compare(a.name, b.name) })
	entries = make([]Entry, 0, len(des))
	names = make([]string, 0, len(des))
	for _, de := range des {
		r := de.name
		if rel != "" {
			r = rel + "/" + de.name
		}
		if !ex.Match(r) {
			entries = append(entries, Entry{Rel: r, Type: de.typ})
			names = append(names, de.name)
		}
	}
	if err == nil && listed != nil {
		listed(rel, entries)
	}
	return entries, names, true
}

// Depth is the number of folders rel sits in ("a/b/SKILL.md" → 2).
func Depth(rel string) int { return strings.Count(rel, "/") }

// WalkParallel is Walk with workers goroutines listing folders at once, for
// callers that do real work per entry (`ahpls check` reads and checks each
// file in the callback): each worker takes a folder, lists it, calls
// Listed and then fn for its entries in lexical order, and queues its
// subfolders for whichever worker is free. fn is called from several
// goroutines at once and in no overall order; within one folder the order
// is Walk's. Depth, excludes, Under and SkipDir mean what they mean for
// Walk. The first error fn returns stops the walk and is returned.
func WalkParallel(root string, opt WalkOptions, workers int, fn func(Entry) error) error {
	if workers < 2 {
		return Walk(root, opt, fn)
	}
	start, ex, err := walkStart(root, opt)
	if err != nil || ex == nil {
		return err
	}
	q := &folderQueue{todo: []folder{start}}
	q.cond = sync.NewCond(&q.mu)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				f, ok := q.take()
				if !ok {
					return
				}
				subs, err := listOne(f, opt.MaxDepth, ex, opt.Listed, fn)
				q.done(subs, err)
			}
		}()
	}
	wg.Wait()
	if errors.Is(q.err, SkipDir) {
		return nil
	}
	return q.err
}

// folder is a folder WalkParallel still has to list.
type folder struct {
	dir, rel string
	depth    int
	top      bool // where the walk starts: may be a symlink
}

// folderQueue hands folders to WalkParallel's workers: last in, first out,
// so the walk stays close to depth first and the queue small.
type folderQueue struct {
	mu   sync.Mutex
	cond *sync.Cond
	todo []folder
	busy int
	err  error
}

// take waits for a folder; false when the walk is over (nothing queued and
// nobody listing, or an error).
func (q *folderQueue) take() (folder, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.todo) == 0 && q.busy > 0 && q.err == nil {
		q.cond.Wait()
	}
	if len(q.todo) == 0 || q.err != nil {
		q.cond.Broadcast()
		return folder{}, false
	}
	f := q.todo[len(q.todo)-1]
	q.todo = q.todo[:len(q.todo)-1]
	q.busy++
	return f, true
}

func (q *folderQueue) done(subs []folder, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.busy--
	if err != nil && q.err == nil {
		q.err = err
	}
	// Reversed, so the first subfolder is taken first.
	for i := len(subs) - 1; i >= 0; i-- {
		q.todo = append(q.todo, subs[i])
	}
	q.cond.Broadcast()
}

// listOne lists one folder for WalkParallel, calls Listed and fn, and
// returns the subfolders to enter.
func listOne(f folder, maxDepth int, ex *Matcher, listed func(string, []Entry), fn func(Entry) error) ([]folder, error) {
	var subs []folder
	err := visit(f, maxDepth, ex, listed, fn, func(sub folder) error {
		subs = append(subs, sub)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return subs, nil
}
