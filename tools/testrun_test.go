package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// copyTree copies a fixture directory so a test may edit it.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	require.NoError(t, err)
	return dst
}

// needTool skips visibly when a framework's toolchain is missing from the
// PATH the tools run with (testEnviron).
func needTool(t *testing.T, name string, args ...string) {
	t.Helper()
	prog, err := resolveProgram("/", name, testEnviron())
	if err != nil {
		t.Skipf("SKIP: %s is not installed on this machine; the %s runner is not exercised", name, name)
	}
	if len(args) > 0 {
		cmd := exec.Command(prog, args...)
		cmd.Env = testEnviron()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("SKIP: `%s %s` failed (%v): %s", name, strings.Join(args, " "), err, out)
		}
	}
}

func testRegistry(t *testing.T, root string, trusted bool) *Registry {
	t.Helper()
	r, err := NewRegistry(Options{Root: root, Trusted: trusted, Environ: testEnviron()})
	require.NoError(t, err)
	return r
}

func report(t *testing.T, res Result) TestReport {
	t.Helper()
	rep, ok := res.Structured.(TestReport)
	require.True(t, ok, "structured content: %#v\noutput:\n%s", res.Structured, res.Output)
	return rep
}

func toolNames(r *Registry) []string {
	defs, _ := r.Resolve(nil)
	var out []string
	for _, d := range defs {
		out = append(out, d.Name)
	}
	return out
}

func TestDetectTestProjects(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	write("go.mod", "module example.com/mono\n")
	write("Makefile", "test:\n\tgo test ./...\n") // the root is a Go project: no fallback
	write("web/package.json", `{"scripts":{"test":"node --test"}}`)
	write("web/node_modules/x/package.json", `{"scripts":{"test":"node --test"}}`)
	write("jest/package.json", `{"scripts":{"test":"jest --ci"}}`)
	write("vite/package.json", `{"scripts":{"test":"npx vitest run --config vitest.config.js"}}`)
	write("vite2/package.json", `{"devDependencies":{"vitest":"4.1.12"}}`)
	write("mocha/package.json", `{"scripts":{"test":"mocha"},"devDependencies":{"mocha":"1"}}`)
	write("rs/Cargo.toml", "[package]\nname = \"rs\"\n")
	write("rs/Makefile", "test:\n\tcargo test\n") // a Rust project: no fallback
	write("ws/Cargo.toml", "[workspace]\nmembers = [\"crates/a\"]\n")
	write("ws/crates/a/Cargo.toml", "[package]\nname = \"a\"\n") // run by its workspace
	write("none/package.json", `{"scripts":{"test":"echo \"Error: no test specified\" && exit 1"}}`)
	write("py/test_x.py", "def test_x(): pass\n")
	write("tools/gen/go.mod", "module example.com/gen\n")
	write("docs/Makefile", "all:\n\ttrue\ntest:\n\ttrue\n")
	write(".hidden/go.mod", "module hidden\n")
	write("a/b/c/d/go.mod", "module example.com/deep\n")     // 4 folders down: the deepest listed
	write("a/b/c/d/e/go.mod", "module example.com/deeper\n") // 5: below the depth limit
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "go.mod"), []byte("module example.com/outside\n"), 0o644))
	if err := os.Symlink(outside, filepath.Join(root, "linked")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	got := DetectTestProjects(root)
	var list []string
	for _, p := range got {
		list = append(list, p.Framework+" "+p.Dir+" "+strings.Join(p.Argv, " "))
	}
	assert.ElementsMatch(t, []string{
		"go . ", "go a/b/c/d ", "node web node --test", "jest jest --ci", "vitest vite --config vitest.config.js", "vitest vite2 ",
		"node mocha npm test --silent", "cargo rs ", "cargo ws ", "pytest py ", "go tools/gen ", "make docs ",
	}, list)
}

