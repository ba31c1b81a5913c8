package check

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/wsfs"
)

// WriteText prints one line per finding:
//
//	path:line:col: severity: message [rule-id]
//
// with a 1-based line and a 1-based UTF-16 column.
func WriteText(w io.Writer, fs []Finding) error {
	// Buffered: one write per finding was one syscall per line on stdout
	// (3,000 on a large corpus).
	bw := bufio.NewWriterSize(w, 64<<10)
	for _, f := range fs {
		if _, err := fmt.Fprintf(bw, "%s:%d:%d: %s: %s [%s]\n", f.Path, f.Line, f.Column, f.Level, f.Message, f.Rule); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReportVersion is the version of the `--format json` schema
// (docs/check-output.schema.json). It goes up when a field is removed or
// changes meaning, never for an added field; CHANGELOG.md says what each
// version changed.
const ReportVersion = 1

// Report is the JSON output: the findings and what was looked at.
type Report struct {
	// Version is ReportVersion: a pipeline can refuse a schema it does
	// not know instead of misreading it.
	Version  int           `json:"version"`
	Findings []jsonFinding `json:"findings"`
	// Files is how many customization files were checked, Checked the
	// same by kind (a kind checked zero times is absent).
	Files   int                `json:"files"`
	Checked map[model.Kind]int `json:"checked"`
	// Suppressed counts by rule the findings the repository's own
	// ahpls-disable comments and config overrides hid (--no-suppress
	// shows them as findings instead).
	Suppressed map[string]int `json:"suppressed"`
	// Skipped is what the folder walks left out and why (never silently).
	Skipped []Skipped `json:"skipped"`
}

// jsonFinding is a Finding as `--format json` prints it: with its quick
// fixes and their tiers.
type jsonFinding struct {
	Finding
	Fixes []FixInfo `json:"fixes,omitempty"`
}

// WriteJSON prints the findings and the summary as one JSON object (a
// Report; `"findings": []` when there are none).
func WriteJSON(w io.Writer, fs []Finding, sum Summary) error {
	r := Report{Version: ReportVersion, Findings: make([]jsonFinding, 0, len(fs)), Files: sum.Files(), Checked: sum.Checked, Skipped: sum.Skipped}
	for _, f := range fs {
		r.Findings = append(r.Findings, jsonFinding{Finding: f, Fixes: f.Fixes()})
	}
	if r.Checked == nil {
		r.Checked = map[model.Kind]int{}
	}
	if r.Skipped == nil {
		r.Skipped = []Skipped{}
	}
	r.Suppressed = sum.Suppressed
	if r.Suppressed == nil {
		r.Suppressed = map[string]int{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteSummary says in one line what was checked and what was left out
// and why (stderr for the text and SARIF formats, whose stdout is
// findings only).
func WriteSummary(w io.Writer, sum Summary) error {
	var names []string
	for k := range sum.Checked {
		names = append(names, string(k))
	}
	sort.Strings(names)
	var kinds []string
	for _, k := range names {
		kinds = append(kinds, fmt.Sprintf("%d %s", sum.Checked[model.Kind(k)], k))
	}
	line := fmt.Sprintf("ahpls check: checked %d customization file(s)", sum.Files())
	if len(kinds) > 0 {
		line += " (" + strings.Join(kinds, ", ") + ")"
	}
	for _, sk := range sum.Skipped {
		why := map[string]string{
			string(wsfs.SkipGitIgnored): "ignored by .gitignore (--no-gitignore to check them)",
			string(wsfs.SkipExcluded):   "excluded",
			string(wsfs.SkipUnreadable): "unreadable",
		}[sk.Reason]
		line += fmt.Sprintf("; skipped %d folder(s) and %d file(s) %s: %s", sk.Folders, sk.Files, why, strings.Join(sk.Examples, ", "))
		if n := sk.Folders + sk.Files; n > len(sk.Examples) {
			line += fmt.Sprintf(", … (%d more)", n-len(sk.Examples))
		}
	}
	if len(sum.Suppressed) > 0 {
		line += "; " + suppressedPhrase(sum.Suppressed) + " (--no-suppress to show them)"
	}
	_, err := fmt.Fprintln(w, line)
	return err
}

// suppressedPhrase is "suppressed 3 finding(s): a/b 2, c/d 1".
func suppressedPhrase(by map[string]int) string {
	total := 0
	var parts []string
	for _, id := range slices.Sorted(maps.Keys(by)) {
		total += by[id]
		parts = append(parts, fmt.Sprintf("%s %d", id, by[id]))
	}
	return fmt.Sprintf("suppressed %d finding(s): %s", total, strings.Join(parts, ", "))
}

// WriteSecurityNotices prints one line for every security/* finding the
// repository's own files hid and every config entry that turns a security
// rule off: a change cannot silence those unseen, whatever the format
// (stderr). Under GitHub Actions each line is a warning workflow command,
// so it shows as an annotation on the change.
func WriteSecurityNotices(w io.Writer, sum Summary, actions bool) error {
	bw := bufio.NewWriter(w)
	for _, n := range sum.Notices {
		if actions {
			fmt.Fprintf(bw, "::warning title=ahpls%%3A a security rule is turned off::%s\n", actionsEscape(n))
		} else {
			fmt.Fprintf(bw, "ahpls check: security: %s\n", n)
		}
	}
	for _, f := range sum.Hidden {
		if !strings.HasPrefix(f.Rule, "security/") {
			continue
		}
		by := "an ahpls-disable comment in the file"
		if f.Suppressed == model.SuppressedExternal {
			by = "an override in .ahpls/config.json"
		}
		msg := fmt.Sprintf("%s:%d:%d: %s is suppressed by %s (--no-suppress shows it)", f.Path, f.Line, f.Column, f.Rule, by)
		if actions {
			fmt.Fprintf(bw, "::warning file=%s,line=%d,col=%d,title=ahpls%%3A %s suppressed::%s\n", actionsProp(filepath.ToSlash(f.Path)), f.Line, f.Column, actionsProp(f.Rule), actionsEscape(msg))
		} else {
			fmt.Fprintf(bw, "ahpls check: security: %s\n", msg)
		}
	}
	return bw.Flush()
}

// actionsEscape escapes a workflow command's message (GitHub's
// documented %, CR and LF encodings).
func actionsEscape(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// actionsProp escapes a workflow command's property value (also ':' and ',').
func actionsProp(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// SARIF 2.1.0 shapes: only the properties we fill.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool     `json:"tool"`
	ColumnKind string        `json:"columnKind"`
	Results    []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	ShortDescription sarifText    `json:"shortDescription"`
	HelpURI          string       `json:"helpUri"`
	Default          *sarifConfig `json:"defaultConfiguration,omitempty"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations"`
	Fixes     []sarifFix      `json:"fixes,omitempty"`
	// PartialFingerprints carry Finding.Fingerprint, so code scanning
	// tracks a finding across line shifts as --baseline does.
	PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
	// Suppressions (§3.27.23) mark a finding the repository's own files
	// hid: code scanning shows it as dismissed rather than not at all.
	Suppressions []sarifSuppression `json:"suppressions,omitempty"`
}

// sarifSuppression is SARIF §3.35: kind "inSource" (an ahpls-disable
// comment) or "external" (.ahpls/config.json's overrides).
type sarifSuppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification,omitempty"`
}

// sarifFix is a quick fix as SARIF §3.55: one artifactChange per file (we
// only emit fixes that edit the diagnosed file), one replacement per edit.
type sarifFix struct {
	Description     sarifText             `json:"description"`
	ArtifactChanges []sarifArtifactChange `json:"artifactChanges"`
	// Properties says the fix's tier ("safe": `ahpls check --fix`
	// applies it; "unsafe": only with --unsafe-fixes) and whether it is the
	// one --fix would choose.
	Properties sarifFixProps `json:"properties"`
}

type sarifFixProps struct {
	Tier   string `json:"tier"`
	Chosen bool   `json:"chosen"`
}

type sarifArtifactChange struct {
	ArtifactLocation sarifArtifact      `json:"artifactLocation"`
	Replacements     []sarifReplacement `json:"replacements"`
}

// sarifReplacement deletes a region and inserts text there; an empty
// region (start == end) is an insertion. The region carries byte offsets
// too, since a lone '\r' or a byte-order mark has no clear line/column.
type sarifReplacement struct {
	DeletedRegion   sarifFixRegion `json:"deletedRegion"`
	InsertedContent *sarifContent  `json:"insertedContent,omitempty"`
}

type sarifFixRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn"`
	ByteOffset  int `json:"byteOffset"`
	ByteLength  int `json:"byteLength"`
}

type sarifContent struct {
	Text string `json:"text"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn"`
}

func sarifLevel(s model.Severity) string {
	switch s {
	case model.SeverityError:
		return "error"
	case model.SeverityWarning:
		return "warning"
	}
	return "note" // info and hint: SARIF has no finer level
}

// artifactURI turns a file path into a relative URI reference (slashes,
// percent-encoded where needed).
func artifactURI(p string) string {
	p = filepath.ToSlash(filepath.Clean(p))
	return (&url.URL{Path: p}).EscapedPath()
}

// WriteSARIF prints a SARIF 2.1.0 log with every registered rule in
// tool.driver.rules and one result per finding (a finding with
// Suppressed set carries SARIF suppressions). Columns are UTF-16 code
// units (run.columnKind).
func WriteSARIF(w io.Writer, fs []Finding, version string) error {
	rules := []sarifRule{}
	index := map[string]int{}
	for _, r := range diagnostics.Rules() {
		index[r.ID] = len(rules)
		rules = append(rules, sarifRule{ID: r.ID, ShortDescription: sarifText{Text: nonEmpty(r.Summary, r.ID)}, HelpURI: model.RuleHref(r.ID)})
	}
	results := []sarifResult{}
	for _, f := range fs {
		i, ok := index[f.Rule]
		if !ok {
			// A finding from a rule that was never registered (internal/error).
			i = len(rules)
			index[f.Rule] = i
			rules = append(rules, sarifRule{ID: f.Rule, ShortDescription: sarifText{Text: f.Rule}, HelpURI: model.RuleHref(f.Rule)})
		}
		var fps map[string]string
		if f.Fingerprint != "" {
			fps = map[string]string{"ahpls/v1": f.Fingerprint}
		}
		var sup []sarifSuppression
		switch f.Suppressed {
		case model.SuppressedInSource:
			sup = []sarifSuppression{{Kind: string(f.Suppressed), Justification: "an ahpls-disable comment in the file"}}
		case model.SuppressedExternal:
			sup = []sarifSuppression{{Kind: string(f.Suppressed), Justification: "an override in .ahpls/config.json turns the rule off"}}
		}
		results = append(results, sarifResult{
			Suppressions:        sup,
			Fixes:               sarifFixes(f),
			PartialFingerprints: fps,
			RuleID:              f.Rule, RuleIndex: i, Level: sarifLevel(f.Severity),
			Message: sarifText{Text: f.Message},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
				ArtifactLocation: sarifArtifact{URI: artifactURI(f.Path)},
				Region:           sarifRegion{StartLine: f.Line, StartColumn: f.Column, EndLine: f.EndLine, EndColumn: f.EndColumn},
			}}},
		})
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs: []sarifRun{{
			Tool:       sarifTool{Driver: sarifDriver{Name: "ahpls", Version: version, InformationURI: "https://github.com/ahpls-dev/ahpls", Rules: rules}},
			ColumnKind: "utf16CodeUnits",
			Results:    results,
		}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// sarifFixes turns a finding's quick fixes into SARIF fixes. A fix that
// also edits another file (creating a CLAUDE.md) is left out: SARIF could
// say it, but its region would need that file's text.
func sarifFixes(f Finding) []sarifFix {
	var out []sarifFix
	chosen := preferredFix(f)
	for i := range f.fixes {
		fx := &f.fixes[i]
		tier := diagnostics.FixTierOf(f.Rule, fx).String()
		ch := sarifArtifactChange{ArtifactLocation: sarifArtifact{URI: artifactURI(f.Path)}}
		ok := len(fx.Edits) > 0 && f.editsInText(i)
		for j, e := range fx.Edits {
			if !ok {
				break
			}
			r := f.fixAt[i][j].r
			rep := sarifReplacement{DeletedRegion: sarifFixRegion{
				StartLine: r.Start.Line + 1, StartColumn: r.Start.Character + 1,
				EndLine: r.End.Line + 1, EndColumn: r.End.Character + 1,
				ByteOffset: e.Span.Start, ByteLength: e.Span.End - e.Span.Start,
			}}
			if e.NewText != "" {
				rep.InsertedContent = &sarifContent{Text: e.NewText}
			}
			ch.Replacements = append(ch.Replacements, rep)
		}
		if ok {
			out = append(out, sarifFix{Description: sarifText{Text: fx.Title}, ArtifactChanges: []sarifArtifactChange{ch},
				Properties: sarifFixProps{Tier: tier, Chosen: fx == chosen}})
		}
	}
	return out
}

func nonEmpty(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// globFlags collects repeated --exclude globs.
type globFlags []string

func (g *globFlags) String() string { return strings.Join(*g, ",") }

func (g *globFlags) Set(v string) error {
	if _, err := wsfs.NewMatcher([]string{v}); err != nil {
		return err
	}
	*g = append(*g, v)
	return nil
}

// ruleFlags collects repeated --rule id=level.
type ruleFlags map[string]model.Severity

func (r ruleFlags) String() string { return "" }

func (r ruleFlags) Set(v string) error {
	id, level, ok := strings.Cut(v, "=")
	if !ok || id == "" {
		return fmt.Errorf("want id=level, got %q", v)
	}
	sev, ok := model.ParseSeverity(strings.ToLower(level))
	if !ok {
		return fmt.Errorf("level %q for %s is not off|error|warning|info|hint", level, id)
	}
	r[id] = sev
	return nil
}

// Exit codes of Main.
const (
	exitClean = 0 // nothing at or above --fail-on
	exitFound = 1 // a finding at or above --fail-on
	exitUsage = 2 // a usage or I/O error, or a fix --fix refused to write
)

// cliFlags are the parsed flags of `ahpls check`.
type cliFlags struct {
	format, failOn, targets string
	explain                 string
	noGitIgnore             bool
	noImplied, fix, diff    bool
	unsafeFixes             bool
	noSuppress              bool
	baseline                string
	rules                   ruleFlags
	exclude                 globFlags
}

// Main runs `ahpls check` with args (after the subcommand name) and returns
// the exit code: 0 clean, 1 a finding at or above --fail-on (default error),
// 2 a usage or I/O error (or a file --fix refused to write). base holds
// what no flag sets: the client tool config validator (package tools'
// ConfigProblems, passed in by cmd/ahpls because this room is below tools).
func Main(args []string, stdout, stderr io.Writer, version string, base diagnostics.Options) int {
	fl, paths, code, ok := parseArgs(args, stderr)
	if !ok {
		return code
	}
	if fl.explain != "" {
		return writeExplain(stdout, stderr, fl.explain)
	}
	threshold, ok := parseFailOn(fl.failOn, stderr)
	if !ok {
		return exitUsage
	}
	var bl *Baseline
	if fl.baseline != "" {
		var err error
		if bl, err = LoadBaseline(fl.baseline); err != nil {
			return ioError(stderr, fmt.Errorf("--baseline: %w", err))
		}
	}
	cfg := Config{Rules: ruleOptions(fl, base, stderr), Exclude: fl.exclude, NoGitIgnore: fl.noGitIgnore, UnsafeFixes: fl.unsafeFixes, NoSuppress: fl.noSuppress, Warn: func(msg string) {
		fmt.Fprintf(stderr, "ahpls check: %s\n", msg)
	}}
	if fl.diff {
		return runDiff(paths, cfg, threshold, bl, stdout, stderr)
	}
	var found []Finding
	var sum Summary
	refused := false
	if fl.fix {
		res, err := Fix(paths, cfg, true)
		if err != nil {
			return ioError(stderr, err)
		}
		reportFixes(stderr, res, "fixed")
		found, sum, refused = res.Remaining, res.Summary, len(res.Refused) > 0
	} else {
		var err error
		if found, sum, err = RunSummary(paths, cfg); err != nil {
			return ioError(stderr, err)
		}
	}
	found = applyBaseline(bl, found, stderr)
	if err := WriteSecurityNotices(stderr, sum, os.Getenv("GITHUB_ACTIONS") == "true"); err != nil {
		return ioError(stderr, err)
	}
	if code := writeFindings(stdout, stderr, fl.format, found, sum, version); code != exitClean {
		return code
	}
	if refused {
		return exitUsage
	}
	return failed(found, threshold)
}

// ioError reports err and returns the usage/I/O exit code.
func ioError(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "ahpls check: %v\n", err)
	return exitUsage
}

// parseArgs reads flags and paths (flags may follow paths: `ahpls check .
// --format json`). ok is false when Main should return code at once.
func parseArgs(args []string, stderr io.Writer) (fl cliFlags, paths []string, code int, ok bool) {
	fs := flag.NewFlagSet("ahpls check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&fl.format, "format", "text", "output format: text, json or sarif")
	fs.StringVar(&fl.failOn, "fail-on", "error", "lowest severity that fails the run: error, warning, info, hint or never")
	fs.StringVar(&fl.targets, "targets", "", "comma-separated targets (default vscode-agent-host,agent-skills)")
	fs.BoolVar(&fl.noImplied, "no-implied-targets", false, "do not add targets implied by a file's path")
	fs.BoolVar(&fl.noGitIgnore, "no-gitignore", false, "check files that .gitignore ignores too")
	fl.rules = ruleFlags{}
	fs.Var(fl.rules, "rule", "override a rule's level: id=off|error|warning|info|hint (repeatable)")
	fs.BoolVar(&fl.fix, "fix", false, "apply the safe fixes (fix tier safe in docs/rules.md: the form changes, never the meaning), re-check, and report what remains")
	fs.BoolVar(&fl.unsafeFixes, "unsafe-fixes", false, "with --fix or --diff, apply the unsafe fixes too (deletes, renames, guessed values)")
	fs.BoolVar(&fl.noSuppress, "no-suppress", false, "report what ahpls-disable comments and .ahpls/config.json overrides hide as findings (for CI reviewing changes to the repository's own config)")
	fs.StringVar(&fl.baseline, "baseline", "", "report only findings not in this saved `--format json` output (matched by path, rule and fingerprint, so line shifts do not matter); the exit code follows the new ones")
	fs.StringVar(&fl.explain, "explain", "", "print a rule's documentation with its evidence (`rule-id`) and exit")
	fs.BoolVar(&fl.diff, "diff", false, "print the changes --fix would make as a unified diff, and change nothing")
	fs.Var(&fl.exclude, "exclude", "skip files and folders matching a glob (`**` spans folders; repeatable; added to .git, node_modules and .ahpls/config.json's \"exclude\")")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: ahpls check [flags] [paths...]\n\n"+
			"Checks customization files below each folder (a workspace folder) or the named files.\n"+
			"Prints path:line:col: severity: message [rule-id]; lines are 1-based, columns are\n"+
			"1-based UTF-16 code units (the editor's column + 1).\n\nflags:\n")
		fs.PrintDefaults()
	}
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return fl, nil, exitClean, false
			}
			return fl, nil, exitUsage, false
		}
		rest = fs.Args()
		for len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
			paths = append(paths, rest[0])
			rest = rest[1:]
		}
		if len(rest) == 0 {
			break
		}
		if rest[0] == "--" {
			paths = append(paths, rest[1:]...)
			break
		}
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	return fl, paths, exitClean, true
}

