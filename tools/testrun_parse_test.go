package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goEvents renders test2json events, one per line.
func goEvents(t *testing.T, evs ...map[string]string) []byte {
	var b strings.Builder
	for _, e := range evs {
		j, err := json.Marshal(e)
		require.NoError(t, err)
		b.Write(j)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

func ev(action, pkg, test, output string) map[string]string {
	m := map[string]string{"Action": action, "Package": pkg}
	if test != "" {
		m["Test"] = test
	}
	if output != "" {
		m["Output"] = output
	}
	return m
}

func TestGoParser(t *testing.T) {
	const pkg = "example.com/m/sub"
	data := goEvents(t,
		ev("start", pkg, "", ""),
		ev("run", pkg, "TestTable", ""),
		ev("run", pkg, "TestTable/big", ""),
		ev("output", pkg, "TestTable/big", "=== RUN   TestTable/big\n"),
		ev("output", pkg, "TestTable/big", "    x_test.go:9: log line\n"),
		ev("output", pkg, "TestTable/big", "    x_test.go:12: got 1\n"),
		ev("output", pkg, "TestTable/big", "        want 2\n"),
		ev("output", pkg, "TestTable/big", "--- FAIL: TestTable/big (0.00s)\n"),
		ev("fail", pkg, "TestTable/big", ""),
		ev("pass", pkg, "TestTable/small", ""),
		ev("fail", pkg, "TestTable", ""),
		ev("run", pkg, "TestPanic", ""),
		ev("output", pkg, "TestPanic", "panic: runtime error: index out of range [3] with length 1 [recovered]\n"),
		ev("output", pkg, "TestPanic", "goroutine 7 [running]:\n"),
		ev("output", pkg, "TestPanic", "\t/usr/local/go/src/testing/testing.go:1632 +0x1e5\n"),
		ev("output", pkg, "TestPanic", "\t/ws/mod/sub/x_test.go:20 +0x1d\n"),
		ev("fail", pkg, "TestPanic", ""),
		ev("skip", pkg, "TestSkip", ""),
		ev("fail", pkg, "", ""),
		ev("start", "example.com/m/broken", "", ""),
		ev("output", "example.com/m/broken", "", "# example.com/m/broken\n"),
		ev("output", "example.com/m/broken", "", "broken/b.go:3:1: syntax error: non-declaration statement outside function body\n"),
		ev("output", "example.com/m/broken", "", "FAIL\texample.com/m/broken [build failed]\n"),
		ev("fail", "example.com/m/broken", "", ""),
	)
	g := newGoParser(TestProject{Framework: FrameworkGo, Dir: "mod", Module: "example.com/m"})
	g.absDir = "/ws/mod"
	// Fed in awkward pieces: lines split across chunks.
	for i := 0; i < len(data); i += 7 {
		g.Feed(data[i:min(i+7, len(data))])
	}
	assert.Equal(t, "1 passed, 3 failed, 1 skipped", g.Status())
	var run TestRun
	g.Finish(&run)
	assert.Equal(t, 1, run.Passed)
	assert.Equal(t, 2, run.Failed, "leaves only: the parent TestTable is not counted")
	require.Len(t, run.Failures, 2)
	assert.Equal(t, TestFailure{Name: "TestTable/big", Package: pkg, File: "mod/sub/x_test.go", Line: 12, Message: "got 1\nwant 2",
		Excerpt: "x_test.go:9: log line\nx_test.go:12: got 1\nwant 2"}, run.Failures[0])
	p := run.Failures[1]
	assert.Equal(t, "TestPanic", p.Name)
	assert.Equal(t, "mod/sub/x_test.go", p.File)
	assert.Equal(t, 20, p.Line)
	assert.Equal(t, "panic: runtime error: index out of range [3] with length 1 [recovered]", p.Message)
	assert.Contains(t, run.Problem, "example.com/m/broken: # example.com/m/broken\nbroken/b.go:3:1: syntax error")
}

func TestReproduceLineQuotes(t *testing.T) {
	assert.Equal(t, `cd 'my dir' && go test '-run=^(A|B)$' './x y/...'`, reproduceLine("my dir", []string{"go", "test", "-run=^(A|B)$", "./x y/..."}))
	assert.Equal(t, `python3 -m pytest '-k=it'\''s'`, reproduceLine(".", []string{"python3", "-m", "pytest", "--junitxml=/tmp/x.xml", "-k=it's"}))
}

// libtest's output as Debian's cargo 1.65 / rustc 1.63 prints it (the
// panic message quoted before its location, over several lines) and as
// Rust 1.73 and later do (the location first, then the message), with an
// integration test binary and a doc-test.
func TestCargoParser(t *testing.T) {
	for _, tc := range []struct {
		name, panic string
	}{
		{"rustc 1.63", "thread 'tests::mul_square' panicked at 'assertion failed: `(left == right)`\n  left: `4`,\n right: `5`: two times two', src/lib.rs:16:9\n"},
		{"rustc 1.95", "\nthread 'tests::mul_square' (25643) panicked at src/lib.rs:16:9:\nassertion `left == right` failed: two times two\n  left: 4\n right: 5\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := "   Compiling calc v0.1.0 (/ws/rs)\n    Finished test [unoptimized + debuginfo] target(s) in 1.00s\n" +
				"     Running unittests src/lib.rs (target/debug/deps/calc-a593abc6507e5b07)\n\nrunning 3 tests\n" +
				"test tests::mul_small ... ok\ntest tests::slow ... ignored, takes a minute\ntest tests::mul_square ... FAILED\n\nfailures:\n\n" +
				"---- tests::mul_square stdout ----\n" + tc.panic +
				"note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\nfailures:\n    tests::mul_square\n\n" +
				"test result: FAILED. 1 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\n" +
				"error: test failed, to rerun pass `--lib`\n     Running tests/api.rs (target/debug/deps/api-0123)\n\nrunning 1 test\n" +
				"test api_works ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\n" +
				"   Doc-tests calc\n\nrunning 1 test\ntest src/lib.rs - mul (line 3) ... ok\n\n" +
				"error: 1 target failed:\n    `--lib`\n"
			c := newCargoParser(TestProject{Framework: FrameworkCargo, Dir: "rs"})
			data := []byte(out)
			for i := 0; i < len(data); i += 5 {
				c.Feed(data[i:min(i+5, len(data))])
			}
			assert.Equal(t, "5 of 5 tests, current doc-tests calc/src/lib.rs - mul (line 3)", c.Step())
			var run TestRun
			c.Finish(&run)
			assert.Equal(t, 3, run.Passed)
			assert.Equal(t, 1, run.Failed)
			assert.Equal(t, 1, run.Skipped)
			assert.Empty(t, run.Problem, "cargo's own 'error: test failed' lines are not a problem")
			require.Len(t, run.Failures, 1)
			f := run.Failures[0]
			assert.Equal(t, "tests::mul_square", f.Name)
			assert.Equal(t, "src/lib.rs", f.Package)
			assert.Equal(t, "rs/src/lib.rs", f.File)
			assert.Equal(t, 16, f.Line)
			assert.Contains(t, f.Message, "two times two")
			assert.Contains(t, f.Message, "right: ")
			assert.NotContains(t, f.Message, "note:")
		})
	}
}

func TestCargoParserCompileError(t *testing.T) {
	c := newCargoParser(TestProject{Framework: FrameworkCargo, Dir: "."})
	c.Feed([]byte("   Compiling calc v0.1.0 (/ws)\nerror[E0425]: cannot find function `undefined_fn` in this scope\n  --> src/lib.rs:20:15\n   |\n20 | fn broken() { undefined_fn() }\n   |               ^^^^^^^^^^^^ not found in this scope\n\n" +
		"For more information about this error, try `rustc --explain E0425`.\nerror: could not compile `calc` due to previous error\n"))
	var run TestRun
	c.Finish(&run)
	assert.Equal(t, "cannot find function `undefined_fn` in this scope at src/lib.rs:20\ncould not compile `calc` due to previous error", run.Problem)
}

func TestCargoArgv(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "crates", "a", "tests"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "crates", "a", "Cargo.toml"), []byte("[package]\n"), 0o644))
	for _, tc := range []struct {
		target, pattern string
		prev            []TestFailure
		want            []string
	}{
		{"", "", nil, []string{"cargo", "test", "--no-fail-fast"}},
		{"", "mul", nil, []string{"cargo", "test", "--no-fail-fast", "--", "mul"}},
		{"", "--nocapture", nil, []string{"cargo", "test", "--no-fail-fast", "--", "--", "--nocapture"}},
		{"tests/api.rs", "", nil, []string{"cargo", "test", "--no-fail-fast", "--test=api"}},
		{"crates/a", "", nil, []string{"cargo", "test", "--no-fail-fast", "--manifest-path=crates/a/Cargo.toml"}},
		{"crates/a/tests/it.rs", "", nil, []string{"cargo", "test", "--no-fail-fast", "--manifest-path=crates/a/Cargo.toml", "--test=it"}},
		{"", "", []TestFailure{{Name: "b::x"}, {Name: "a::y"}, {Name: "b::x"}}, []string{"cargo", "test", "--no-fail-fast", "--", "--exact", "--", "a::y", "b::x"}},
	} {
		assert.Equal(t, tc.want, cargoArgv(dir, tc.target, tc.pattern, tc.prev), "%+v", tc)
	}
}

