// Package wsfolder reads a workspace folder as ahpls reads it, for the
// language server's scan, `ahpls check`, `ahpls list` and the server's
// view alike: one walk (wsfs.WalkParallel with the default and configured
// excludes, .gitignore, the files consumers load although ignored), the
// walk's record of what exists (wsfs.Seen), the plugin layout read from
// the manifests on disk, and classification (model.Classify). The
// language server adds its open buffers through an Overlay; the command
// line has none.
//
// Start at New (a folder for one walk) and Folder.Walk; FS and Layout
// serve the rules (diagnostics.File's FS and Layout) inside or outside a
// walk.
package wsfolder

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/settings"
	"github.com/ahpls-dev/ahpls/wsfs"
)

// Folder is one workspace folder prepared for one walk: what the walkers
// share. Its FS and Layout answer from the walk's record while the walk is
// under way (the record hears of every listing before any of its entries
// is handed on, so its "absent" answers already hold).
type Folder struct {
	Dir    string
	Root   *wsfs.Root
	Seen   *wsfs.Seen
	FS     FS
	Layout *Layout
}

// New prepares folder dir for a walk with the exclude matcher ex (which
// must be the walk's: Seen tells an excluded path from an absent one);
// overlay, when not nil, supplies open buffers.
func New(dir string, ex *wsfs.Matcher, overlay Overlay) *Folder {
	r := wsfs.NewRoot(dir)
	seen := wsfs.NewSeen(ex)
	// A folder the walk listed as a folder was reached without a symlink
	// (the walk enters none): a file below it resolves with one lstat, even
	// before the walk lists it (a SKILL.md's references/ are linked before
	// they are listed).
	r.SetKnownRealDirs(seen.RealDir)
	fsys := FS{Root: r, Seen: seen, Overlay: overlay, Trees: diagnostics.NewAgentTrees()}
	return &Folder{Dir: dir, Root: r, Seen: seen, FS: fsys, Layout: NewLayout(fsys)}
}

// WalkOptions are what differ between the walks of the server and the
// command line.
type WalkOptions struct {
	// Exclude must be the matcher New was given.
	Exclude *wsfs.Matcher
	// GitIgnore skips what .gitignore files ignore (but the files
	// consumers load although ignored: model.LoadedWhenIgnored).
	GitIgnore bool
	// Under limits the walk to this slash path below the folder ("" is
	// all of it).
	Under string
	// Workers list folders at once; 0 or less means GOMAXPROCS.
	Workers int
	// Ctx, when set, stops the walk once it is done.
	Ctx context.Context
	// Skipped hears of every entry the walk leaves out and why.
	Skipped func(wsfs.Entry, wsfs.SkipReason)
}

// Walk walks the folder and calls fn, from several goroutines at once, for
// every file that classifies as a customization file (symlinks and other
// non-regular entries included: fn decides what to make of them), with
// its kind. The first error fn returns stops the walk and is returned.
func (f *Folder) Walk(opt WalkOptions, fn func(e wsfs.Entry, kind model.Kind) error) error {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	wo := wsfs.WalkOptions{
		Exclude: opt.Exclude, Under: opt.Under, GitIgnore: opt.GitIgnore, Keep: model.LoadedWhenIgnored,
		Listed: f.Seen.Listed,
		Skipped: func(e wsfs.Entry, why wsfs.SkipReason) {
			if opt.Skipped != nil {
				opt.Skipped(e, why)
			}
			if why == wsfs.SkipGitIgnored {
				f.Seen.Saw(e) // it exists: a link to it is not broken
			}
		},
	}
	return wsfs.WalkParallel(f.Dir, wo, workers, func(e wsfs.Entry) error {
		if opt.Ctx != nil && opt.Ctx.Err() != nil {
			return opt.Ctx.Err()
		}
		if e.IsDir() || !model.MaybeCustomization(e.Rel) {
			return nil // no manifest can make it one
		}
		kind := model.Classify(e.Rel, f.Layout)
		if kind == model.KindNone {
			return nil
		}
		return fn(e, kind)
	})
}

// Config is what decides a folder walk besides the walker's own rules:
// the exclude globs (the caller's and the folder's .ahpls/config.json),
// whether .gitignore files count, and the config's rule overrides.
type Config struct {
	Exclude   *wsfs.Matcher
	GitIgnore bool
	Overrides []diagnostics.Override
}

// ReadConfig reads folder dir's .ahpls/config.json on top of the caller's
// exclude globs; noGitIgnore says .gitignore files do not count whatever
// the config says. A malformed config is passed to warn (when not nil)
// and ignored; only bad exclude globs are an error.
func ReadConfig(dir string, exclude []string, noGitIgnore bool, warn func(string)) (Config, error) {
	folder, err := settings.Settings{Exclude: exclude}.FolderOf(dir, noGitIgnore)
	if err != nil && warn != nil {
		warn(fmt.Sprintf("%s: %v (ignored)", dir, err))
	}
	ex, err := wsfs.NewMatcher(folder.Exclude)
	return Config{Exclude: ex, GitIgnore: folder.GitIgnore, Overrides: folder.Overrides}, err
}

// Unreadable phrases a refusal of the safe reader for the file/unreadable
// message.
func Unreadable(err error) string {
	var we *wsfs.Error
	if !errors.As(err, &we) {
		return "it could not be read"
	}
	switch we.Reason {
	case wsfs.NotRegular:
		return we.Detail + ", not a regular file"
	case wsfs.OutsideRoot:
		return "a symlink that leads out of the workspace folder"
	case wsfs.LinkLoop:
		return "a symlink loop"
	case wsfs.NotExist:
		return "it disappeared while being read"
	}
	if we.Detail != "" {
		return "it could not be read (" + we.Detail + ")"
	}
	return "it could not be read"
}

// notExist is the safe reader's answer for a path that surely is not there.
func notExist(rel string) error {
	return &wsfs.Error{Path: rel, Reason: wsfs.NotExist, Err: fs.ErrNotExist}
}
