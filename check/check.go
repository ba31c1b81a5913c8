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
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/settings"
	"github.com/ahpls-dev/ahpls/wsfolder"
	"github.com/ahpls-dev/ahpls/wsfs"
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
	// Consequence is what the finding costs the deciding consumers; its
	// level follows from it (model.Consequence.Level). Lost names the
	// fields a field-dropped finding loses.
	Consequence model.Consequence `json:"consequence,omitempty"`
	Lost        []string          `json:"lost,omitempty"`
	// Fingerprint identifies the finding across line shifts: a hash of
	// its rule, its path below the workspace folder and the text of the
	// line it starts on (trimmed). --baseline matches on it.
	Fingerprint string `json:"fingerprint"`
	// Suppressed says what hid the finding (an ahpls-disable comment, an
	// override of .ahpls/config.json); such findings are counted in
	// Summary.Suppressed and kept in SARIF as suppressed results, never
	// printed or failed on unless Config.NoSuppress.
	Suppressed model.Suppression `json:"-"`

	// fixes are the diagnostic's quick fixes, in byte spans of the text
	// the rules saw; fixAt are their edits' ranges in that text, worked
	// out while it was at hand, so that SARIF and Fixes need no text.
	fixes []model.Fix
	fixAt [][]editAt
	// src is the text the rules saw, kept only for --fix and --diff
	// (Config.keepText) on a finding with fixes: a plain run drops each
	// file's text once its findings are made, so its memory is the
	// findings', not the tree's (#30).
	src []byte
	// named: the file was named on the command line, not found in a
	// folder walk (--fix then finds its workspace folder: writeTarget).
	named bool
	// root is Config.Root of a named file's run ("" = the current folder).
	root string
}

// Config is everything Run needs besides the paths.
type Config struct {
	// Rules are the rule options (targets, overrides).
	Rules diagnostics.Options
	// Exclude globs (wsfs.Matcher syntax) apply to every folder argument,
	// next to wsfs.DefaultExcludes and the folder's own .ahpls/config.json.
	Exclude []string
	// Workers checks this many files at once; 0 means GOMAXPROCS.
	Workers int
	// Warn receives problems that do not stop the run (a malformed
	// .ahpls/config.json); nil drops them.
	Warn func(string)
	// Root, when set, is the workspace folder of named files in place of
	// the current folder: they are classified below it and --fix writes
	// them through its writer. The MCP server sets it to a root it serves.
	Root string
	// NoGitIgnore walks what .gitignore files ignore too (by default it
	// is skipped, except the files consumers load although ignored:
	// model.LoadedWhenIgnored). A folder's .ahpls/config.json may say
	// "gitignore": false as well.
	NoGitIgnore bool
	// UnsafeFixes lets Fix apply the fixes of unsafe tier too
	// (--unsafe-fixes); by default only safe ones are applied.
	UnsafeFixes bool
	// NoSuppress reports what ahpls-disable comments and the overrides'
	// "off" hide as ordinary findings (--no-suppress, for CI that should
	// not trust the repository under review to quiet itself).
	NoSuppress bool
	// keepText keeps the text of each file with fixes on its findings
	// (Finding.src), which PlanFixes needs; Fix sets it.
	keepText bool
}

// Summary is what a run looked at, so that nothing is skipped silently:
// the customization files checked, by kind, and what the folder walks left
// out and why.
type Summary struct {
	Checked map[model.Kind]int `json:"checked"`
	Skipped []Skipped          `json:"skipped"`
	// Suppressed counts, by rule, the findings that the repository's own
	// ahpls-disable comments and .ahpls/config.json overrides hid (none
	// with Config.NoSuppress).
	Suppressed map[string]int `json:"suppressed"`
	// Hidden are those findings, for SARIF (as suppressed results) and the
	// security notices.
	Hidden []Finding `json:"-"`
	// Notices are lines the run must print whatever the format: a
	// repository's own config turning a security/* rule off.
	Notices []string `json:"-"`
}

// Files is how many customization files were checked.
func (s Summary) Files() int {
	n := 0
	for _, c := range s.Checked {
		n += c
	}
	return n
}

