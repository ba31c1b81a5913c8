package diagnostics

import (
	"bytes"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ahpls-dev/ahpls/model"
)

// MaxFileSize is the largest file the rules parse (customization-formats.md
// §4 file/too-large); larger files get one diagnostic and nothing else.
const MaxFileSize = 4 << 20

// Options are the user's settings that change what is reported.
type Options struct {
	// Targets are the configured consumers (`ahpls.targets`); empty means
	// model.DefaultTargets.
	Targets []model.Target
	// NoImpliedTargets turns off `ahpls.impliedTargets` (on by default).
	NoImpliedTargets bool
	// Rules overrides severities by rule id (`ahpls.rules`); a zero
	// Severity turns the rule off.
	Rules map[string]model.Severity
	// Overrides are .ahpls/config.json's "overrides": rule levels by path
	// glob, applied after Rules (suppress.go).
	Overrides []Override
	// KeepSuppressed returns the findings that ahpls-disable comments and
	// the overrides' "off" hide, marked with Diagnostic.Suppressed, instead
	// of dropping them (`ahpls check` counts and shows them). A rule turned
	// off by Rules (the caller's own setting) is still dropped.
	KeepSuppressed bool
	// ToolsConfig validates .ahpls/tools.json (package tools' validator,
	// which this room must not import); nil leaves that file unchecked.
	ToolsConfig ToolsValidator
}

// WorkspaceFS answers existence questions about the workspace folder for
// rules that check referenced paths (links, plugin component paths, hook
// scripts). Paths are slash-separated and relative to the workspace folder;
// implementations must refuse paths that leave it.
type WorkspaceFS interface {
	Stat(rel string) (fs.FileInfo, error)
}

// File is one file to check.
type File struct {
	// Path is slash-separated and relative to the workspace folder; folder
	// names in it drive rules such as skill/name-dir.
	Path string
	// Kind is the file's kind; KindNone means Check classifies Path itself.
	Kind model.Kind
	Text []byte
	// FS and Layout are optional: without FS, rules that need the disk are
	// skipped; without Layout, plugin roots are guessed from the path.
	FS     WorkspaceFS
	Layout model.Layout
	// Size is the file's size on disk when the caller knows it and read
	// only the first MaxFileSize+1 bytes; 0 means len(Text).
	Size int64
	// Unreadable, when set, says why the file was not read (e.g. "a FIFO
	// (named pipe), not a regular file"); Text is then empty and Check
	// reports file/unreadable and nothing else.
	Unreadable string
}

// Check runs every rule for the file's kind and returns its diagnostics
// sorted by position. It never panics: a rule that fails on input it did
// not expect is reported as an internal error diagnostic rather than taking
// the editor down.
func Check(f File, opts Options) (out []model.Diagnostic) {
	if f.Kind == model.KindNone {
		f.Kind = model.Classify(f.Path, f.Layout)
	}
	r := newReporter(f, opts)
	defer func() {
		if p := recover(); p != nil {
			r.diags = append(r.diags, model.Diagnostic{
				Rule:     internalError.ID,
				Severity: model.SeverityWarning,
				Message:  fmt.Sprintf("ahpls could not finish checking this file (internal error: %v); please report it.", p),
				Span:     model.Span{Start: 0, End: firstLineEnd(f.Text)},
			})
			out = r.finish()
		}
	}()
	if f.Kind == model.KindNone {
		return nil
	}
	if f.Unreadable != "" {
		r.add(model.Diagnostic{
			Rule:     fileUnreadable.ID,
			Severity: model.SeverityWarning,
			Message:  fmt.Sprintf("ahpls did not read this file: %s. Only regular files inside the workspace folder are checked.", f.Unreadable),
		})
		return r.finish()
	}
	if len(f.Text) > MaxFileSize {
		r.add(model.Diagnostic{
			Rule:     fileTooLarge.ID,
			Severity: model.SeverityWarning,
			Message:  fmt.Sprintf("ahpls does not check files over %d MiB; this one has %d bytes.", MaxFileSize>>20, max(f.Size, int64(len(f.Text)))),
			Span:     model.Span{Start: 0, End: firstLineEnd(f.Text)},
		})
		return r.finish()
	}
	if bad, ok := badEncoding(f.Text); ok {
		what := "invalid UTF-8"
		if f.Text[bad] == 0 {
			what = "a NUL byte"
		}
		end := bad + 1
		r.add(model.Diagnostic{
			Rule:     fileEncoding.ID,
			Severity: model.SeverityError,
			Message:  fmt.Sprintf("This file contains %s at byte %d; agents read customization files as UTF-8 text.", what, bad),
			Span:     model.Span{Start: bad, End: end},
		})
		return r.finish()
	}
	if checker := builtinChecker(f.Kind); checker != nil {
		checker(f, r)
	}
	return r.finish()
}

