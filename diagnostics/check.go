package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"bytes"
	"fmt"
	"sort"
	"unicode/utf8"

	"github.com/ahpls-dev/ahpls/model"
)

// Check runs every rule for the file's kind and returns its diagnostics
// sorted by position. It never panics: a rule that fails on input it did
// not expect is reported as an internal error diagnostic rather than taking
// the editor down.
func Check(f core.File, opts core.Options) (out []model.Diagnostic) {
	if f.Kind == model.KindNone {
		f.Kind = model.Classify(f.Path, f.Layout)
	}
	r := core.NewReporter(f, opts)
	defer func() {
		if p := recover(); p != nil {
			r.Diags = append(r.Diags, model.Diagnostic{
				Rule:     internalError.ID,
				Severity: model.SeverityWarning,
				Message:  fmt.Sprintf("ahpls could not finish checking this file (internal error: %v); please report it.", p),
				Span:     model.Span{Start: 0, End: core.FirstLineEnd(f.Text)},
			})
			out = finish(r)
		}
	}()
	if f.Kind == model.KindNone {
		return nil
	}
	if f.Unreadable != "" {
		r.Add(model.Diagnostic{
			Rule:     fileUnreadable.ID,
			Severity: model.SeverityWarning,
			Message:  fmt.Sprintf("ahpls did not read this file: %s. Only regular files inside the workspace folder are checked.", f.Unreadable),
		})
		return finish(r)
	}
	if len(f.Text) > core.MaxFileSize {
		r.Add(model.Diagnostic{
			Rule:     fileTooLarge.ID,
			Severity: model.SeverityWarning,
			Message:  fmt.Sprintf("ahpls does not check files over %d MiB; this one has %d bytes.", core.MaxFileSize>>20, max(f.Size, int64(len(f.Text)))),
			Span:     model.Span{Start: 0, End: core.FirstLineEnd(f.Text)},
		})
		return finish(r)
	}
	if bad, ok := badEncoding(f.Text); ok {
		what := "invalid UTF-8"
		if f.Text[bad] == 0 {
			what = "a NUL byte"
		}
		end := bad + 1
		r.Add(model.Diagnostic{
			Rule:     fileEncoding.ID,
			Severity: model.SeverityError,
			Message:  fmt.Sprintf("This file contains %s at byte %d; agents read customization files as UTF-8 text.", what, bad),
			Span:     model.Span{Start: bad, End: end},
		})
		return finish(r)
	}
	if checker := builtinChecker(f.Kind); checker != nil {
		checker(f, r)
	}
	return finish(r)
}

// builtinChecker is the check function of the kind's Checker. Rules that
// compare files run inside these (crossfile.go, duplicates.go).
func builtinChecker(k model.Kind) func(core.File, *core.Reporter) {
	for i := range checkers {
		if checkers[i].Kind == k {
			return checkers[i].Check
		}
	}
	return nil
}

func badEncoding(b []byte) (int, bool) {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		if j := invalidUTF8(b[:i]); j >= 0 {
			return j, true
		}
		return i, true
	}
	if j := invalidUTF8(b); j >= 0 {
		return j, true
	}
	return 0, false
}

func invalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1 // the common case, several times faster than decoding rune by rune
	}
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// finish applies rule levels (settings, then the config's overrides),
// drops (or, with KeepSuppressed, marks) what suppression comments and
// overrides hide, reports comments that hide nothing, clamps spans to the
// text and sorts.
func finish(r *core.Reporter) []model.Diagnostic {
	out := r.Diags[:0]
	n := len(r.File.Text)
	var dirs []*directive
	if r.File.Kind.Markdown() {
		dirs = parseDirectives(r.File.Text)
	}
	lineOf := func(off int) int { return bytes.Count(r.File.Text[:off], []byte{'\n'}) }
	keep := func(d model.Diagnostic) bool {
		if sev, ok, _ := level(r, d.Rule); ok {
			if sev == 0 {
				return false
			}
			d.Severity = sev
		}
		out = append(out, guardFixes(r, d))
		return true
	}
	for _, d := range r.Diags {
		d.Span.Start = core.Clamp(d.Span.Start, 0, n)
		d.Span.End = core.Clamp(d.Span.End, d.Span.Start, n)
		if sev, ok, byConfig := level(r, d.Rule); ok && sev == 0 {
			if byConfig && r.Opts.KeepSuppressed {
				d.Suppressed = model.SuppressedExternal
				out = append(out, d)
			}
			continue
		}
		hidden := false
		if len(dirs) > 0 && d.Rule != suppressUnused.ID {
			line := lineOf(d.Span.Start)
			for _, dir := range dirs {
				hidden = dir.covers(d.Rule, line) || hidden
			}
		}
		switch {
		case !hidden:
			keep(d)
		case r.Opts.KeepSuppressed:
			if sev, ok, _ := level(r, d.Rule); ok {
				d.Severity = sev
			}
			d.Suppressed = model.SuppressedInSource
			out = append(out, d)
		}
	}
	for _, dir := range dirs {
		for _, d := range dir.unused(n) {
			keep(d)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Span.Start != out[j].Span.Start {
			return out[i].Span.Start < out[j].Span.Start
		}
		return out[i].Rule < out[j].Rule
	})
	if out == nil {
		out = []model.Diagnostic{}
	}
	return out
}
