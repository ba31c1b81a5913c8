package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ahpls-dev/ahpls/wsfs"
)

// The built-in test runner (issue #20): ahpls_run_tests runs the tests of a
// project it detected in the workspace, without any configuration, and
// returns what the model needs at once (counts, each failing test with
// file:line and its assertion message, a bounded excerpt, the command to
// reproduce) instead of the raw log. It is a process-running tool, so it is
// offered only in a trusted workspace, and it runs through the same runner
// as command tools (argv only, confined, bounded, whole tree killed on
// cancel). A workspace tool named "run_tests" in the settings or
// .ahpls/tools.json replaces it; "runTests": false in .ahpls/tools.json
// turns it off.
//
// Frameworks: Go modules (go test -json), Node projects whose test script
// is node's own test runner (TAP reporter), Jest and Vitest (their JSON
// reporters, written to a temp file), Cargo packages and workspaces
// (libtest's human output), pytest (JUnit XML written to a temp file), and
// a Makefile "test" target as a plain fallback (exit status and output
// tail only). Parsers live in testrun_*.go.

// BuiltinRunTests is the test runner's name before Prefix.
const BuiltinRunTests = "run_tests"

// Test framework kinds.
const (
	FrameworkGo     = "go"
	FrameworkNode   = "node"
	FrameworkPytest = "pytest"
	FrameworkMake   = "make"
	FrameworkJest   = "jest"
	FrameworkVitest = "vitest"
	FrameworkCargo  = "cargo"
)

// TestProject is one detected test setup: a framework in a directory.
type TestProject struct {
	Framework string `json:"framework"`
	Dir       string `json:"dir"` // workspace-relative, slash-separated, "." for the root
	// Module is the Go module path (Go only).
	Module string `json:"module,omitempty"`
	// Argv is the node test command taken from scripts.test (Node), or the
	// plain extra arguments of a jest or vitest test script.
	Argv []string `json:"-"`
}

// Limits of the test runner.
const (
	testTimeout       = 15 * time.Minute
	testLogLimit      = 64 << 10 // raw output kept for the log tail
	maxFailuresListed = 20       // in the text result; the count is exact
	maxExcerptBytes   = 800      // per failing test
	maxMessageBytes   = 300
	maxResultText     = 8 << 10
	maxDetectDepth    = 4
	maxDetectDirs     = 5000
)

// testEnvAllow are the variables test toolchains need beyond DefaultEnvAllow.
var testEnvAllow = []string{
	"GOCACHE", "GOPATH", "GOMODCACHE", "GOFLAGS", "GOPROXY", "GONOSUMDB", "GOPRIVATE", "GOTOOLCHAIN", "GOROOT",
	"NODE_PATH", "NODE_OPTIONS", "VIRTUAL_ENV", "PYTHONPATH",
	"CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "CARGO_TARGET_DIR",
}

// skipDirs are never searched for projects.
var skipDirs = map[string]bool{"node_modules": true, "vendor": true, "testdata": true, "target": true, "dist": true, "build": true, "__pycache__": true}

// DetectTestProjects finds the test setups under root: every directory (to a
// bounded depth, skipping hidden, vendored and generated folders) holding a
// go.mod, a Cargo.toml, a package.json with scripts.test or a jest or
// vitest dependency, a pytest configuration or test files, or a Makefile
// with a test target. A directory that is a Go, Node, Rust or Python project
// does not also get the Makefile fallback, and a member package of a Cargo
// workspace is run by its workspace, not again on its own.
func DetectTestProjects(root string) []TestProject {
	var out []TestProject
	r := wsfs.NewRoot(root)
	dirs := 1 // the root
	// wsfs.Walk lists each folder (calling Listed) before it tells fn of
	// the folder's entries, depth first in lexical order: the projects come
	// out parents first, as the folders are met.
	opt := wsfs.WalkOptions{MaxDepth: maxDetectDepth, Listed: func(rel string, entries []wsfs.Entry) {
		if rel == "" {
			rel = "."
		}
		names := map[string]bool{}
		for _, e := range entries {
			if e.Type.IsRegular() {
				names[path.Base(e.Rel)] = true
			}
		}
		out = append(out, detectIn(r, rel, names)...)
	}}
	_ = wsfs.Walk(root, opt, func(e wsfs.Entry) error {
		if !e.IsDir() {
			return nil
		}
		if n := path.Base(e.Rel); strings.HasPrefix(n, ".") || skipDirs[n] {
			return wsfs.SkipDir
		}
		if dirs++; dirs > maxDetectDirs {
			return errTooManyDirs
		}
		return nil
	})
	return dropCargoMembers(r, out)
}