// Offered only in a trusted workspace where something was detected; the
// workspace config may replace or turn it off.
func TestRunTestsIsOfferedOnlyWhenTrustedAndDetected(t *testing.T) {
	root := copyTree(t, "testdata/testrun/gomod")
	r := testRegistry(t, root, false)
	assert.NotContains(t, toolNames(r), "ahpls_run_tests", "untrusted workspace")
	res := r.Run(context.Background(), "ahpls_run_tests", nil, nil)
	assert.Equal(t, CodeUnknownTool, res.ErrorCode)

	r.SetTrusted(true)
	assert.Contains(t, toolNames(r), "ahpls_run_tests")

	assert.Empty(t, r.SetWorkspaceConfig([]byte(`{"runTests":false}`)))
	assert.NotContains(t, toolNames(r), "ahpls_run_tests", "turned off by tools.json")

	r.SetWorkspaceConfig([]byte(`{"tools":[{"name":"run_tests","command":{"argv":["true"]}}]}`))
	defs, coll := r.Resolve(nil)
	assert.Empty(t, coll)
	for _, d := range defs {
		if d.Name == "ahpls_run_tests" {
			assert.NotContains(t, d.Description, "Detected:", "the workspace's own run_tests replaces the built-in one")
		}
	}

	empty := testRegistry(t, t.TempDir(), true)
	assert.NotContains(t, toolNames(empty), "ahpls_run_tests", "nothing detected")
}

func TestRunTestsGo(t *testing.T) {
	needTool(t, "go")
	root := copyTree(t, "testdata/testrun/gomod")
	var diags map[string][]Diagnostic
	r, err := NewRegistry(Options{Root: root, Trusted: true, Environ: testEnviron(),
		OnTestDiagnostics: func(d map[string][]Diagnostic) { diags = d }})
	require.NoError(t, err)
	fileURI := (&url.URL{Scheme: "file", Path: filepath.Join(root, "calc_test.go")}).String()
	var mu sync.Mutex
	var updates []string
	res := r.Run(context.Background(), "ahpls_run_tests", nil, func(p Progress) {
		mu.Lock()
		updates = append(updates, p.Output)
		mu.Unlock()
	})
	t.Logf("result (%d bytes):\n%s", len(res.Output), res.Output)
	assert.False(t, res.Success)
	rep := report(t, res)
	require.Len(t, rep.Runs, 1)
	run := rep.Runs[0]
	assert.Equal(t, 1, run.Failed)
	assert.Equal(t, 5, run.Passed, "TestMulSmall, TestTable and its 2 subtests, TestSub: %+v", run)
	require.Len(t, run.Failures, 1)
	f := run.Failures[0]
	assert.Equal(t, "TestMul", f.Name)
	assert.Equal(t, "example.com/testrun", f.Package)
	assert.Equal(t, "calc_test.go", f.File)
	assert.Equal(t, 14, f.Line)
	assert.Equal(t, "Mul(2, 2) = 4, want 5", f.Message)
	assert.Contains(t, res.Output, "FAIL TestMul (example.com/testrun) at calc_test.go:14\n  Mul(2, 2) = 4, want 5")
	assert.Contains(t, res.Output, "reproduce: go test -json -count=1 ./...")
	mu.Lock()
	require.NotEmpty(t, updates)
	assert.Regexp(t, `^\d+ passed, \d+ failed`, updates[len(updates)-1])
	mu.Unlock()
	// The editor gets a diagnostic at the failing line.
	require.Len(t, diags[fileURI], 1, "%v", diags)
	assert.Equal(t, Diagnostic{URI: fileURI, Range: Range{Start: Position{Line: 13}, End: Position{Line: 14}}, Severity: "error",
		Message: "TestMul failed: Mul(2, 2) = 4, want 5", Source: "ahpls tests", Code: "TestMul"}, diags[fileURI][0])

	// failedOnly re-runs just TestMul in its package; fixing it clears it.
	res = r.Run(context.Background(), "ahpls_run_tests", []byte(`{"failedOnly":true}`), nil)
	rep = report(t, res)
	assert.Equal(t, []string{"go", "test", "-json", "-count=1", "-run=^(TestMul)$", "example.com/testrun"}, rep.Runs[0].Command)
	assert.Equal(t, 0, rep.Runs[0].Passed)
	assert.Equal(t, 1, rep.Runs[0].Failed)

	src, err := os.ReadFile(filepath.Join(root, "calc_test.go"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, "calc_test.go"), []byte(strings.Replace(string(src), "!= 5", "!= 4", 1)), 0o644))
	res = r.Run(context.Background(), "ahpls_run_tests", []byte(`{"failedOnly":true}`), nil)
	assert.True(t, res.Success, res.Output)
	assert.Empty(t, report(t, res).Runs[0].Failures)
	assert.Equal(t, map[string][]Diagnostic{fileURI: {}}, diags, "the fixed test's diagnostic is cleared")

	// pattern and path map to -run and a package pattern, each one argv element.
	res = r.Run(context.Background(), "ahpls_run_tests", []byte(`{"path":"sub","pattern":"TestSub|; rm -rf /"}`), nil)
	rep = report(t, res)
	assert.Equal(t, []string{"go", "test", "-json", "-count=1", "-run=TestSub|; rm -rf /", "./sub/..."}, rep.Runs[0].Command)
	assert.Contains(t, rep.Runs[0].Reproduce, `'-run=TestSub|; rm -rf /'`)

	res = r.Run(context.Background(), "ahpls_run_tests", []byte(`{"path":"../outside"}`), nil)
	assert.Equal(t, CodeOutside, res.ErrorCode)
}