// ruleOptions turns --rule, --targets and --no-implied-targets into rule
// options; an unknown target is named on stderr and ignored.
func ruleOptions(fl cliFlags, base diagnostics.Options, stderr io.Writer) diagnostics.Options {
	opts := base
	opts.NoImpliedTargets = fl.noImplied
	if len(fl.rules) > 0 {
		opts.Rules = fl.rules
	}
	for _, id := range strings.Split(fl.targets, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		if !model.KnownTarget(id) {
			fmt.Fprintf(stderr, "ahpls check: unknown target '%s' ignored\n", id)
			continue
		}
		opts.Targets = append(opts.Targets, model.Target(id))
	}
	return opts
}

// parseFailOn reads --fail-on: the lowest failing severity, 0 for never.
func parseFailOn(v string, stderr io.Writer) (model.Severity, bool) {
	if v == "never" {
		return 0, true
	}
	sev, ok := model.ParseSeverity(v)
	if !ok || sev == 0 {
		fmt.Fprintf(stderr, "ahpls check: --fail-on %q is not error, warning, info, hint or never\n", v)
		return 0, false
	}
	return sev, true
}

// applyBaseline drops the findings bl holds (none without --baseline) and
// says on stderr how many.
func applyBaseline(bl *Baseline, found []Finding, stderr io.Writer) []Finding {
	if bl == nil {
		return found
	}
	found, known := bl.New(found)
	fmt.Fprintf(stderr, "ahpls check: %d finding(s) in the baseline not shown; %d new\n", known, len(found))
	return found
}