// dropCargoMembers removes Cargo projects inside a Cargo workspace project
// (its Cargo.toml has [workspace]): `cargo test` at the workspace root
// runs them. Parents come before their children in projects.
func dropCargoMembers(r *wsfs.Root, projects []TestProject) []TestProject {
	var workspaces []string
	out := projects[:0]
	for _, p := range projects {
		if p.Framework == FrameworkCargo {
			inside := false
			for _, w := range workspaces {
				if w == "." || strings.HasPrefix(p.Dir, w+"/") {
					inside = true
				}
			}
			if inside {
				continue
			}
			if cargoWorkspace().Match(readProject(r, path.Join(p.Dir, "Cargo.toml"), 256<<10)) {
				workspaces = append(workspaces, p.Dir)
			}
		}
		out = append(out, p)
	}
	return out
}

var cargoWorkspace = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*\[workspace\]`) })

// errTooManyDirs stops detection in a workspace with more than
// maxDetectDirs folders within the depth limit.
var errTooManyDirs = errors.New("too many folders")

// detectIn returns the test setups of the folder rel ("." for the root)
// whose regular files are names. A folder that is a Go, Node or Python
// project does not also get the Makefile fallback.
func detectIn(r *wsfs.Root, rel string, names map[string]bool) []TestProject {
	var out []TestProject
	found := false
	if names["go.mod"] {
		if mod := goModulePath(readProject(r, path.Join(rel, "go.mod"), 64<<10)); mod != "" {
			out = append(out, TestProject{Framework: FrameworkGo, Dir: rel, Module: mod})
			found = true
		}
	}
	if names["package.json"] {
		if fw, argv, ok := nodeSetup(readProject(r, path.Join(rel, "package.json"), 1<<20)); ok {
			out = append(out, TestProject{Framework: fw, Dir: rel, Argv: argv})
			found = true
		}
	}
	if names["Cargo.toml"] {
		out = append(out, TestProject{Framework: FrameworkCargo, Dir: rel})
		found = true
	}
	if isPytestDir(r, rel, names) {
		out = append(out, TestProject{Framework: FrameworkPytest, Dir: rel})
		found = true
	}
	if !found && (names["Makefile"] || names["makefile"] || names["GNUmakefile"]) && makeHasTest(r, rel, names) {
		out = append(out, TestProject{Framework: FrameworkMake, Dir: rel})
	}
	return out
}

func pathJoinRel(rel, name string) string {
	if rel == "." {
		return name
	}
	return rel + "/" + name
}

// readSmall reads a project file (go.mod, package.json) through the safe
// reader: a FIFO or a device named like one cannot block detection.
func readSmall(path string, limit int64) []byte {
	b, err := wsfs.ReadFile(path, limit)
	if err != nil {
		return nil
	}
	return b
}

// readProject reads a project file below the root (rel slash-separated)
// through the root: as readSmall, and a symlink cannot lead out of the
// workspace.
func readProject(r *wsfs.Root, rel string, limit int64) []byte {
	b, err := r.Read(rel, limit)
	if err != nil {
		return nil
	}
	return b
}

func goModulePath(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module"); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

func isPytestDir(r *wsfs.Root, dir string, names map[string]bool) bool {
	if names["pytest.ini"] || names["conftest.py"] {
		return true
	}
	for _, f := range []string{"pyproject.toml", "setup.cfg", "tox.ini"} {
		if names[f] && bytes.Contains(readProject(r, path.Join(dir, f), 256<<10), []byte("pytest")) {
			return true
		}
	}
	for n := range names {
		if strings.HasPrefix(n, "test_") && strings.HasSuffix(n, ".py") {
			return true
		}
	}
	return false
}

var makeTestTarget = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^test\s*:`) })