// A build error is a failed run with the compiler's message, not "0 failed".
func TestRunTestsGoBuildError(t *testing.T) {
	needTool(t, "go")
	root := copyTree(t, "testdata/testrun/gomod")
	require.NoError(t, os.WriteFile(filepath.Join(root, "sub", "broken_test.go"), []byte("package sub\n\nfunc TestX(t *testing.T) { undefined() }\n"), 0o644))
	r := testRegistry(t, root, true)
	res := r.Run(context.Background(), "ahpls_run_tests", []byte(`{"path":"sub"}`), nil)
	assert.False(t, res.Success)
	run := report(t, res).Runs[0]
	assert.Contains(t, run.Problem, "undefined")
	t.Logf("%s", res.Output)
}

// 200 tests, one failing: progress is throttled and the result is small.
func TestRunTestsGo200(t *testing.T) {
	needTool(t, "go")
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/many\n\ngo 1.22\n"), 0o644))
	for p := range 4 {
		var b strings.Builder
		fmt.Fprintf(&b, "package p%d\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\n", p)
		for i := range 50 {
			fmt.Fprintf(&b, "func Test%d(t *testing.T) {\n\ttime.Sleep(5 * time.Millisecond)\n\tt.Log(\"step one\")\n", i)
			if p == 2 && i == 17 {
				b.WriteString("\tt.Errorf(\"value = %d, want %d\", 41, 42)\n")
			}
			b.WriteString("}\n\n")
		}
		dir := filepath.Join(root, fmt.Sprintf("p%d", p))
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "x_test.go"), []byte(b.String()), 0o644))
	}
	r := testRegistry(t, root, true)
	var times []time.Time
	res := r.Run(context.Background(), "ahpls_run_tests", nil, func(p Progress) { times = append(times, time.Now()) })
	rep := report(t, res)
	require.Len(t, rep.Runs, 1)
	assert.Equal(t, 199, rep.Passed)
	assert.Equal(t, 1, rep.Failed)
	require.Len(t, rep.Runs[0].Failures, 1)
	assert.Equal(t, "p2/x_test.go", rep.Runs[0].Failures[0].File)
	wire, err := json.Marshal(res.Wire())
	require.NoError(t, err)
	assert.Less(t, len(wire), 4096, "the whole wire result, text and structured content")
	// At most one update per progressInterval tick, plus the final one (a
	// slow machine only lowers the count, so this cannot fail by timing).
	assert.LessOrEqual(t, len(times), int(res.Duration/progressInterval)+2)
	rate := float64(len(times)) / res.Duration.Seconds()
	t.Logf("200 tests: %d progress updates in %s (%.1f/s); text result %d bytes, wire result %d bytes", len(times), res.Duration.Round(time.Millisecond), rate, len(res.Output), len(wire))
}