// runDiff is --diff: the changes --fix would make, as a unified diff.
func runDiff(paths []string, cfg Config, threshold model.Severity, bl *Baseline, stdout, stderr io.Writer) int {
	res, err := Fix(paths, cfg, false)
	if err != nil {
		return ioError(stderr, err)
	}
	if err := WriteSecurityNotices(stderr, res.Summary, os.Getenv("GITHUB_ACTIONS") == "true"); err != nil {
		return ioError(stderr, err)
	}
	for _, c := range res.Changes {
		if err := WriteUnifiedDiff(stdout, c.Path, c.Old, c.New); err != nil {
			return ioError(stderr, err)
		}
	}
	reportFixes(stderr, res, "would fix")
	return failed(applyBaseline(bl, res.Remaining, stderr), threshold)
}

// writeFindings prints found in format; exitClean, or exitUsage on a bad
// format or a failed write.
func writeFindings(stdout, stderr io.Writer, format string, found []Finding, sum Summary, version string) int {
	var err error
	switch format {
	case "text":
		if err = WriteText(stdout, found); err == nil {
			err = WriteSummary(stderr, sum)
		}
	case "json":
		err = WriteJSON(stdout, found, sum)
	case "sarif":
		if err = WriteSARIF(stdout, withHidden(found, sum.Hidden), version); err == nil {
			err = WriteSummary(stderr, sum)
		}
	default:
		fmt.Fprintf(stderr, "ahpls check: --format %q is not text, json or sarif\n", format)
		return exitUsage
	}
	if err != nil {
		return ioError(stderr, err)
	}
	return exitClean
}

