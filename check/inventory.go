package check

import (
	"io/fs"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/view"
	"github.com/ahpls-dev/ahpls/wsfs"
)

// Inventory walks the workspace folder root as `ahpls check` does (same
// walker, excludes, .gitignore and .ahpls/config.json: folderConfig) and
// returns what package view
// needs: every customization file with its text and its findings, checked
// with every consumer effective so that each finding carries each
// consumer's verdict. The user's rule levels do not apply: the view says
// what consumers do, not what the user wants reported.
func Inventory(root string, cfg Config) (view.Input, error) {
	ex, gitignore, _, err := folderConfig(root, cfg)
	if err != nil {
		return view.Input{}, err
	}
	r := wsfs.NewRoot(root)
	layout := newDirLayout(r)
	dfs := dirFS{r: r}
	opts := diagnostics.Options{Targets: view.ViewTargets}
	in := view.Input{Layout: layout, FS: dfs}
	werr := wsfs.Walk(root, wsfs.WalkOptions{Exclude: ex, GitIgnore: gitignore, Keep: model.LoadedWhenIgnored}, func(e wsfs.Entry) error {
		if e.IsDir() || !model.MaybeCustomization(e.Rel) {
			return nil
		}
		kind := model.Classify(e.Rel, layout)
		if kind == model.KindNone {
			return nil
		}
		file := diagnostics.File{Path: e.Rel, Kind: kind, FS: dfs, Layout: layout}
		if e.Type&fs.ModeSymlink != 0 {
			text, rerr := r.Read(e.Rel, diagnostics.MaxFileSize+1)
			if rerr != nil {
				file.Unreadable = unreadableWhy(rerr)
			}
			file.Text = text
		} else if text, rerr := r.ReadEntry(e, diagnostics.MaxFileSize+1); rerr != nil {
			file.Unreadable = unreadableWhy(rerr)
		} else {
			file.Text = text
		}
		in.Files = append(in.Files, view.File{Rel: e.Rel, Kind: kind, Text: file.Text, Findings: diagnostics.Check(file, opts)})
		return nil
	})
	return in, werr
}
