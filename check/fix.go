package check

// `ahpls check --fix` and `--diff`: apply the quick fixes of rules whose
// fix tier (diagnostics.Rule.Fix) is safe, or unsafe too with
// --unsafe-fixes: the same edits the language server offers, without
// asking.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/settings"
	"github.com/ahpls-dev/ahpls/wsfolder"
	"github.com/ahpls-dev/ahpls/wsfs"
)

// maxFixPasses bounds the fix loop: a fix left out for overlapping another
// is taken on the next pass; safe fixes never feed each other forever, but
// a bound keeps a surprise from looping.
const maxFixPasses = 4

// FileFix is the change --fix makes to one file.
type FileFix struct {
	Path     string
	Old, New []byte
	// Fixed are the findings whose fixes were applied, in the order found.
	Fixed []Finding
}

// chosenFix is the fix --fix applies for a finding, the one the server's
// "Fix all" would take (the preferred one, or the only one), if its rule's
// tier is safe (or unsafe, when unsafe is set) and every edit stays in the
// diagnosed file. A fix the fix guard demoted counts as unsafe.
func chosenFix(f Finding, unsafe bool) *model.Fix {
	fx := preferredFix(f)
	if fx == nil || !diagnostics.FixTierOf(f.Rule, fx).Applies(unsafe) {
		return nil
	}
	return fx
}

// preferredFix is the preferred fix of f, or its only one, when its edits
// all stay in the diagnosed file.
func preferredFix(f Finding) *model.Fix {
	if len(f.fixes) == 0 {
		return nil
	}
	at := -1
	for i := range f.fixes {
		if f.fixes[i].Preferred {
			at = i
			break
		}
	}
	if at < 0 && len(f.fixes) == 1 {
		at = 0
	}
	if at < 0 || len(f.fixes[at].Edits) == 0 || !f.editsInText(at) {
		return nil
	}
	return &f.fixes[at]
}

// PlanFixes computes, for each file with safe fixes (unsafe ones too, when
// unsafe is set), the text after them. It needs the findings' text, which
// only Fix's runs keep (Config.keepText): findings without it plan nothing.
// Like the server's fix-all, a fix whose edits overlap one already taken is
// left for the next pass, so the edits always apply.
func PlanFixes(found []Finding, unsafe bool) []FileFix {
	type plan struct {
		ff    FileFix
		edits []model.Edit
	}
	byPath := map[string]*plan{}
	var order []string
	for _, f := range found {
		fix := chosenFix(f, unsafe)
		if fix == nil || f.src == nil {
			continue
		}
		p := byPath[f.Path]
		if p == nil {
			p = &plan{ff: FileFix{Path: f.Path, Old: f.src}}
			byPath[f.Path] = p
			order = append(order, f.Path)
		}
		clash := false
		for _, e := range fix.Edits {
			for _, t := range p.edits {
				if e.Span.Start < t.Span.End && t.Span.Start < e.Span.End || e.Span == t.Span {
					clash = true
				}
			}
		}
		if clash {
			continue
		}
		p.edits = append(p.edits, fix.Edits...)
		p.ff.Fixed = append(p.ff.Fixed, f)
	}
	out := make([]FileFix, 0, len(order))
	for _, path := range order {
		p := byPath[path]
		p.ff.New = applyEdits(p.ff.Old, p.edits)
		if !bytes.Equal(p.ff.New, p.ff.Old) {
			out = append(out, p.ff)
		}
	}
	return out
}

// applyEdits applies non-overlapping edits (byte spans of src).
func applyEdits(src []byte, edits []model.Edit) []byte {
	edits = append([]model.Edit(nil), edits...)
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].Span.Start < edits[j].Span.Start })
	var b bytes.Buffer
	at := 0
	for _, e := range edits {
		b.Write(src[at:e.Span.Start])
		b.WriteString(e.NewText)
		at = e.Span.End
	}
	b.Write(src[at:])
	return b.Bytes()
}

// FixResult is what Fix did and what is left.
type FixResult struct {
	// Changes has one entry per changed file: its text before the first
	// pass and after the last.
	Changes []FileFix
	// Remaining are the findings after the fixes (re-checked when written).
	Remaining []Finding
	// Refused are the files --fix would have changed but did not write,
	// with why (a symlink out of the workspace, other hard links, a file
	// changed since it was read); their findings stay in Remaining.
	Refused []error
	// Summary is what the first check looked at (fixing changes no file
	// set).
	Summary Summary
}