func makeHasTest(r *wsfs.Root, dir string, names map[string]bool) bool {
	for _, n := range []string{"GNUmakefile", "makefile", "Makefile"} {
		if names[n] && makeTestTarget().Match(readProject(r, path.Join(dir, n), 256<<10)) {
			return true
		}
	}
	return false
}

// runTestsDefinition is the wire definition of the tool for the projects
// found; the description lists them so the model can pick one.
func runTestsDefinition(projects []TestProject) *Definition {
	t, f := true, false
	var list []string
	for i, p := range projects {
		if i == 10 {
			list = append(list, fmt.Sprintf("and %d more", len(projects)-10))
			break
		}
		list = append(list, p.Framework+" in "+p.Dir)
	}
	d := &Definition{
		Name:  BuiltinRunTests,
		Title: "Run tests",
		Description: "Runs the workspace's tests with the detected framework and returns counts, each failing test with its file:line and assertion message, and the command to reproduce. " +
			"Detected: " + strings.Join(list, "; ") + ". " +
			"path: a workspace-relative project directory, package directory or test file (default: every project). " +
			"pattern: a test name filter in the framework's syntax (go -run regexp, node --test-name-pattern, jest/vitest --testNamePattern regexp, cargo test name substring, pytest -k). " +
			"failedOnly: re-run only the tests that failed in the previous run.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"path":{"type":"string","minLength":1,"maxLength":1024,"description":"Workspace-relative project, package directory or test file."},` +
			`"package":{"type":"string","minLength":1,"maxLength":1024,"description":"Alias of path."},` +
			`"pattern":{"type":"string","minLength":1,"maxLength":1024,"description":"Test name filter in the framework's syntax."},` +
			`"failedOnly":{"type":"boolean","description":"Re-run only the tests that failed last time."}},"additionalProperties":false}`),
		Annotations: &Annotations{Title: "Run tests", ReadOnlyHint: &f, DestructiveHint: &f, IdempotentHint: &t, OpenWorldHint: &f},
		Source:      SourceBuiltin,
		builtin:     runTests,
		trustGated:  true,
	}
	if err := d.compileInputSchema(); err != nil {
		panic("built-in tool run_tests: " + err.Error())
	}
	return d
}

// TestFailure is one failing test in a result.
type TestFailure struct {
	Name    string `json:"name"`
	Package string `json:"package,omitempty"`
	File    string `json:"file,omitempty"` // workspace-relative
	Line    int    `json:"line,omitempty"` // 1-based
	Message string `json:"message,omitempty"`
	Excerpt string `json:"excerpt,omitempty"`
}

// TestRun is the structured result of one project's run.
type TestRun struct {
	Framework string        `json:"framework"`
	Dir       string        `json:"dir"`
	Command   []string      `json:"command"`
	Reproduce string        `json:"reproduce"`
	Passed    int           `json:"passed"`
	Failed    int           `json:"failed"`
	Skipped   int           `json:"skipped"`
	Failures  []TestFailure `json:"failures,omitempty"`
	// Problem is set when the run failed without a failing test (build
	// error, crash, timeout); LogTail then holds the end of the output.
	Problem  string  `json:"problem,omitempty"`
	LogTail  string  `json:"logTail,omitempty"`
	ExitCode int     `json:"exitCode"`
	Seconds  float64 `json:"seconds"`
}

// TestReport is the structured content of an ahpls_run_tests result.
type TestReport struct {
	Runs     []TestRun `json:"runs"`
	Passed   int       `json:"passed"`
	Failed   int       `json:"failed"`
	Skipped  int       `json:"skipped"`
	Problems int       `json:"problems"`
}