// Skipped counts the entries one reason left out of the walks.
type Skipped struct {
	// Reason is "gitignored" (a .gitignore rule), "excluded" (an exclude
	// glob, .git and node_modules included) or "unreadable" (a folder that
	// could not be listed).
	Reason  string `json:"reason"`
	Folders int    `json:"folders"`
	Files   int    `json:"files"`
	// Examples are the first paths left out, in path order.
	Examples []string `json:"examples"`
}

// maxSkipExamples bounds Skipped.Examples.
const maxSkipExamples = 5

// tally collects a Summary from several walk workers.
type tally struct {
	mu      sync.Mutex
	checked map[model.Kind]int
	skipped map[wsfs.SkipReason]*Skipped
	notices []string
}

// notice records a line for Summary.Notices once.
func (t *tally) notice(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !slices.Contains(t.notices, line) {
		t.notices = append(t.notices, line)
	}
}

func newTally() *tally {
	return &tally{checked: map[model.Kind]int{}, skipped: map[wsfs.SkipReason]*Skipped{}}
}

func (t *tally) check(k model.Kind) {
	t.mu.Lock()
	t.checked[k]++
	t.mu.Unlock()
}

func (t *tally) skip(e wsfs.Entry, why wsfs.SkipReason) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.skipped[why]
	if s == nil {
		s = &Skipped{Reason: string(why)}
		t.skipped[why] = s
	}
	if e.IsDir() {
		s.Folders++
	} else {
		s.Files++
	}
	// Keep the first paths in path order (workers report in no order).
	i, _ := slices.BinarySearch(s.Examples, e.Rel)
	if i < maxSkipExamples {
		s.Examples = slices.Insert(s.Examples, i, e.Rel)
		if len(s.Examples) > maxSkipExamples {
			s.Examples = s.Examples[:maxSkipExamples]
		}
	}
}

func (t *tally) summary() Summary {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := Summary{Checked: maps.Clone(t.checked), Skipped: []Skipped{}, Suppressed: map[string]int{}, Notices: slices.Sorted(slices.Values(t.notices))}
	for _, k := range []wsfs.SkipReason{wsfs.SkipGitIgnored, wsfs.SkipExcluded, wsfs.SkipUnreadable} {
		if sk := t.skipped[k]; sk != nil {
			s.Skipped = append(s.Skipped, *sk)
		}
	}
	return s
}

// Run checks every customization file under paths (files or folders) and
// returns the findings sorted by path and position. A file that cannot be
// read is an error; in a folder walk, a customization file that is not a
// readable regular file is a file/unreadable finding.
func Run(paths []string, opts diagnostics.Options) ([]Finding, error) {
	return RunConfig(paths, Config{Rules: opts})
}

// RunConfig is Run with exclude globs and a worker count.
func RunConfig(paths []string, cfg Config) ([]Finding, error) {
	out, _, err := RunSummary(paths, cfg)
	return out, err
}

// RunSummary is RunConfig that also says what it checked and skipped.
func RunSummary(paths []string, cfg Config) ([]Finding, Summary, error) {
	if _, err := wsfs.NewMatcher(cfg.Exclude); err != nil {
		return nil, Summary{}, err
	}
	cfg.Rules.KeepSuppressed = true
	t := newTally()
	var out []Finding
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, Summary{}, err
		}
		if st.IsDir() {
			fs, err := checkFolder(p, cfg, t)
			if err != nil {
				return nil, Summary{}, err
			}
			out = append(out, fs...)
			continue
		}
		fs, err := checkFile(p, cfg, t)
		if err != nil {
			return nil, Summary{}, err
		}
		out = append(out, fs...)
	}
	sortFindings(out)
	sum := t.summary()
	out, sum.Hidden = splitSuppressed(out, cfg.NoSuppress)
	for _, f := range sum.Hidden {
		sum.Suppressed[f.Rule]++
	}
	return out, sum, nil
}