// A Go package of 200 tests that runs for at least 2 s (200 × 12 ms of
// sleep, one after the other) shows at least 5 progress updates, each with
// its "N of M tests, current package/test" step, and never more than 10 in
// any second (by the times the updates arrive: any 11 consecutive ones
// span at least a second).
func TestRunTestsProgressRate(t *testing.T) {
	needTool(t, "go")
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/many\n\ngo 1.22\n"), 0o644))
	var b strings.Builder
	b.WriteString("package many\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n")
	for i := range 200 {
		fmt.Fprintf(&b, "\nfunc TestCase%03d(t *testing.T) { time.Sleep(12 * time.Millisecond) }\n", i)
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "many_test.go"), []byte(b.String()), 0o644))
	r := testRegistry(t, root, true)
	var times []time.Time
	var steps []string
	res := r.Run(context.Background(), "ahpls_run_tests", nil, func(p Progress) {
		times = append(times, time.Now())
		steps = append(steps, p.Step)
	})
	require.True(t, res.Success, res.Output)
	assert.Equal(t, 200, report(t, res).Passed)
	withCount := 0
	for _, s := range steps {
		if regexp.MustCompile(`^\d+ of \d+ tests`).MatchString(s) {
			withCount++
		}
	}
	assert.GreaterOrEqual(t, withCount, 5, "progress updates with an N of M step: %q", steps)
	assert.Contains(t, strings.Join(steps, "\n"), ", current example.com/many/TestCase")
	assert.Equal(t, "200 of 200 tests", steps[len(steps)-1])
	maxIn1s := 0
	for i := range times {
		n := 0
		for j := i; j < len(times) && times[j].Sub(times[i]) < time.Second; j++ {
			n++
		}
		maxIn1s = max(maxIn1s, n)
	}
	assert.LessOrEqual(t, maxIn1s, 10, "updates within one second")
	t.Logf("200 tests in one package: %d progress updates (%d with a test count) over %s, at most %d within any second",
		len(times), withCount, res.Duration.Round(time.Millisecond), maxIn1s)
}

// runOnePassOneFail runs the detected tests of a copy of fixture, which
// holds one passing and one failing test, and checks the failure the
// result names (its message by substring).
func runOnePassOneFail(t *testing.T, fixture string, want TestFailure) (string, *Registry) {
	t.Helper()
	return runOnePassOneFailIn(t, copyTree(t, fixture), want)
}

// runOnePassOneFailIn is runOnePassOneFail on a prepared copy.
func runOnePassOneFailIn(t *testing.T, root string, want TestFailure) (string, *Registry) {
	t.Helper()
	r := testRegistry(t, root, true)
	res := r.Run(context.Background(), "ahpls_run_tests", nil, func(Progress) {})
	t.Logf("result:\n%s", res.Output)
	rep := report(t, res)
	require.Len(t, rep.Runs, 1)
	run := rep.Runs[0]
	assert.Equal(t, 1, run.Passed)
	assert.Equal(t, 1, run.Failed)
	require.Len(t, run.Failures, 1)
	f := run.Failures[0]
	assert.Equal(t, want.Name, f.Name)
	assert.Equal(t, want.File, f.File)
	assert.Equal(t, want.Line, f.Line)
	assert.Contains(t, f.Message, want.Message)
	return root, r
}

func TestRunTestsNode(t *testing.T) {
	needTool(t, "node", "--test", "--test-reporter=tap", "--help")
	root, r := runOnePassOneFail(t, "testdata/testrun/node", TestFailure{Name: "multiplies", File: "test/math.test.js", Line: 10, Message: "two times two"})

	res := r.Run(context.Background(), "ahpls_run_tests", []byte(`{"pattern":"adds"}`), nil)
	assert.True(t, res.Success, res.Output)
	assert.Contains(t, report(t, res).Runs[0].Command, "--test-name-pattern=adds")

	p := filepath.Join(root, "test", "math.test.js")
	src, _ := os.ReadFile(p)
	require.NoError(t, os.WriteFile(p, []byte(strings.Replace(string(src), "2 * 2, 5", "2 * 2, 4", 1)), 0o644))
	res = r.Run(context.Background(), "ahpls_run_tests", []byte(`{"failedOnly":true}`), nil)
	assert.True(t, res.Success, res.Output)
	assert.Empty(t, report(t, res).Runs[0].Failures)
}

func TestRunTestsPytest(t *testing.T) {
	needTool(t, "python3", "-m", "pytest", "--version")
	root, r := runOnePassOneFail(t, "testdata/testrun/python", TestFailure{Name: "test_calc.py::test_mul", File: "test_calc.py", Line: 10, Message: "assert 4 == 5"})

	p := filepath.Join(root, "test_calc.py")
	src, _ := os.ReadFile(p)
	require.NoError(t, os.WriteFile(p, []byte(strings.Replace(string(src), "== 5", "== 4", 1)), 0o644))
	res := r.Run(context.Background(), "ahpls_run_tests", []byte(`{"failedOnly":true}`), nil)
	assert.True(t, res.Success, res.Output)
}