// testParser turns one framework's output into counts and failures. Feed is
// called with every output chunk in order; Status and Finish may be called
// concurrently with Feed (they lock).
type testParser interface {
	Feed([]byte)
	Status() string
	Finish(run *TestRun)
}

// stepper is a parser that can word a progress step ("N of M tests,
// current package/test"); others report the elapsed time.
type stepper interface {
	Step() string
}

// lineSplitter feeds complete lines to fn, bounding a single line.
type lineSplitter struct {
	buf []byte
	fn  func(line []byte)
}

const maxLine = 1 << 20

func (l *lineSplitter) Write(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			room := maxLine - len(l.buf)
			l.buf = append(l.buf, p[:min(len(p), max(room, 0))]...)
			return
		}
		if len(l.buf) == 0 {
			l.fn(p[:i])
		} else {
			l.buf = append(l.buf, p[:min(i, max(maxLine-len(l.buf), 0))]...)
			l.fn(l.buf)
			l.buf = l.buf[:0]
		}
		p = p[i+1:]
	}
}

func (l *lineSplitter) Flush() {
	if len(l.buf) > 0 {
		l.fn(l.buf)
		l.buf = l.buf[:0]
	}
}

// lastFailed remembers, per project directory, what failed last time.
type lastFailed struct {
	mu    sync.Mutex
	byDir map[string][]TestFailure
	shown map[string]bool // URIs that carry test diagnostics now
}

// TestDiagnosticsSource is the LSP diagnostic source of failing tests.
const TestDiagnosticsSource = "ahpls tests"

// TestDiagnostics returns the diagnostics of every test that failed in the
// last run of its project, by file URI, and the URIs that had some before
// and have none now (to clear). It updates what counts as shown.
func (r *Registry) TestDiagnostics() map[string][]Diagnostic {
	r.failed.mu.Lock()
	defer r.failed.mu.Unlock()
	out := map[string][]Diagnostic{}
	for _, fs := range r.failed.byDir {
		for _, f := range fs {
			if f.File == "" || f.Line <= 0 {
				continue
			}
			uri, _, err := r.workspaceURI(filepath.FromSlash(f.File), false)
			if err != nil {
				continue
			}
			msg := f.Name + " failed"
			if f.Message != "" {
				msg += ": " + f.Message
			}
			out[uri] = append(out[uri], Diagnostic{
				URI:      uri,
				Range:    Range{Start: Position{Line: f.Line - 1}, End: Position{Line: f.Line}},
				Severity: "error",
				Message:  msg,
				Source:   TestDiagnosticsSource,
				Code:     f.Name,
			})
		}
	}
	for uri := range r.failed.shown {
		if _, ok := out[uri]; !ok {
			out[uri] = []Diagnostic{}
		}
	}
	r.failed.shown = map[string]bool{}
	for uri, ds := range out {
		if len(ds) > 0 {
			r.failed.shown[uri] = true
		}
	}
	return out
}

func (l *lastFailed) get(dir string) []TestFailure {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byDir[dir]
}

// add records failures of a partial run (a pattern or a path) without
// forgetting the project's other failures.
func (l *lastFailed) add(dir string, fs []TestFailure) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byDir == nil {
		l.byDir = map[string][]TestFailure{}
	}
	have := map[string]bool{}
	for _, f := range l.byDir[dir] {
		have[f.Package+"\x00"+f.Name] = true
	}
	for _, f := range fs {
		if !have[f.Package+"\x00"+f.Name] {
			l.byDir[dir] = append(l.byDir[dir], f)
		}
	}
}

func (l *lastFailed) set(dir string, f []TestFailure) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byDir == nil {
		l.byDir = map[string][]TestFailure{}
	}
	l.byDir[dir] = f
}

// TestProjects returns the detected projects (nil when none).
func (r *Registry) TestProjects() []TestProject {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]TestProject(nil), r.testProjects...)
}

