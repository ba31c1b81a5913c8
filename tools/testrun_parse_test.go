package tools

import (
	"encoding/json"
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
