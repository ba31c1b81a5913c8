// Package check is `ahpls check`: the same rules as the language server,
// run over files and folders for CI, printed as text, JSON or SARIF 2.1.0.
//
// Start at Main (the command line) or Run (paths in, findings out). A folder
// argument is a workspace folder: files are classified by their path below
// it, exactly as the server classifies files below an editor's workspace
// folder, so positions and findings match the editor's.
//
// Positions: lines are 1-based; columns are 1-based and count UTF-16 code
// units (what LSP uses by default and what SARIF calls utf16CodeUnits), so a
// column printed here is the editor's column + 1.
package check

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// Finding is one diagnostic with printable coordinates.
type Finding struct {
	// Path is the file as the user named it: the folder argument joined with
	// the path below it, or the file argument itself.
	Path string `json:"path"`
	// Rel is the path below the workspace folder used for classification.
	Rel string `json:"rel"`
	// Line and Column are 1-based; Column counts UTF-16 code units.
	Line      int `json:"line"`
	Column    int `json:"column"`
	EndLine   int `json:"endLine"`
	EndColumn int `json:"endColumn"`

	Severity model.Severity                  `json:"-"`
	Level    string                          `json:"severity"`
	Rule     string                          `json:"rule"`
	Message  string                          `json:"message"`
	Href     string                          `json:"href"`
	Verdicts map[model.Target]model.Reaction `json:"verdicts,omitempty"`
}

// Run checks every customization file under paths (files or folders) and
// returns the findings sorted by path and position. A file that cannot be
// read is an error; a folder walk skips unreadable entries.
func Run(paths []string, opts diagnostics.Options) ([]Finding, error) {
	var out []Finding
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			fs, err := checkFolder(p, opts)
			if err != nil {
				return nil, err
			}
			out = append(out, fs...)
			continue
		}
		fs, err := checkFile(p, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, fs...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return a.Rule < b.Rule
	})
	return out, nil
}

// checkFolder walks a workspace folder the way the server's scan does: depth
// ≤ model.MaxDepth, skipping .git and node_modules, not following symlinks.
func checkFolder(root string, opts diagnostics.Options) ([]Finding, error) {
	layout := DirLayout(root)
	var out []Finding
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil
		}
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if e.IsDir() {
			if p != root && rel != "." && (model.SkipDir(e.Name()) || strings.Count(rel, "/") >= model.MaxDepth) {
				return filepath.SkipDir
			}
			return nil
		}
		if !e.Type().IsRegular() && !symlinkInside(root, p) {
			return nil
		}
		kind := model.Classify(rel, layout)
		if kind == model.KindNone {
			return nil
		}
		text, err := readLimited(p)
		if err != nil {
			return nil
		}
		out = append(out, findings(p, rel, text, diagnostics.Check(diagnostics.File{Path: rel, Kind: kind, Text: text, FS: DirFS(root), Layout: layout}, opts))...)
		return nil
	})
	return out, err
}

// checkFile checks one named file. Its workspace folder is the current
// directory when the file is below it and classifies from there; otherwise
// the longest tail of its path that classifies decides (a loose
// `x/.github/skills/a/SKILL.md` is a skill of `x`).
func checkFile(p string, opts diagnostics.Options) ([]Finding, error) {
	text, err := readLimited(p)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, err
	}
	root, rel := "", ""
	if cwd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(cwd, abs); err == nil && !strings.HasPrefix(r, "..") {
			if model.Classify(filepath.ToSlash(r), DirLayout(cwd)) != model.KindNone {
				root, rel = cwd, filepath.ToSlash(r)
			}
		}
	}
	if rel == "" {
		segs := strings.Split(filepath.ToSlash(abs), "/")
		for start := max(1, len(segs)-model.MaxDepth-1); start < len(segs); start++ {
			r := strings.Join(segs[start:], "/")
			if model.Classify(r, nil) != model.KindNone {
				rel = r
				root = filepath.FromSlash(strings.Join(segs[:start], "/"))
				if root == "" {
					root = string(filepath.Separator)
				}
				break
			}
		}
	}
	if rel == "" {
		return nil, nil // not a customization file
	}
	layout := DirLayout(root)
	kind := model.Classify(rel, layout)
	if kind == model.KindNone {
		return nil, nil
	}
	return findings(p, rel, text, diagnostics.Check(diagnostics.File{Path: rel, Kind: kind, Text: text, FS: DirFS(root), Layout: layout}, opts)), nil
}

func findings(display, rel string, text []byte, diags []model.Diagnostic) []Finding {
	idx := model.NewLineIndex(text)
	out := make([]Finding, 0, len(diags))
	for _, d := range diags {
		r := idx.Range(d.Span, model.UTF16)
		out = append(out, Finding{
			Path: display, Rel: rel,
			Line: r.Start.Line + 1, Column: r.Start.Character + 1,
			EndLine: r.End.Line + 1, EndColumn: r.End.Character + 1,
			Severity: d.Severity, Level: d.Severity.String(),
			Rule: d.Rule, Message: d.Message, Href: model.RuleHref(d.Rule), Verdicts: d.Verdicts,
		})
	}
	return out
}

// symlinkInside reports a symlink to a regular file that stays inside
// root: agents read a symlinked SKILL.md like any other (skills-ref and
// Claude Code follow it), so it is checked where it is linked; links that
// leave the workspace stay unread.
func symlinkInside(root, p string) bool {
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return false
	}
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(realRoot, target)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return false
	}
	st, err := os.Stat(target)
	return err == nil && st.Mode().IsRegular()
}

func readLimited(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, diagnostics.MaxFileSize+1))
}

// DirFS is diagnostics.WorkspaceFS over a folder on disk, refusing paths
// that leave it.
type DirFS string

func (d DirFS) Stat(rel string) (fs.FileInfo, error) {
	if !fs.ValidPath(rel) {
		return nil, fs.ErrNotExist
	}
	return os.Stat(filepath.Join(string(d), filepath.FromSlash(rel)))
}

// ReadFile implements diagnostics.WorkspaceReader for the cross-file rules
// (a parent skill that links a nested one, CLAUDE.md imports, manifest
// copies); it reads at most one byte over the rules' size limit.
func (d DirFS) ReadFile(rel string) ([]byte, error) {
	if !fs.ValidPath(rel) {
		return nil, fs.ErrNotExist
	}
	return readLimited(filepath.Join(string(d), filepath.FromSlash(rel)))
}

// DirLayout is model.Layout from manifests on disk, memoised per folder.
func DirLayout(root string) model.Layout {
	return &dirLayout{root: root, memo: map[string]model.PluginFormat{}}
}

type dirLayout struct {
	root string
	memo map[string]model.PluginFormat
}

func (l *dirLayout) PluginRoot(dir string) model.PluginFormat {
	if f, ok := l.memo[dir]; ok {
		return f
	}
	f := diagnostics.DetectPluginFormat(func(rel string) ([]byte, bool) {
		if !fs.ValidPath(rel) {
			return nil, false
		}
		b, err := os.ReadFile(filepath.Join(l.root, filepath.FromSlash(rel)))
		return b, err == nil
	}, dir)
	l.memo[dir] = f
	return f
}

// ReadDir implements diagnostics.WorkspaceLister for rules that compare
// siblings (duplicate skill and subagent names).
func (d DirFS) ReadDir(rel string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(rel) {
		return nil, fs.ErrNotExist
	}
	return os.ReadDir(filepath.Join(string(d), filepath.FromSlash(rel)))
}