// RefreshTestProjects re-runs detection (call it when go.mod, package.json,
// a Makefile or a pytest configuration changes) and reports whether the set
// changed, in which case the tool list must be re-published.
func (r *Registry) RefreshTestProjects() bool {
	projects := DetectTestProjects(r.realRoot)
	r.mu.Lock()
	defer r.mu.Unlock()
	old, _ := json.Marshal(r.testProjects)
	now, _ := json.Marshal(projects)
	if bytes.Equal(old, now) && r.testDef != nil == (len(projects) > 0) {
		return false
	}
	r.testProjects = projects
	r.testDef = nil
	if len(projects) > 0 {
		r.testDef = runTestsDefinition(projects)
	}
	r.byName = nil
	return true
}

// runTests is the builtin behind ahpls_run_tests.
func runTests(ctx context.Context, r *Registry, d *Definition, input map[string]any, onProgress ProgressFunc) Result {
	projects := r.TestProjects()
	path, _ := input["path"].(string)
	if p, _ := input["package"].(string); path == "" {
		path = p
	}
	pattern, _ := input["pattern"].(string)
	failedOnly, _ := input["failedOnly"].(bool)

	type job struct {
		p      TestProject
		target string // "" or a path relative to the project dir
	}
	var jobs []job
	if path != "" {
		abs, err := resolveInside(r.realRoot, path)
		if err != nil {
			return failure(codeFor(err), "Did not run tests: path: "+r.relError(err))
		}
		rel, _ := filepath.Rel(r.realRoot, abs)
		rel = filepath.ToSlash(rel)
		// The deepest project that contains path.
		best := -1
		for i, p := range projects {
			if (p.Dir == "." || rel == p.Dir || strings.HasPrefix(rel, p.Dir+"/")) && (best < 0 || len(p.Dir) > len(projects[best].Dir)) {
				best = i
			}
		}
		if best < 0 {
			return failure(CodeInvalidInput, fmt.Sprintf("Did not run tests: no detected test project contains %q", path))
		}
		p := projects[best]
		target := ""
		if rel != p.Dir {
			target = strings.TrimPrefix(strings.TrimPrefix(rel, p.Dir), "/")
			if p.Dir == "." {
				target = rel
			}
		}
		// Every project of the same directory (e.g. Go and Make) would run
		// the same tests twice; take the first.
		jobs = append(jobs, job{p: p, target: target})
	} else {
		for _, p := range projects {
			jobs = append(jobs, job{p: p})
		}
	}
	if failedOnly {
		var kept []job
		for _, j := range jobs {
			if len(r.failed.get(j.p.Dir)) > 0 {
				kept = append(kept, j)
			}
		}
		if len(kept) == 0 {
			return Result{Success: true, PastTenseMessage: "No tests failed last time; nothing to re-run", Output: "No tests failed in the previous run of these projects; nothing was run.\n", ExitCode: 0}
		}
		jobs = kept
	}

	report := TestReport{}
	start := time.Now()
	for _, j := range jobs {
		var prev []TestFailure
		if failedOnly {
			prev = r.failed.get(j.p.Dir)
		}
		run, res := r.runTestProject(ctx, j.p, j.target, pattern, prev, onProgress, len(jobs) > 1)
		if run.Command == nil && len(jobs) == 1 {
			return res // refused before anything ran (input, confinement, missing program)
		}
		report.Runs = append(report.Runs, run)
		report.Passed += run.Passed
		report.Failed += run.Failed
		report.Skipped += run.Skipped
		if run.Problem != "" {
			report.Problems++
		}
		if pattern == "" && j.target == "" || failedOnly {
			r.failed.set(j.p.Dir, run.Failures)
		} else if len(run.Failures) > 0 {
			r.failed.add(j.p.Dir, run.Failures)
		}
		if r.onTestDiags != nil {
			r.onTestDiags(r.TestDiagnostics())
		}
		if res.Cancelled || res.TimedOut {
			out := failure(res.ErrorCode, "Tests "+map[bool]string{true: "were cancelled", false: "timed out"}[res.Cancelled])
			out.Cancelled, out.TimedOut = res.Cancelled, res.TimedOut
			out.Output = renderReport(report)
			out.Structured = report
			out.Duration = time.Since(start)
			return out
		}
	}
	out := Result{Output: renderReport(report), Structured: report, ExitCode: 0, Duration: time.Since(start)}
	summary := fmt.Sprintf("%d passed, %d failed", report.Passed, report.Failed)
	if report.Skipped > 0 {
		summary += fmt.Sprintf(", %d skipped", report.Skipped)
	}
	if report.Failed == 0 && report.Problems == 0 {
		out.Success = true
		out.PastTenseMessage = "Ran tests: " + summary
	} else {
		out.ExitCode = 1
		out.ErrorCode = CodeExitStatus
		out.PastTenseMessage = "Tests failed: " + summary
		if report.Problems > 0 {
			out.PastTenseMessage += fmt.Sprintf(" (%d run(s) failed without a failing test)", report.Problems)
		}
		out.ErrorMessage = out.PastTenseMessage
	}
	return out
}