// splitSuppressed separates the findings that the repository's own
// comments and config hid; with noSuppress they stay findings like any
// other.
func splitSuppressed(fs []Finding, noSuppress bool) (shown, hidden []Finding) {
	first := slices.IndexFunc(fs, func(f Finding) bool { return f.Suppressed != "" })
	if first < 0 {
		return fs, nil // nearly every run: nothing hidden, no copy
	}
	shown = slices.Clone(fs[:first])
	for _, f := range fs[first:] {
		switch {
		case f.Suppressed == "":
			shown = append(shown, f)
		case noSuppress:
			f.Suppressed = ""
			shown = append(shown, f)
		default:
			hidden = append(hidden, f)
		}
	}
	return shown, hidden
}

// securityNotices are the lines that say a repository's own config turns a
// security/* rule off: it cannot quiet those unseen (issue 39).
func securityNotices(root string, overrides []diagnostics.Override, t *tally) {
	cfgPath := filepath.Join(root, ".ahpls", "config.json")
	for _, o := range overrides {
		for id, sev := range o.Rules {
			if sev == 0 && strings.HasPrefix(id, "security/") {
				t.notice(fmt.Sprintf("%s turns off %s for the files its overrides match", cfgPath, id))
			}
		}
	}
}

// sortFindings orders findings by path, position and rule.
func sortFindings(out []Finding) {
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
}

// checkFolder walks a workspace folder the way the server's scan does
// (wsfolder: any depth, default and configured excludes, .gitignore, no
// symlinked folders) and checks each customization file as the walk hands
// it on: each worker lists a folder and checks its files, so listing
// (syscalls) and checking overlap on every core. Each file is read once,
// through the safe reader. The findings of each file stay together; the
// final sort makes the order the same whichever worker got there first. t
// hears of every file checked and every entry left out.
func checkFolder(root string, cfg Config, t *tally) ([]Finding, error) {
	fc, err := wsfolder.ReadConfig(root, cfg.Exclude, cfg.NoGitIgnore, cfg.Warn)
	if err != nil {
		return nil, err
	}
	ex := fc.Exclude
	cfg.Rules.Overrides = fc.Overrides
	securityNotices(root, fc.Overrides, t)
	f := wsfolder.New(root, ex, nil)
	var (
		resMu   sync.Mutex
		results [][]Finding
	)
	opt := wsfolder.WalkOptions{Exclude: ex, GitIgnore: fc.GitIgnore, Workers: cfg.Workers, Skipped: t.skip}
	werr := f.Walk(opt, func(e wsfs.Entry, kind model.Kind) error {
		t.check(kind)
		if fs := checkEntry(f, e, kind, cfg); len(fs) > 0 {
			resMu.Lock()
			results = append(results, fs)
			resMu.Unlock()
		}
		return nil
	})
	if werr != nil {
		return nil, werr
	}
	// Manifests the layout refused to read (a FIFO named plugin.json) are
	// findings too, unless the walk already reported that path.
	seen := map[string]bool{}
	var out []Finding
	for _, fs := range results {
		for _, f := range fs {
			seen[f.Rel] = true
		}
		out = append(out, fs...)
	}
	for _, u := range f.Layout.Refused() {
		if seen[u.Rel] || ex.Match(u.Rel) {
			continue
		}
		seen[u.Rel] = true
		t.check(model.KindPlugin)
		out = append(out, findings(filepath.Join(root, filepath.FromSlash(u.Rel)), u.Rel, nil, false,
			diagnostics.Check(diagnostics.File{Path: u.Rel, Kind: model.KindPlugin, Unreadable: u.Why}, cfg.Rules))...)
	}
	return out, nil
}