func TestRunTestsMakeFallback(t *testing.T) {
	needTool(t, "make")
	r := testRegistry(t, copyTree(t, "testdata/testrun/make"), true)
	res := r.Run(context.Background(), "ahpls_run_tests", nil, nil)
	assert.False(t, res.Success)
	run := report(t, res).Runs[0]
	assert.Equal(t, "make", run.Framework)
	assert.Contains(t, run.LogTail, "1 check failed")
	assert.Equal(t, "make --no-print-directory test", run.Reproduce)
	res = r.Run(context.Background(), "ahpls_run_tests", []byte(`{"pattern":"x"}`), nil)
	assert.Equal(t, CodeInvalidInput, res.ErrorCode)
}

// Cancelling a run leaves no process behind.
func TestRunTestsCancel(t *testing.T) {
	needTool(t, "go")
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/slow\n\ngo 1.22\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "slow_test.go"), []byte("package slow\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestSlow(t *testing.T) { t.Log(\"started\"); time.Sleep(time.Hour) }\n"), 0o644))
	r := testRegistry(t, root, true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	res := r.Run(ctx, "ahpls_run_tests", nil, func(p Progress) {
		if strings.Contains(p.Output, "running example.com/slow") {
			once.Do(cancel)
		}
	})
	assert.True(t, res.Cancelled, res.Output)
	assert.Empty(t, children(t), "a child process is left")
	assert.Empty(t, strays(t, 0), "a descendant is left")
}

func TestRunTestsCargo(t *testing.T) {
	needTool(t, "cargo", "--version")
	root, r := runOnePassOneFail(t, "testdata/testrun/cargo", TestFailure{Name: "tests::mul_square", File: "src/lib.rs", Line: 16, Message: "two times two"})

	res := r.Run(context.Background(), "ahpls_run_tests", []byte(`{"pattern":"mul_small"}`), nil)
	assert.True(t, res.Success, res.Output)
	rep := report(t, res)
	assert.Equal(t, []string{"cargo", "test", "--no-fail-fast", "--", "mul_small"}, rep.Runs[0].Command)
	assert.Equal(t, 1, rep.Passed)

	p := filepath.Join(root, "src", "lib.rs")
	src, _ := os.ReadFile(p)
	require.NoError(t, os.WriteFile(p, []byte(strings.Replace(string(src), "mul(2, 2), 5", "mul(2, 2), 4", 1)), 0o644))
	res = r.Run(context.Background(), "ahpls_run_tests", []byte(`{"failedOnly":true}`), nil)
	assert.True(t, res.Success, res.Output)
	rep = report(t, res)
	assert.Equal(t, []string{"cargo", "test", "--no-fail-fast", "--", "--exact", "--", "tests::mul_square"}, rep.Runs[0].Command)
	assert.Equal(t, 1, rep.Passed)

	// A compile error is the run's problem, with its location.
	require.NoError(t, os.WriteFile(p, []byte(string(src)+"\nfn broken() { undefined_fn() }\n"), 0o644))
	res = r.Run(context.Background(), "ahpls_run_tests", nil, nil)
	assert.False(t, res.Success)
	run := report(t, res).Runs[0]
	assert.Contains(t, run.Problem, "undefined_fn")
	assert.Contains(t, run.Problem, "at src/lib.rs:20")
}

// jsFixture copies the jest or vitest fixture and links the node_modules
// that scripts/install-test-runners.sh installed into the CI cache (hard
// links where the file system allows, else copies), so the run needs no
// network. Without that install the test skips, saying so.
func jsFixture(t *testing.T, runner string) string {
	t.Helper()
	needTool(t, "node", "--version")
	cache := os.Getenv("AHPLS_CI_CACHE")
	if cache == "" {
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			base = filepath.Join(os.Getenv("HOME"), ".cache")
		}
		cache = filepath.Join(base, "ahpls-ci")
	}
	src := filepath.Join("testdata", "testrun", runner)
	dir := filepath.Join(cache, "testrun-"+runner)
	want, err := os.ReadFile(filepath.Join(src, "package-lock.json"))
	require.NoError(t, err)
	have, _ := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", runner, "package.json")); err != nil || string(have) != string(want) {
		t.Skipf("SKIP: %s is not installed in %s for this fixture (run scripts/install-test-runners.sh); the %s runner is not exercised", runner, dir, runner)
	}
	root := copyTree(t, src)
	linkTree(t, filepath.Join(dir, "node_modules"), filepath.Join(root, "node_modules"))
	return root
}

