package check

// `ahpls check --fix` and `--diff`: apply the quick fixes of rules marked
// diagnostics.Rule.SafeFix, the same edits the language server offers,
// without asking.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
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

// isSafe reports whether a rule's fix may be applied unasked.
func isSafe(rule string) bool {
	r, ok := diagnostics.LookupRule(rule)
	return ok && r.SafeFix
}

// chosenFix is the fix --fix applies for a finding, the one the server's
// "Fix all" would take (the preferred one, or the only one), if its rule is
// marked safe and every edit stays in the diagnosed file.
func chosenFix(f Finding) *model.Fix {
	if len(f.fixes) == 0 || f.src == nil || !isSafe(f.Rule) {
		return nil
	}
	var fix *model.Fix
	for i := range f.fixes {
		if f.fixes[i].Preferred {
			fix = &f.fixes[i]
			break
		}
	}
	if fix == nil && len(f.fixes) == 1 {
		fix = &f.fixes[0]
	}
	if fix == nil || len(fix.Edits) == 0 {
		return nil
	}
	for _, e := range fix.Edits {
		if e.Path != "" || e.Span.Start < 0 || e.Span.Start > e.Span.End || e.Span.End > len(f.src) {
			return nil
		}
	}
	return fix
}

// PlanFixes computes, for each file with safe fixes, the text after them.
// Like the server's fix-all, a fix whose edits overlap one already taken is
// left for the next pass, so the edits always apply.
func PlanFixes(found []Finding) []FileFix {
	type plan struct {
		ff    FileFix
		edits []model.Edit
	}
	byPath := map[string]*plan{}
	var order []string
	for _, f := range found {
		fix := chosenFix(f)
		if fix == nil {
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
	// Summary is what the first check looked at (fixing changes no file
	// set).
	Summary Summary
}

// Fix applies the safe fixes under paths, pass after pass until nothing
// more is fixable (at most maxFixPasses). With write, each changed file is
// replaced atomically and the folders re-checked from disk; without it
// (--diff), each changed file is re-checked in memory, so the planned
// change is the one --fix would make.
func Fix(paths []string, cfg Config, write bool) (FixResult, error) {
	var res FixResult
	index := map[string]int{}
	found, sum, err := RunSummary(paths, cfg)
	if err != nil {
		return res, err
	}
	res.Summary = sum
	for pass := 0; ; pass++ {
		plans := PlanFixes(found)
		if len(plans) == 0 || pass == maxFixPasses {
			res.Remaining = found
			return res, nil
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
			for _, p := range plans {
				if err := WriteAtomic(p.Path, p.New); err != nil {
					return res, err
				}
			}
			if found, err = RunConfig(paths, cfg); err != nil {
				return res, err
			}
			continue
		}
		found = recheckInMemory(found, plans, cfg.Rules)
	}
}

// recheckInMemory replaces the findings of each planned file with those of
// its new text. A file whose workspace folder cannot be recovered from its
// path keeps its unfixed findings and is not planned again.
func recheckInMemory(found []Finding, plans []FileFix, opts diagnostics.Options) []Finding {
	redone := map[string][]Finding{}
	for _, p := range plans {
		rel := p.Fixed[0].Rel
		root, ok := strings.CutSuffix(p.Path, filepath.FromSlash(rel))
		if !ok {
			redone[p.Path] = noFixes(unfixed(found, []FileFix{p}), p.Path)
			continue
		}
		if root == "" {
			root = "."
		}
		wr := wsfs.NewRoot(root)
		layout := newDirLayout(wr)
		kind := model.Classify(rel, layout)
		redone[p.Path] = findings(p.Path, rel, p.New, diagnostics.Check(diagnostics.File{Path: rel, Kind: kind, Text: p.New, FS: dirFS{r: wr}, Layout: layout}, opts))
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

// WriteAtomic replaces the file at path with data: a temporary file in the
// same folder, with the old file's mode, synced and renamed over it, so a
// reader sees the old text or the new one, never half. A symlink is
// followed, so the file it points to is replaced and the link stays.
func WriteAtomic(path string, data []byte) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	st, err := os.Stat(real)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(real), "."+filepath.Base(real)+".ahpls-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(st.Mode().Perm()); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return err
	}
	if err := os.Rename(name, real); err != nil {
		os.Remove(name)
		return err
	}
	return nil
}