// checkEntry reads and checks one walked entry of folder f. A
// customization file that is not a regular file (a FIFO, a device, a
// symlink loop, a symlink out of the folder or to nothing) gets one
// file/unreadable finding; a symlink to a regular file inside the folder is
// left to the file it points to, as before.
func checkEntry(f *wsfolder.Folder, e wsfs.Entry, kind model.Kind, cfg Config) []Finding {
	r := f.Root
	p := filepath.Join(f.Dir, filepath.FromSlash(e.Rel))
	file := diagnostics.File{Path: e.Rel, Kind: kind, FS: f.FS, Layout: f.Layout}
	if e.Type&fs.ModeSymlink != 0 {
		st, err := r.Stat(e.Rel)
		switch {
		case err == nil && st.Mode().IsRegular():
			// Agents read a symlinked SKILL.md like any other (skills-ref and
			// Claude Code follow it), so it is checked where it is linked; the
			// safe reader keeps the link inside the folder.
			text, rerr := r.Read(e.Rel, diagnostics.MaxFileSize+1)
			if rerr != nil {
				file.Unreadable = wsfolder.Unreadable(rerr)
				break
			}
			file.Text = text
		case err == nil:
			file.Unreadable = "a symlink to " + wsfs.Describe(st.Mode()) + ", not to a regular file"
		case wsfs.ReasonOf(err) == wsfs.NotExist:
			file.Unreadable = "a symlink to a file that does not exist"
		default:
			file.Unreadable = wsfolder.Unreadable(err)
		}
	} else if text, err := r.ReadEntry(e, diagnostics.MaxFileSize+1); err != nil {
		file.Unreadable = wsfolder.Unreadable(err)
	} else {
		file.Text = text
		if len(text) > diagnostics.MaxFileSize {
			if st, err := r.Stat(e.Rel); err == nil {
				file.Size = st.Size() // the message names the real size, not the bytes read
			}
		}
	}
	return findings(p, e.Rel, file.Text, cfg.keepText, diagnostics.Check(file, cfg.Rules))
}

