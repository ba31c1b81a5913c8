package wsfs

import (
	"errors"
	"io/fs"
	"os"
	"path"
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
	// GitIgnore skips what the .gitignore files of the walked tree ignore
	// (see gitignore.go), except what Keep reports and what the work
	// tree's index tracks; outside a git work tree it does nothing
	// (gitindex.go).
	GitIgnore bool
	// Keep, with GitIgnore, reports paths walked although ignored: files
	// a consumer loads whatever .gitignore says.
	Keep func(rel string) bool
	// Skipped, when set, hears of every entry left out and why, before the
	// Listed call of its folder; it may be called from several goroutines
	// at once (WalkParallel). Nothing is left out silently.
	Skipped func(e Entry, why SkipReason)
}

// SkipReason is why the walker left an entry out.
type SkipReason string

const (
	SkipExcluded   SkipReason = "excluded"   // an exclude glob (defaults included)
	SkipGitIgnored SkipReason = "gitignored" // a .gitignore rule
	SkipUnreadable SkipReason = "unreadable" // a folder that could not be listed
)

// walkCtx is what every folder visit of one walk shares.
type walkCtx struct {
	maxDepth  int
	ex        *Matcher
	listed    func(string, []Entry)
	opt       *WalkOptions
	gitignore bool     // opt.GitIgnore inside a git work tree
	tracked   *Tracked // what its index tracks (never skipped)
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
	start, ex, c, err := walkStart(root, &opt)
	if err != nil || ex == nil {
		return err
	}
	err = walkDir(start, c, fn)
	if errors.Is(err, SkipDir) {
		return nil
	}
	return err
}

// walkStart checks the root and finds the folder both walkers start at
// (the root, or opt.Under below it). A nil matcher with a nil error means
// there is nothing to walk (Under excluded, missing or too deep).
func walkStart(root string, opt *WalkOptions) (folder, *Matcher, *walkCtx, error) {
	st, err := os.Stat(root)
	if err != nil {
		return folder{}, nil, nil, statErr(".", err)
	}
	if !st.IsDir() {
		return folder{}, nil, nil, &Error{Path: ".", Reason: NotRegular, Detail: "not a folder"}
	}
	ex := opt.Exclude
	if ex == nil {
		ex = defaultMatcher
	}
	start := folder{dir: root, top: true}
	if u := strings.Trim(opt.Under, "/"); u != "" && u != "." {
		if !fs.ValidPath(u) || ex.Match(u) {
			return folder{}, nil, nil, nil
		}
		start = folder{dir: filepath.Join(root, filepath.FromSlash(u)), rel: u, depth: Depth(u) + 1, top: true}
		if st, err := os.Lstat(start.dir); err != nil || !st.IsDir() {
			return folder{}, nil, nil, nil
		}
		if opt.MaxDepth > 0 && start.depth > opt.MaxDepth {
			return folder{}, nil, nil, nil
		}
	}
	c := &walkCtx{maxDepth: opt.MaxDepth, ex: ex, listed: opt.Listed, opt: opt}
	if opt.GitIgnore {
		c.tracked, c.gitignore = GitTracked(root)
	}
	if c.gitignore {
		// The rules of every folder above the start apply to it; the
		// start's own .gitignore is read when it is listed.
		parent := path.Dir(start.rel)
		if parent == "." || start.rel == "" {
			parent = ""
		}
		if start.rel != "" {
			ig, ignored := LoadIgnore(root, parent, opt.Keep, c.tracked)
			if ignored || (ig.Match(start.rel, true) && !c.kept(start.rel, true)) {
				return folder{}, nil, nil, nil
			}
			start.ign = ig
		}
	}
	return start, ex, c, nil
}

// kept reports an ignored path the walk still takes: one a consumer loads
// anyway (Keep) or one git tracks.
func (c *walkCtx) kept(rel string, dir bool) bool {
	return (c.opt.Keep != nil && c.opt.Keep(rel)) || c.tracked.Has(rel, dir)
}