// linkTree recreates src at dst: folders made, symlinks copied as links,
// files hard-linked (or copied).
func linkTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		}
		if os.Link(p, to) == nil {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	require.NoError(t, err)
}

func TestRunTestsJest(t *testing.T) {
	root := jsFixture(t, "jest")
	testJSRunner(t, root, "jest", TestFailure{Name: "math multiplies", File: "test/math.test.js", Line: 9, Message: "Expected: 5\nReceived: 4"})
}

func TestRunTestsVitest(t *testing.T) {
	root := jsFixture(t, "vitest")
	testJSRunner(t, root, "vitest", TestFailure{Name: "math multiplies", File: "test/math.test.js", Line: 9, Message: "expected 4 to be 5"})
}

// testJSRunner: one pass and one fail with the failure's location and
// message, the editor diagnostic, a pattern, a path, and failedOnly after
// the fix.
func testJSRunner(t *testing.T, root, runner string, want TestFailure) {
	var diags map[string][]Diagnostic
	r, err := NewRegistry(Options{Root: root, Trusted: true, Environ: testEnviron(),
		OnTestDiagnostics: func(d map[string][]Diagnostic) { diags = d }})
	require.NoError(t, err)
	var steps []string
	res := r.Run(context.Background(), "ahpls_run_tests", nil, func(p Progress) { steps = append(steps, p.Step) })
	t.Logf("result:\n%s", res.Output)
	rep := report(t, res)
	require.Len(t, rep.Runs, 1)
	run := rep.Runs[0]
	assert.Equal(t, runner, run.Framework)
	assert.Equal(t, 1, run.Passed)
	assert.Equal(t, 1, run.Failed)
	require.Len(t, run.Failures, 1)
	f := run.Failures[0]
	assert.Equal(t, want.Name, f.Name)
	assert.Equal(t, want.File, f.File)
	assert.Equal(t, want.Line, f.Line)
	assert.Contains(t, f.Message, want.Message)
	assert.NotContains(t, f.Message, "    at ", "no stack in the message")
	assert.NotContains(t, run.Reproduce, "--outputFile", "the temp report is not part of the command to reproduce")
	require.NotEmpty(t, steps)
	want1 := map[string]string{"jest": "1 test file done", "vitest": "2 tests in 1 file done"}[runner]
	assert.Equal(t, want1+", last test/math.test.js", steps[len(steps)-1])
	fileURI := (&url.URL{Scheme: "file", Path: filepath.Join(root, "test", "math.test.js")}).String()
	require.Len(t, diags[fileURI], 1, "%v", diags)
	assert.Equal(t, 8, diags[fileURI][0].Range.Start.Line)

	res = r.Run(context.Background(), "ahpls_run_tests", []byte(`{"path":"test/math.test.js","pattern":"adds"}`), nil)
	assert.True(t, res.Success, res.Output)
	rep = report(t, res)
	assert.Contains(t, rep.Runs[0].Command, "--testNamePattern=adds")
	assert.Equal(t, 1, rep.Passed)

	p := filepath.Join(root, "test", "math.test.js")
	src, _ := os.ReadFile(p)
	require.NoError(t, os.WriteFile(p, []byte(strings.Replace(string(src), "toBe(5)", "toBe(4)", 1)), 0o644))
	res = r.Run(context.Background(), "ahpls_run_tests", []byte(`{"failedOnly":true}`), nil)
	assert.True(t, res.Success, res.Output)
	rep = report(t, res)
	assert.Contains(t, rep.Runs[0].Command, "--testNamePattern=^(math multiplies)$")
	assert.Equal(t, 1, rep.Passed)
	assert.Equal(t, map[string][]Diagnostic{fileURI: {}}, diags, "the fixed test's diagnostic is cleared")
}

// Without node_modules the run is refused up front, saying what to do.
func TestRunTestsJestNotInstalled(t *testing.T) {
	root := copyTree(t, "testdata/testrun/jest")
	r := testRegistry(t, root, true)
	res := r.Run(context.Background(), "ahpls_run_tests", nil, nil)
	assert.False(t, res.Success)
	assert.Contains(t, res.ErrorMessage, "node_modules/jest is missing; run npm install")
}