// Fix applies the safe fixes (and unsafe ones, with cfg.UnsafeFixes) under paths, pass after pass until nothing
// more is fixable (at most maxFixPasses). With write, each changed file is
// replaced through its workspace folder's wsfs.Writer and the folders
// re-checked from disk; a file the writer refuses is left as it is and
// named in Refused. Without write (--diff), each changed file is re-checked
// in memory, so the planned change is the one --fix would make.
func Fix(paths []string, cfg Config, write bool) (FixResult, error) {
	var res FixResult
	index := map[string]int{}
	refused := map[string]bool{}
	ws := writers{}
	defer ws.close()
	cfg.keepText = true
	found, sum, err := RunSummary(paths, cfg)
	if err != nil {
		return res, err
	}
	res.Summary = sum
	for pass := 0; ; pass++ {
		plans := PlanFixes(withoutFixes(found, refused), cfg.UnsafeFixes)
		if len(plans) == 0 || pass == maxFixPasses {
			res.Remaining = found
			return res, nil
		}
		if write {
			plans = writePlans(ws, plans, refused, &res)
		}
		for _, p := range plans {
			if i, ok := index[p.Path]; ok {
				res.Changes[i].New = p.New
				res.Changes[i].Fixed = append(res.Changes[i].Fixed, p.Fixed...)
				continue
			}
			index[p.Path] = len(res.Changes)
			res.Changes = append(res.Changes, p)
		}
		if write {
			if found, err = RunConfig(paths, cfg); err != nil {
				return res, err
			}
			continue
		}
		found = recheckInMemory(found, plans, cfg)
	}
}

// writePlans writes each plan and returns those written; a refused one is
// recorded in res and refused and not planned again.
func writePlans(ws writers, plans []FileFix, refused map[string]bool, res *FixResult) []FileFix {
	done := plans[:0:0]
	for _, p := range plans {
		if err := ws.write(p); err != nil {
			refused[p.Path] = true
			res.Refused = append(res.Refused, err)
			continue
		}
		done = append(done, p)
	}
	return done
}

// withoutFixes is found with the fixes of the paths in skip dropped.
func withoutFixes(found []Finding, skip map[string]bool) []Finding {
	if len(skip) == 0 {
		return found
	}
	out := make([]Finding, len(found))
	for i, f := range found {
		if skip[f.Path] {
			f.fixes = nil
		}
		out[i] = f
	}
	return out
}

// recheckInMemory replaces the findings of each planned file with those of
// its new text. A file whose workspace folder cannot be recovered from its
// path keeps its unfixed findings and is not planned again.
func recheckInMemory(found []Finding, plans []FileFix, cfg Config) []Finding {
	opts := cfg.Rules
	opts.KeepSuppressed = true // as RunSummary, so --no-suppress holds on the re-check
	redone := map[string][]Finding{}
	for _, p := range plans {
		rel := p.Fixed[0].Rel
		root, ok := rootOf(p.Fixed[0])
		if !ok {
			redone[p.Path] = noFixes(unfixed(found, []FileFix{p}), p.Path)
			continue
		}
		fsys := wsfolder.DirFS(root)
		layout := wsfolder.NewLayout(fsys)
		kind := model.Classify(rel, layout)
		o := opts
		if folder, err := (settings.Settings{}).FolderOf(root, false); err == nil {
			o.Overrides = folder.Overrides // as the folder walk applied them
		}
		redone[p.Path], _ = splitSuppressed(findings(p.Path, rel, p.New, true, diagnostics.Check(diagnostics.File{Path: rel, Kind: kind, Text: p.New, FS: fsys, Layout: layout}, o)), cfg.NoSuppress)
		if redone[p.Path] == nil {
			redone[p.Path] = []Finding{}
		}
	}
	var out []Finding
	for _, f := range found {
		if _, ok := redone[f.Path]; !ok {
			out = append(out, f)
		}
	}
	for _, fs := range redone {
		out = append(out, fs...)
	}
	sortFindings(out)
	return out
}

// noFixes keeps path's findings from fs without their fixes.
func noFixes(fs []Finding, path string) []Finding {
	out := []Finding{}
	for _, f := range fs {
		if f.Path == path {
			f.fixes = nil
			out = append(out, f)
		}
	}
	return out
}

// unfixed is found without the findings plans fix.
func unfixed(found []Finding, plans []FileFix) []Finding {
	type key struct {
		path, rule      string
		line, col, eCol int
	}
	gone := map[key]bool{}
	for _, p := range plans {
		for _, f := range p.Fixed {
			gone[key{f.Path, f.Rule, f.Line, f.Column, f.EndColumn}] = true
		}
	}
	var out []Finding
	for _, f := range found {
		if !gone[key{f.Path, f.Rule, f.Line, f.Column, f.EndColumn}] {
			out = append(out, f)
		}
	}
	return out
}

// rootOf recovers the workspace folder a finding was checked under: its
// path without the path below the folder.
func rootOf(f Finding) (string, bool) {
	root, ok := strings.CutSuffix(f.Path, filepath.FromSlash(f.Rel))
	if !ok || f.Rel == "" {
		return "", false
	}
	if root == "" {
		root = "."
	}
	return root, true
}