// dirEntry is one name of a folder listing with the type part of its mode
// (before any symlink).
type dirEntry struct {
	name string
	typ  fs.FileMode
}

// walkDir is Walk below one folder: depth first, each subfolder entered as
// soon as fn has seen it.
func walkDir(f folder, c *walkCtx, fn func(Entry) error) error {
	return visit(f, c, fn, func(sub folder) error {
		return walkDir(sub, c, fn)
	})
}

// visit lists the folder f, calls Listed and then fn for each entry in
// order, and hands each subfolder fn does not skip (and the depth limit
// allows) to enter: at once for Walk, queued for WalkParallel. SkipDir on
// a file skips the rest of its folder, as fs.WalkDir does.
func visit(f folder, c *walkCtx, fn func(Entry) error, enter func(folder) error) error {
	entries, names, ign, ok := listing(f, c)
	if !ok {
		return nil
	}
	maxDepth := c.maxDepth
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
			if err := enter(folder{dir: f.dir + string(filepath.Separator) + names[i], rel: e.Rel, depth: f.depth + 1, ign: ign}); err != nil {
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

// listing lists the folder f for both walkers: sorted, excluded and
// ignored entries dropped (and told to Skipped), with each entry's name
// beside it, and tells Listed when the listing is complete. ign is the
// .gitignore rules in force in f (its own file read). ok is false for an
// unreadable folder, which is skipped (a listing error is not the user's
// file). Only the folder the walk starts at (top) may be reached through a
// symlink.
func listing(f folder, c *walkCtx) (entries []Entry, names []string, ign *Ignore, ok bool) {
	des, err := listDir(f.dir, f.top)
	if err != nil && len(des) == 0 {
		if c.opt.Skipped != nil && !f.top {
			c.opt.Skipped(Entry{Rel: f.rel, Type: fs.ModeDir}, SkipUnreadable)
		}
		return nil, nil, nil, false
	}
	slices.SortFunc(des, func(a, b dirEntry) int { return strings.Compare(a.name, b.name) })
	ign = f.ign
	if c.gitignore {
		for _, de := range des {
			if de.name == GitIgnoreFile && de.typ.IsRegular() {
				// Opened without following a swapped-in symlink, never
				// blocking on a FIFO.
				if b, err := readOpenFile(GitIgnoreFile, f.dir+string(filepath.Separator)+GitIgnoreFile, maxGitIgnoreSize+1); err == nil && len(b) <= maxGitIgnoreSize {
					ign = ParseGitIgnore(ign, f.rel, b)
				}
				break
			}
		}
	}
	entries = make([]Entry, 0, len(des))
	names = make([]string, 0, len(des))
	for _, de := range des {
		r := de.name
		if f.rel != "" {
			r = f.rel + "/" + de.name
		}
		why := SkipReason("")
		switch {
		case c.ex.Match(r):
			why = SkipExcluded
		case ign != nil && ign.Match(r, de.typ.IsDir()) && !c.kept(r, de.typ.IsDir()):
			why = SkipGitIgnored
		}
		if why != "" {
			if c.opt.Skipped != nil {
				c.opt.Skipped(Entry{Rel: r, Type: de.typ}, why)
			}
			continue
		}
		entries = append(entries, Entry{Rel: r, Type: de.typ})
		names = append(names, de.name)
	}
	if err == nil && c.listed != nil {
		c.listed(f.rel, entries)
	}
	return entries, names, ign, true
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
	start, ex, c, err := walkStart(root, &opt)
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
				subs, err := listOne(f, c, fn)
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
	top      bool    // where the walk starts: may be a symlink
	ign      *Ignore // .gitignore rules of the folders above (nil: none)
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
func listOne(f folder, c *walkCtx, fn func(Entry) error) ([]folder, error) {
	var subs []folder
	err := visit(f, c, fn, func(sub folder) error {
		subs = append(subs, sub)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return subs, nil
}
