package wsfolder

import (
	"io/fs"
	"sort"
	"sync"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/view"
	"github.com/ahpls-dev/ahpls/wsfs"
)

// InventoryOptions are the walk settings of Inventory.
type InventoryOptions struct {
	// Exclude globs (wsfs.Matcher syntax) add to wsfs.DefaultExcludes and
	// the folder's own .ahpls/config.json.
	Exclude []string
	// NoGitIgnore walks what .gitignore files ignore too.
	NoGitIgnore bool
	// Warn receives a malformed .ahpls/config.json; nil drops it.
	Warn func(string)
}

// Inventory walks folder dir as `ahpls check` does and returns what
// package view needs: every customization file with its text and its
// findings, checked with every consumer effective so that each finding
// carries each consumer's verdict. The user's rule levels do not apply:
// the view says what consumers do, not what the user wants reported.
// `ahpls list`, the MCP server's list_customizations and the language
// server's view all read a folder through it.
func Inventory(dir string, o InventoryOptions) (view.Input, error) {
	cfg, err := ReadConfig(dir, o.Exclude, o.NoGitIgnore, o.Warn)
	if err != nil {
		return view.Input{}, err
	}
	f := New(dir, cfg.Exclude, nil)
	opts := diagnostics.Options{Targets: view.ViewTargets}
	in := view.Input{Layout: f.Layout, FS: f.FS}
	var mu sync.Mutex
	werr := f.Walk(WalkOptions{Exclude: cfg.Exclude, GitIgnore: cfg.GitIgnore}, func(e wsfs.Entry, kind model.Kind) error {
		file := diagnostics.File{Path: e.Rel, Kind: kind, FS: f.FS, Layout: f.Layout}
		if e.Type&fs.ModeSymlink != 0 {
			text, rerr := f.Root.Read(e.Rel, diagnostics.MaxFileSize+1)
			if rerr != nil {
				file.Unreadable = Unreadable(rerr)
			}
			file.Text = text
		} else if text, rerr := f.Root.ReadEntry(e, diagnostics.MaxFileSize+1); rerr != nil {
			file.Unreadable = Unreadable(rerr)
		} else {
			file.Text = text
		}
		vf := view.File{Rel: e.Rel, Kind: kind, Text: file.Text, Findings: diagnostics.Check(file, opts)}
		mu.Lock()
		in.Files = append(in.Files, vf)
		mu.Unlock()
		return nil
	})
	// The walkers hand files on in no overall order.
	sort.Slice(in.Files, func(i, j int) bool { return in.Files[i].Rel < in.Files[j].Rel })
	return in, werr
}