// relError keeps error texts free of where symlinks point outside the
// workspace (issue #16 item 5).
func (r *Registry) relError(err error) string {
	return strings.ReplaceAll(err.Error(), r.realRoot+string(filepath.Separator), "")
}

// runTestProject runs one project and parses its output.
func (r *Registry) runTestProject(ctx context.Context, p TestProject, target, pattern string, prev []TestFailure, onProgress ProgressFunc, many bool) (TestRun, Result) {
	run := TestRun{Framework: p.Framework, Dir: p.Dir}
	dir, err := resolveInside(r.realRoot, filepath.FromSlash(p.Dir))
	if err != nil {
		run.Problem = "project directory: " + r.relError(err)
		return run, failure(codeFor(err), run.Problem)
	}
	argv, parser, cleanup, err := buildTestCommand(r.realRoot, p, dir, target, pattern, prev)
	if cleanup != nil {
		defer cleanup()
	}
	if err != nil {
		run.Problem = err.Error()
		return run, failure(CodeInvalidInput, run.Problem)
	}
	run.Command = argv
	run.Reproduce = reproduceLine(p.Dir, argv)
	env := buildEnv(r.environ, testEnvAllow, testEnvExtra(p.Framework))
	prog, err := resolveProgram(r.realRoot, argv[0], env)
	if err != nil {
		run.Problem = r.relError(err)
		return run, failure(codeFor(err), run.Problem)
	}
	statusText := parser.Status
	if many {
		statusText = func() string { return p.Framework + " in " + p.Dir + ": " + parser.Status() }
	}
	var step func() string
	if st, ok := parser.(stepper); ok {
		step = st.Step
	}
	res := runProcess(ctx, execSpec{
		Path: prog, Args: argv, Dir: dir, Env: env,
		Timeout: testTimeout, Limit: testLogLimit, Label: "tests in " + p.Dir,
		OnOutput: parser.Feed,
		Status:   statusText,
		Step:     step,
	}, onProgress)
	run.ExitCode = res.ExitCode
	run.Seconds = res.Duration.Round(10 * time.Millisecond).Seconds()
	parser.Finish(&run)
	if res.ExitCode != 0 && run.Failed == 0 || res.Cancelled || res.TimedOut || res.ErrorCode == CodeStartFailed {
		if run.Problem == "" {
			run.Problem = res.PastTenseMessage
		}
		run.LogTail = tailText(res.Output, 1500)
	}
	return run, res
}

// testEnvExtra pins what makes runs reproducible and quiet.
func testEnvExtra(framework string) map[string]string {
	switch framework {
	case FrameworkNode, FrameworkJest, FrameworkVitest:
		return map[string]string{"NO_COLOR": "1", "FORCE_COLOR": "0", "CI": "1"}
	case FrameworkCargo:
		return map[string]string{"CARGO_TERM_COLOR": "never", "RUST_BACKTRACE": "0"}
	case FrameworkPytest:
		return map[string]string{"PY_COLORS": "0", "PYTHONDONTWRITEBYTECODE": "1"}
	}
	return nil
}