// builtinChecker is the check function of the kind's Checker. Rules that
// compare files run inside these (crossfile.go, duplicates.go).
func builtinChecker(k model.Kind) func(File, *reporter) {
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

func firstLineEnd(b []byte) int {
	if i := bytes.IndexAny(b, "\r\n"); i >= 0 {
		return i
	}
	if len(b) > 200 {
		return 200
	}
	return len(b)
}

// reporter collects findings for one file and decides their severities.
type reporter struct {
	file      File
	opts      Options
	effective []model.Target
	diags     []model.Diagnostic
	// header is the fix guard's parse of the file's header as it is,
	// read once for all of the file's fixes (fixguard.go).
	header headerParse
}

func newReporter(f File, opts Options) *reporter {
	return &reporter{
		file:      f,
		opts:      opts,
		effective: model.EffectiveTargetsIn(opts.Targets, !opts.NoImpliedTargets, f.Path, f.Layout),
	}
}

// pluginFormatOf finds the nearest enclosing plugin root's format.
func pluginFormatOf(rel string, layout model.Layout) model.PluginFormat {
	f, _ := model.PluginOf(rel, layout)
	return f
}

// addTarget widens the effective targets for this file (e.g. a hooks file
// with `version` implies copilot-cli).
func (r *reporter) addTarget(t model.Target) {
	if r.opts.NoImpliedTargets {
		return
	}
	for _, x := range r.effective {
		if x == t {
			return
		}
	}
	r.effective = append(r.effective, t)
}

// has reports whether a target is effective for this file.
func (r *reporter) has(t model.Target) bool {
	for _, x := range r.effective {
		if x == t {
			return true
		}
	}
	return false
}

// verdict reports a finding whose severity follows from per-target
// reactions. It returns false (and records nothing) when no effective target
// cares. message may contain "%s", replaced by the names of the targets that
// drove the severity ("VS Code and Claude Code").
func (r *reporter) verdict(rule *Rule, span model.Span, v model.Verdicts, message string, fixes ...model.Fix) bool {
	v = gateEvidence(rule, v)
	sev, by, ok := v.Decide(r.effective)
	if !ok {
		return false
	}
	if i := strings.Index(message, "%s"); i >= 0 {
		message = message[:i] + targetNames(by) + message[i+2:]
	}
	d := model.Diagnostic{Rule: rule.ID, Severity: sev, Message: message, Span: span, Verdicts: v, Fixes: fixes}
	d.Consequence, _ = v[by[0]].Consequence()
	for _, t := range by {
		if strings.TrimSuffix(string(v[t]), "?") == string(model.Ignore) {
			d.Tags = append(d.Tags, model.TagUnnecessary)
			break
		}
	}
	r.add(d)
	return true
}

// add records a finding with a fixed severity (rules marked [I] in the spec).
func (r *reporter) add(d model.Diagnostic) {
	r.diags = append(r.diags, d)
}

func targetNames(ts []model.Target) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.DisplayName()
	}
	switch len(names) {
	case 0:
		return "no consumer"
	case 1:
		return capitalize(names[0])
	}
	return capitalize(strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1])
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// finish applies rule levels (settings, then the config's overrides),
// drops (or, with KeepSuppressed, marks) what suppression comments and
// overrides hide, reports comments that hide nothing, clamps spans to the
// text and sorts.
func (r *reporter) finish() []model.Diagnostic {
	out := r.diags[:0]
	n := len(r.file.Text)
	var dirs []*directive
	if r.file.Kind.Markdown() {
		dirs = parseDirectives(r.file.Text)
	}
	lineOf := func(off int) int { return bytes.Count(r.file.Text[:off], []byte{'\n'}) }
	keep := func(d model.Diagnostic) bool {
		if sev, ok, _ := r.level(d.Rule); ok {
			if sev == 0 {
				return false
			}
			d.Severity = sev
		}
		out = append(out, r.guardFixes(d))
		return true
	}
	for _, d := range r.diags {
		d.Span.Start = clamp(d.Span.Start, 0, n)
		d.Span.End = clamp(d.Span.End, d.Span.Start, n)
		if sev, ok, byConfig := r.level(d.Rule); ok && sev == 0 {
			if byConfig && r.opts.KeepSuppressed {
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
		case r.opts.KeepSuppressed:
			if sev, ok, _ := r.level(d.Rule); ok {
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

func clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}