// writeTarget is the workspace folder a fix of f is written under, and
// f's path below it. A file found in a folder walk belongs to that folder.
// A file named on the command line belongs to the current folder when it
// is below it, else to the nearest folder above it holding .git; with
// neither, --fix does not guess (the folder "/" would confine nothing).
func writeTarget(f Finding) (root, rel string, err error) {
	if !f.named {
		root, ok := rootOf(f)
		if !ok {
			return "", "", fmt.Errorf("%s: cannot tell which workspace folder it belongs to; not written", f.Path)
		}
		return root, f.Rel, nil
	}
	abs, err := filepath.Abs(f.Path)
	if err != nil {
		return "", "", err
	}
	cwd, err := os.Getwd()
	if f.root != "" {
		cwd, err = filepath.Abs(f.root)
	}
	if err == nil {
		if r, err := filepath.Rel(cwd, abs); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return cwd, filepath.ToSlash(r), nil
		}
	}
	if f.root != "" {
		return "", "", fmt.Errorf("%s: not below the workspace folder %s; not written", f.Path, f.root)
	}
	for d := filepath.Dir(abs); filepath.Dir(d) != d; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			r, err := filepath.Rel(d, abs)
			if err != nil {
				break
			}
			return d, filepath.ToSlash(r), nil
		}
	}
	return "", "", fmt.Errorf("%s: not below the current folder or a git repository, so ahpls cannot tell which workspace it may write in; run --fix from the workspace folder", f.Path)
}

// writers holds one wsfs.Writer per workspace folder for a --fix run.
type writers map[string]*wsfs.Writer

func (ws writers) close() {
	for _, w := range ws {
		w.Close()
	}
}

// write replaces p's file through the workspace folder's writer: below
// the folder, never through a symlink leading out of it, only if the file
// still holds the text the fix was planned from, keeping mode and owner.
func (ws writers) write(p FileFix) error {
	root, rel, err := writeTarget(p.Fixed[0])
	if err != nil {
		return err
	}
	w := ws[root]
	if w == nil {
		var err error
		if w, err = wsfs.OpenWriter(root); err != nil {
			return err
		}
		ws[root] = w
	}
	if err := w.Replace(rel, p.Old, p.New); err != nil {
		var we *wsfs.Error
		if errors.As(err, &we) {
			// The error names the path below the folder; say the user's.
			we.Path = p.Path
		}
		return err
	}
	return nil
}

// FixInfo is one quick fix of a finding, for callers outside this package
// (the MCP server's `check` tool, `--format json`): what it does, whether
// --fix applies it unasked, and its edits in the finding's own coordinates.
type FixInfo struct {
	Title string `json:"title"`
	// Safe: `ahpls check --fix` (and the MCP `fix` tool) applies it.
	Safe bool `json:"safe"`
	// Tier is the fix's tier ("safe" or "unsafe"): the rule's, or unsafe
	// when the fix guard demoted it; an unsafe fix is applied by `--fix
	// --unsafe-fixes` when it is the one chosen.
	Tier string `json:"tier"`
	// Demoted says why the fix guard could not prove this fix of a safe
	// rule safe (the file would not parse, or another value would change).
	Demoted string `json:"demoted,omitempty"`
	// Chosen: the fix --fix would take for this finding (the preferred or
	// only one), whatever its tier.
	Chosen bool       `json:"chosen"`
	Edits  []EditInfo `json:"edits"`
}

// EditInfo is one edit: 1-based lines, 1-based UTF-16 columns, end
// exclusive, like Finding. Path is set when the edit is in another file.
type EditInfo struct {
	Path      string `json:"path,omitempty"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine"`
	EndColumn int    `json:"endColumn"`
	NewText   string `json:"newText"`
}

// Fixes lists the finding's quick fixes; the one --fix would apply is
// marked Safe.
func (f Finding) Fixes() []FixInfo {
	if len(f.fixes) == 0 {
		return nil
	}
	chosen := preferredFix(f)
	out := make([]FixInfo, 0, len(f.fixes))
	for i := range f.fixes {
		fx := &f.fixes[i]
		tier := diagnostics.FixTierOf(f.Rule, fx)
		info := FixInfo{Title: fx.Title, Safe: fx == chosen && tier == diagnostics.FixSafe, Tier: tier.String(), Chosen: fx == chosen, Demoted: fx.Demoted, Edits: []EditInfo{}}
		for j, e := range fx.Edits {
			ei := EditInfo{Path: e.Path, NewText: e.NewText}
			if i < len(f.fixAt) && f.fixAt[i][j].ok {
				r := f.fixAt[i][j].r
				ei.Line, ei.Column, ei.EndLine, ei.EndColumn = r.Start.Line+1, r.Start.Character+1, r.End.Line+1, r.End.Character+1
			}
			info.Edits = append(info.Edits, ei)
		}
		out = append(out, info)
	}
	return out
}