// buildTestCommand maps the input to each framework's argv. Every value is
// one argv element (flag=value), never shell text.
func buildTestCommand(realRoot string, p TestProject, dir, target, pattern string, prev []TestFailure) ([]string, testParser, func(), error) {
	switch p.Framework {
	case FrameworkGo:
		pkgs := []string{"./..."}
		if target != "" {
			t := target
			if st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(t))); err == nil && !st.IsDir() {
				t = pathDir(t)
			}
			if t == "." {
				pkgs = []string{"."}
			} else {
				pkgs = []string{"./" + t + "/..."}
			}
		}
		argv := []string{"go", "test", "-json", "-count=1"}
		if len(prev) > 0 {
			names, ps := map[string]bool{}, map[string]bool{}
			for _, f := range prev {
				names[regexp.QuoteMeta(strings.SplitN(f.Name, "/", 2)[0])] = true
				if f.Package != "" {
					ps[f.Package] = true
				}
			}
			pattern = "^(" + strings.Join(sortedKeys(names), "|") + ")$"
			if len(ps) > 0 {
				pkgs = sortedKeys(ps)
			}
		}
		if pattern != "" {
			argv = append(argv, "-run="+pattern)
		}
		// No "--" here: go test would pass what follows to the test
		// binary. Every package argument starts with "./" or is an import
		// path go itself printed, so none can be read as a flag.
		argv = append(argv, pkgs...)
		g := newGoParser(p)
		g.absDir = dir
		return argv, g, nil, nil
	case FrameworkNode:
		if p.Argv[0] != "node" {
			if pattern != "" || target != "" || len(prev) > 0 {
				return nil, nil, nil, fmt.Errorf("the test script of %s is not node's test runner; path, pattern and failedOnly are supported only for `node --test` scripts", p.Dir)
			}
			return append([]string(nil), p.Argv...), newTailParser(), nil, nil
		}
		argv := []string{"node", "--test", "--test-reporter=tap"}
		if len(prev) > 0 {
			var names []string
			for _, f := range prev {
				names = append(names, regexp.QuoteMeta(f.Name))
			}
			pattern = "^(" + strings.Join(names, "|") + ")$"
		}
		if pattern != "" {
			argv = append(argv, "--test-name-pattern="+pattern)
		}
		files := p.Argv[2:]
		if target != "" {
			files = []string{target}
		}
		if len(files) > 0 {
			argv = append(argv, "--")
			argv = append(argv, files...)
		}
		return argv, newTAPParser(p, dir), nil, nil
	case FrameworkPytest:
		xmlPath, cleanup, err := tempReport("ahpls-pytest-*.xml")
		if err != nil {
			return nil, nil, nil, err
		}
		argv := []string{"python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "junit_family=xunit1", "--junitxml=" + xmlPath}
		if len(prev) > 0 {
			var ids []string
			for _, f := range prev {
				ids = append(ids, f.Name)
			}
			argv = append(argv, "--")
			argv = append(argv, ids...)
			return argv, newPytestParser(p, xmlPath), cleanup, nil
		}
		if pattern != "" {
			argv = append(argv, "-k="+pattern)
		}
		if target != "" {
			argv = append(argv, "--", target)
		}
		return argv, newPytestParser(p, xmlPath), cleanup, nil
	case FrameworkJest, FrameworkVitest:
		entry, err := jsRunnerEntry(realRoot, dir, p.Framework)
		if err != nil {
			return nil, nil, nil, err
		}
		reportPath, cleanup, err := tempReport("ahpls-" + p.Framework + "-*.json")
		if err != nil {
			return nil, nil, nil, err
		}
		argv, err := jsArgv(p.Framework, entry, p.Argv, reportPath, target, pattern, prev)
		if err != nil {
			cleanup()
			return nil, nil, nil, err
		}
		return argv, newJSReportParser(p, dir, reportPath), cleanup, nil
	case FrameworkCargo:
		return cargoArgv(dir, target, pattern, prev), newCargoParser(p), nil, nil
	case FrameworkMake:
		if pattern != "" || target != "" || len(prev) > 0 {
			return nil, nil, nil, fmt.Errorf("the Makefile fallback in %s runs `make test` only; path, pattern and failedOnly are not supported", p.Dir)
		}
		return []string{"make", "--no-print-directory", "test"}, newTailParser(), nil, nil
	}
	return nil, nil, nil, fmt.Errorf("unknown framework %q", p.Framework)
}

