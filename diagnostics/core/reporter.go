package core

import (
	"bytes"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/ahpls-dev/ahpls/model"
	"go.yaml.in/yaml/v3"
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

func FirstLineEnd(b []byte) int {
	if i := bytes.IndexAny(b, "\r\n"); i >= 0 {
		return i
	}
	if len(b) > 200 {
		return 200
	}
	return len(b)
}

// Reporter collects findings for one file and decides their severities.
type Reporter struct {
	File      File
	Opts      Options
	Effective []model.Target
	Diags     []model.Diagnostic
	// header is the fix guard's parse of the file's header as it is,
	// read once for all of the file's fixes (fixguard.go).
	Header HeaderParse
}

func NewReporter(f File, opts Options) *Reporter {
	return &Reporter{
		File:      f,
		Opts:      opts,
		Effective: model.EffectiveTargetsIn(opts.Targets, !opts.NoImpliedTargets, f.Path, f.Layout),
	}
}

// PluginFormatOf finds the nearest enclosing plugin root's format.
func PluginFormatOf(rel string, layout model.Layout) model.PluginFormat {
	f, _ := model.PluginOf(rel, layout)
	return f
}

// AddTarget widens the effective targets for this file (e.g. a hooks file
// with `version` implies copilot-cli).
func (r *Reporter) AddTarget(t model.Target) {
	if r.Opts.NoImpliedTargets {
		return
	}
	for _, x := range r.Effective {
		if x == t {
			return
		}
	}
	r.Effective = append(r.Effective, t)
}

// Has reports whether a target is effective for this file.
func (r *Reporter) Has(t model.Target) bool {
	for _, x := range r.Effective {
		if x == t {
			return true
		}
	}
	return false
}

// Verdict reports a finding whose severity follows from per-target
// reactions. It returns false (and records nothing) when no effective target
// cares. message may contain "%s", replaced by the names of the targets that
// drove the severity ("VS Code and Claude Code").
func (r *Reporter) Verdict(rule *Rule, span model.Span, v model.Verdicts, message string, fixes ...model.Fix) bool {
	v = GateEvidence(rule, v)
	sev, by, ok := v.Decide(r.Effective)
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
	r.Add(d)
	return true
}

// Add records a finding with a fixed severity (rules marked [I] in the spec).
// Such a finding names no consumer: it is left out when no effective
// target reads the file at all (issue #38: with `--targets kiro`, an empty
// .github/prompts file or a plugin.json without a version was reported for
// a consumer that never opens either).
func (r *Reporter) Add(d model.Diagnostic) {
	if d.Verdicts == nil && !r.anyReads() {
		return
	}
	r.Diags = append(r.Diags, d)
}

// anyReads reports whether some effective target reads the file: its kind
// (model.Target.Reads), for a skill its folder (model.SkillUnread), for a
// memory file its name (model.MemoryReads).
func (r *Reporter) anyReads() bool {
	if r.File.Kind == model.KindNone {
		return true
	}
	for _, t := range r.Effective {
		if !t.Reads(r.File.Kind) {
			continue
		}
		spec, _ := t.Spec()
		if spec.Kinds != nil && r.File.Kind == model.KindSkill && model.SkillUnread(t, r.File.Path, r.File.Layout) {
			continue
		}
		if slices.Contains(spec.PluginOnly, r.File.Kind) {
			if files, ok := r.File.Layout.(model.Files); !ok || !model.InPackageDir(t, path.Dir(r.File.Path), files) {
				continue
			}
		}
		// A memory file by a name the consumer never reads (Kiro and
		// .github/copilot-instructions.md): the kind alone says too little.
		if spec.Kinds != nil && r.File.Kind == model.KindMemory && spec.Memory != nil && !spec.Memory.ReadsName(path.Base(r.File.Path)) {
			continue
		}
		return true
	}
	return false
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

func Clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

func Contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ToolsValidator validates the text of .ahpls/tools.json (package tools'
// ConfigProblems).
type ToolsValidator func(text []byte) []ToolsProblem

// Override is one entry of .ahpls/config.json's "overrides": rule levels
// for the files a glob matches. Later entries win over earlier ones, and
// every entry over Options.Rules.
type Override struct {
	// Match reports whether a file (slash path below the workspace folder)
	// is covered; the settings package builds it from the entry's globs.
	Match func(rel string) bool
	// Rules sets levels by rule id; a zero Severity turns the rule off.
	Rules map[string]model.Severity
}

// HeaderParse is the parse of a header before any fix (readHeaderAsClaudeCode's
// results), made once per file however many fixes the guard checks.
type HeaderParse struct {
	Done       bool
	Root       *yaml.Node
	Strict, Ok bool
}

// WorkspaceLister is an optional extension of WorkspaceFS for rules that
// compare a file with files whose names they cannot guess (two subagents
// sharing a `name`). ReadDir lists a slash-separated folder relative to the
// workspace folder, like os.ReadDir; without it those rules are skipped.
type WorkspaceLister interface {
	ReadDir(rel string) ([]fs.DirEntry, error)
}

// WorkspaceReader is an optional extension of WorkspaceFS for rules that
// look inside another file: whether a CLAUDE.md imports AGENTS.md, whether
// a parent skill mentions a nested SKILL.md. Without it those rules assume
// the friendly answer (imported, mentioned) rather than guess an error.
type WorkspaceReader interface {
	ReadFile(rel string) ([]byte, error)
}

// ToolsProblem is one problem the client tool config validator found, at a
// byte span of the file's text.
type ToolsProblem struct {
	Span     model.Span
	Severity model.Severity
	Message  string
}
