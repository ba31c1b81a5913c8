package view

import (
	"io/fs"
	"sort"
	"strings"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// tree is the folder as the view reads it: the walked files by path, and
// the folder's FS for a file the walk did not classify. workspace embeds
// it; the plugin, marketplace and item logic stay there.
type tree struct {
	in    Input
	files []File
	byRel map[string]*File
}

// jsonFile is a JSON file of the folder parsed, with its findings (nil
// when it is not there).
func (w *tree) jsonFile(rel string) (*diagnostics.JSONValue, []model.Diagnostic) {
	f := w.file(rel, model.KindNone)
	if f.Text == nil {
		return nil, nil
	}
	v, _ := diagnostics.ParseJSON(f.Text)
	return v, f.Findings
}

// file returns the walked file at rel, or reads it through FS (a
// component the path shapes do not classify); empty when unreadable.
func (w *tree) file(rel string, kind model.Kind) File {
	if f, ok := w.byRel[rel]; ok {
		return *f
	}
	if w.in.FS != nil {
		if b, err := w.in.FS.ReadFile(rel); err == nil && len(b) <= diagnostics.MaxFileSize {
			return File{Rel: rel, Kind: kind, Text: b}
		}
	}
	return File{Rel: rel, Kind: kind}
}

func (w *tree) exists(rel string) bool {
	if _, ok := w.byRel[rel]; ok {
		return true
	}
	if w.in.FS == nil {
		return false
	}
	_, err := w.in.FS.ReadFile(rel)
	return err == nil
}

func (w *tree) isDir(rel string) bool {
	if w.in.FS != nil {
		_, err := w.in.FS.ReadDir(rel)
		return err == nil
	}
	for r := range w.byRel {
		if strings.HasPrefix(r, rel+"/") {
			return true
		}
	}
	return false
}

// readDir lists a folder, sorted by name; without FS it lists the
// sub-folders the walked files imply.
func (w *tree) readDir(rel string) []fs.DirEntry {
	if w.in.FS != nil {
		es, err := w.in.FS.ReadDir(rel)
		if err != nil {
			return nil
		}
		sort.Slice(es, func(i, j int) bool { return es[i].Name() < es[j].Name() })
		return es
	}
	seen := map[string]bool{}
	var out []fs.DirEntry
	for _, f := range w.files {
		rest, ok := strings.CutPrefix(f.Rel, rel+"/")
		if !ok || rel == "" {
			if rel != "" {
				continue
			}
			rest = f.Rel
		}
		first, _, sub := strings.Cut(rest, "/")
		if !seen[first] {
			seen[first] = true
			out = append(out, dirEntry{name: first, dir: sub})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// markdownUnder lists *.md files at or below p (p itself when it is a
// file), depth-bounded, README.md excluded, sorted.
func (w *tree) markdownUnder(p string) []string {
	if strings.HasSuffix(p, ".md") {
		if w.exists(p) {
			return []string{p}
		}
		return nil
	}
	var out []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		if depth > model.MaxDepth || len(out) >= maxComponents {
			return
		}
		for _, e := range w.readDir(dir) {
			rel := join(dir, e.Name())
			if e.IsDir() {
				if !model.SkipDir(e.Name()) {
					walk(rel, depth+1)
				}
				continue
			}
			if strings.HasSuffix(e.Name(), ".md") && !strings.EqualFold(e.Name(), "README.md") {
				out = append(out, rel)
			}
		}
	}
	walk(p, 0)
	return out
}

// HasFile implements model.Files over the workspace's files, for
// model.InPackage: a skill inside a package of t's (a Codex plugin, a
// Gemini CLI extension) is t's once the package is installed, as
// model.SkillUnread says for the rules.
func (w *tree) HasFile(rel string) bool {
	_, ok := w.byRel[rel]
	return ok
}