// tempReport makes the empty file a runner writes its report to, outside
// the workspace, and the function that removes it.
func tempReport(pattern string) (string, func(), error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return "", nil, fmt.Errorf("creating the report file: %v", err)
	}
	name := f.Name()
	f.Close()
	return name, func() { os.Remove(name) }, nil
}

func pathDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return "."
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// reproduceLine is the command a person pastes into a POSIX shell at the
// workspace root; every argument is single-quoted when it needs to be.
func reproduceLine(dir string, argv []string) string {
	var b strings.Builder
	var kept []string
	for _, a := range argv {
		// Our temp report file, not the user's: the reproduced run prints
		// its usual output.
		if !strings.HasPrefix(a, "--junitxml=") && !strings.HasPrefix(a, "--outputFile=") && a != "--reporter=json" && a != "--json" {
			kept = append(kept, a)
		}
	}
	argv = kept
	if dir != "." {
		b.WriteString("cd " + shellQuote(dir) + " && ")
	}
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(shellQuote(a))
	}
	return b.String()
}

var shellSafe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`) })

func shellQuote(s string) string {
	if shellSafe().MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func tailText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
		s = s[i+1:]
	}
	return "…\n" + s
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// renderReport is the text the model reads: short, failures first-class.
func renderReport(rep TestReport) string {
	var b strings.Builder
	listed := 0
	for _, run := range rep.Runs {
		fmt.Fprintf(&b, "%s tests in %s: %d passed, %d failed", run.Framework, run.Dir, run.Passed, run.Failed)
		if run.Skipped > 0 {
			fmt.Fprintf(&b, ", %d skipped", run.Skipped)
		}
		fmt.Fprintf(&b, " (%.1fs)\n", run.Seconds)
		for _, f := range run.Failures {
			if listed == maxFailuresListed {
				fmt.Fprintf(&b, "… %d more failing tests (see structuredContent)\n", run.Failed-listed)
				break
			}
			listed++
			b.WriteString("FAIL " + f.Name)
			if f.Package != "" {
				b.WriteString(" (" + f.Package + ")")
			}
			if f.File != "" {
				fmt.Fprintf(&b, " at %s:%d", f.File, f.Line)
			}
			b.WriteByte('\n')
			if f.Message != "" {
				b.WriteString("  " + strings.ReplaceAll(f.Message, "\n", "\n  ") + "\n")
			}
			if f.Excerpt != "" && f.Excerpt != f.Message {
				b.WriteString("  output:\n    " + strings.ReplaceAll(strings.TrimRight(f.Excerpt, "\n"), "\n", "\n    ") + "\n")
			}
		}
		if run.Problem != "" {
			b.WriteString("problem: " + run.Problem + "\n")
			if run.LogTail != "" {
				b.WriteString("  log tail:\n    " + strings.ReplaceAll(strings.TrimRight(run.LogTail, "\n"), "\n", "\n    ") + "\n")
			}
		}
		if run.Reproduce != "" {
			b.WriteString("reproduce: " + run.Reproduce + "\n")
		}
	}
	return clip(b.String(), maxResultText)
}

// tailParser is the fallback for output ahpls does not understand: no
// counts, just the log tail (runTestProject adds it on failure).
type tailParser struct {
	mu    sync.Mutex
	lines int
}

func newTailParser() *tailParser { return &tailParser{} }

func (t *tailParser) Feed(b []byte) {
	t.mu.Lock()
	t.lines += bytes.Count(b, []byte{'\n'})
	t.mu.Unlock()
}

func (t *tailParser) Status() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return fmt.Sprintf("running, %d lines of output", t.lines)
}

func (t *tailParser) Finish(*TestRun) {}