// withHidden is found and the suppressed findings, in path order, for
// SARIF.
func withHidden(found, hidden []Finding) []Finding {
	if len(hidden) == 0 {
		return found
	}
	all := append(slices.Clip(found), hidden...)
	sortFindings(all)
	return all
}

// failed is the exit code for what was found: 1 when a finding is at or
// above threshold (0 = never), else 0.
func failed(found []Finding, threshold model.Severity) int {
	if threshold != 0 {
		for _, f := range found {
			if f.Severity != 0 && f.Severity <= threshold {
				return 1
			}
		}
	}
	return 0
}

// reportFixes tells stderr, one line per file, what --fix changed (stdout
// keeps the remaining findings in the chosen format, or the diff).
func reportFixes(w io.Writer, res FixResult, verb string) {
	total := 0
	for _, c := range res.Changes {
		var rules []string
		seen := map[string]bool{}
		for _, f := range c.Fixed {
			if !seen[f.Rule] {
				seen[f.Rule] = true
				rules = append(rules, f.Rule)
			}
		}
		total += len(c.Fixed)
		fmt.Fprintf(w, "ahpls check: %s %d problem(s) in %s [%s]\n", verb, len(c.Fixed), c.Path, strings.Join(rules, ", "))
	}
	for _, err := range res.Refused {
		fmt.Fprintf(w, "ahpls check: not written: %v\n", err)
	}
	fmt.Fprintf(w, "ahpls check: %s %d problem(s) in %d file(s); %d remain\n", verb, total, len(res.Changes), len(res.Remaining))
}