// A Jest-shaped report: a failure located by the first stack frame in its
// file, a skipped test, and a file that failed to load (the run's
// problem).
func TestJSReportParser(t *testing.T) {
	report := filepath.Join(t.TempDir(), "r.json")
	require.NoError(t, os.WriteFile(report, []byte(`{"testResults":[
	 {"name":"/ws/web/test/a.test.js","status":"failed","message":"","assertionResults":[
	  {"ancestorTitles":["math"],"title":"adds","fullName":"math adds","status":"passed","failureMessages":[]},
	  {"ancestorTitles":["math"],"title":"later","fullName":"math later","status":"pending","failureMessages":[]},
	  {"ancestorTitles":["math"],"title":"mul","fullName":"math mul","status":"failed","location":{"line":7,"column":3},
	   "failureMessages":["Error: \u001b[2mexpect(\u001b[22mreceived).toBe(expected)\n\nExpected: 5\nReceived: 4\n    at Object.toBe (/ws/web/node_modules/x.js:1:1)\n    at Object.toBe (/ws/web/test/a.test.js:9:19)"]}]},
	 {"name":"/ws/web/test/b.test.js","status":"failed","message":"  ● Test suite failed to run\n\n    SyntaxError: Unexpected token (3:1)\n","assertionResults":[]}]}`), 0o644))
	j := newJSReportParser(TestProject{Framework: FrameworkJest, Dir: "web"}, "/ws/web", report)
	j.Feed([]byte("FAIL test/a.test.js\n  math\n    ✓ adds (1 ms)\nFAIL test/b.test.js\n"))
	assert.Equal(t, "2 test files done, last test/b.test.js", j.Step())
	var run TestRun
	j.Finish(&run)
	assert.Equal(t, 1, run.Passed)
	assert.Equal(t, 1, run.Failed)
	assert.Equal(t, 1, run.Skipped)
	assert.Equal(t, []TestFailure{{Name: "math mul", Package: "test/a.test.js", File: "web/test/a.test.js", Line: 9,
		Message: "expect(received).toBe(expected)\nExpected: 5\nReceived: 4"}}, run.Failures)
	assert.Equal(t, "web/test/b.test.js: SyntaxError: Unexpected token (3:1)", run.Problem)
	_, err := os.Stat(report)
	assert.True(t, os.IsNotExist(err), "the temp report is removed")
}

func TestNodeSetup(t *testing.T) {
	for _, tc := range []struct {
		pkg, framework string
		argv           []string
	}{
		{`{"scripts":{"test":"node --test test/"}}`, FrameworkNode, []string{"node", "--test", "test/"}},
		{`{"scripts":{"test":"jest --ci --watch"}}`, FrameworkJest, []string{"--ci"}},
		{`{"scripts":{"test":"vitest run --reporter=dot --config v.js"}}`, FrameworkVitest, []string{"--config", "v.js"}},
		{`{"scripts":{"test":"npx vitest"}}`, FrameworkVitest, nil},
		{`{"devDependencies":{"jest":"30"}}`, FrameworkJest, nil},
		{`{"scripts":{"test":"jest && echo done"},"devDependencies":{"jest":"30"}}`, FrameworkNode, []string{"npm", "test", "--silent"}},
		{`{"scripts":{"test":"echo \"Error: no test specified\" && exit 1"}}`, "", nil},
	} {
		fw, argv, ok := nodeSetup([]byte(tc.pkg))
		assert.Equal(t, tc.framework, fw, tc.pkg)
		assert.Equal(t, tc.framework != "", ok, tc.pkg)
		assert.Equal(t, tc.argv, argv, tc.pkg)
	}
}