// checkFile checks one named file. Its workspace folder is the current
// directory when the file is below it and classifies from there; otherwise
// the longest tail of its path that classifies decides (a loose
// `x/.github/skills/a/SKILL.md` is a skill of `x`). The user named it, so
// a symlink may lead anywhere, but only a regular file is read.
func checkFile(p string, cfg Config, t *tally) ([]Finding, error) {
	base := cfg.Root
	text, err := wsfs.ReadFile(p, diagnostics.MaxFileSize+1)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, err
	}
	root, rel := "", ""
	cwd, err := os.Getwd()
	if base != "" {
		cwd, err = filepath.Abs(base)
	}
	if err == nil {
		if r, err := filepath.Rel(cwd, abs); err == nil && !strings.HasPrefix(r, "..") {
			if model.Classify(filepath.ToSlash(r), wsfolder.DirLayout(cwd)) != model.KindNone {
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
	fsys := wsfolder.DirFS(root)
	layout := wsfolder.NewLayout(fsys)
	kind := model.Classify(rel, layout)
	if kind == model.KindNone {
		return nil, nil
	}
	t.check(kind)
	opts := cfg.Rules
	if folder, err := (settings.Settings{}).FolderOf(root, false); err == nil {
		opts.Overrides = folder.Overrides // the folder's .ahpls/config.json, as in a folder walk
		securityNotices(root, folder.Overrides, t)
	}
	out := findings(p, rel, text, cfg.keepText, diagnostics.Check(diagnostics.File{Path: rel, Kind: kind, Text: text, FS: fsys, Layout: layout}, opts))
	for i := range out {
		out[i].named, out[i].root = true, base
	}
	return out, nil
}

// findings turns diagnostics on text into Findings. The text is not kept
// (unless keep and a finding has fixes): positions, fix ranges included,
// are worked out here.
func findings(display, rel string, text []byte, keep bool, diags []model.Diagnostic) []Finding {
	if len(diags) == 0 {
		return nil // most files: no line index needed
	}
	// Index only up to the end of the line of the last finding or fix
	// edit: most findings sit in the header of a long file.
	cut := 0
	for _, d := range diags {
		cut = max(cut, d.Span.Start, d.Span.End)
		for _, fx := range d.Fixes {
			for _, e := range fx.Edits {
				if editInText(e, text) {
					cut = max(cut, e.Span.End)
				}
			}
		}
	}
	if cut < len(text) {
		if nl := bytes.IndexByte(text[cut:], '\n'); nl >= 0 {
			cut += nl + 1
		} else {
			cut = len(text)
		}
	}
	idx := model.NewLineIndex(text[:min(cut, len(text))])
	fps := fingerprints{rel: rel, text: text, upTo: min(cut, len(text))}
	out := make([]Finding, 0, len(diags))
	for _, d := range diags {
		r := idx.Range(d.Span, model.UTF16)
		f := Finding{
			Fingerprint: fps.at(d.Rule, d.Span.Start),
			Path:        display, Rel: rel,
			Line: r.Start.Line + 1, Column: r.Start.Character + 1,
			EndLine: r.End.Line + 1, EndColumn: r.End.Character + 1,
			Severity: d.Severity, Level: d.Severity.String(),
			Rule: d.Rule, Message: d.Message, Href: sharedHref(d.Rule), Verdicts: sharedVerdicts(d.Verdicts),
			Consequence: d.Consequence, Lost: d.Lost,
			fixes: d.Fixes, Suppressed: d.Suppressed,
		}
		if len(d.Fixes) > 0 {
			f.fixAt = make([][]editAt, len(d.Fixes))
			for i, fx := range d.Fixes {
				f.fixAt[i] = make([]editAt, len(fx.Edits))
				for j, e := range fx.Edits {
					if editInText(e, text) {
						f.fixAt[i][j] = editAt{ok: true, r: idx.Range(e.Span, model.UTF16)}
					}
				}
			}
			if keep {
				f.src = text
			}
		}
		out = append(out, f)
	}
	return out
}

// fingerprints works out Finding.Fingerprint for one file's findings.
// Each finding's line is found by a binary search over the file's LF
// offsets (found once) and each (rule, line) is hashed once: searching and
// hashing the line per finding made 20,000 findings on one line quadratic
// (27 s of CPU per check, #42).
type fingerprints struct {
	rel  string
	text []byte
	upTo int   // every finding's line ends by here (findings' cut)
	nls  []int // offsets of the '\n' bytes before upTo, found on first use
	done map[fingerprintKey]string
}

type fingerprintKey struct {
	rule  string
	start int
}

func (f *fingerprints) at(rule string, at int) string {
	if f.nls == nil {
		f.nls = make([]int, 0, bytes.Count(f.text[:f.upTo], []byte{'\n'}))
		for i := 0; i < f.upTo; {
			nl := bytes.IndexByte(f.text[i:f.upTo], '\n')
			if nl < 0 {
				break
			}
			f.nls = append(f.nls, i+nl)
			i += nl + 1
		}
		f.done = map[fingerprintKey]string{}
	}
	at = min(max(at, 0), len(f.text))
	// The line holding at runs from after the last '\n' before at to the
	// first '\n' at or after at.
	k := sort.SearchInts(f.nls, at)
	start, end := 0, len(f.text)
	if k > 0 {
		start = f.nls[k-1] + 1
	}
	if k < len(f.nls) {
		end = f.nls[k]
	}
	key := fingerprintKey{rule, start}
	if fp, ok := f.done[key]; ok {
		return fp
	}
	fp := fingerprint(rule, f.rel, f.text[start:end])
	f.done[key] = fp
	return fp
}

// fingerprint is Finding.Fingerprint: 16 hex digits of SHA-256 over the
// rule, the path below the folder and the finding's first line, trimmed
// (an edit elsewhere in the file, or lines added above, keep it).
func fingerprint(rule, rel string, line []byte) string {
	h := sha256.New()
	h.Write([]byte(rule))
	h.Write([]byte{0})
	h.Write([]byte(rel))
	h.Write([]byte{0})
	h.Write(bytes.TrimSpace(line))
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// editAt is where a fix edit lies in the diagnosed file's text: ok is
// false for an edit of another file or a span outside the text.
type editAt struct {
	ok bool
	r  model.Range
}

// editInText reports whether e edits the diagnosed file within text.
func editInText(e model.Edit, text []byte) bool {
	return e.Path == "" && e.Span.Start >= 0 && e.Span.Start <= e.Span.End && e.Span.End <= len(text)
}

// editsInText reports whether every edit of f's i-th fix is in its text.
func (f Finding) editsInText(i int) bool {
	if i >= len(f.fixAt) {
		return false
	}
	for _, e := range f.fixAt[i] {
		if !e.ok {
			return false
		}
	}
	return true
}
