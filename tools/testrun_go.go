package tools

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// goParser reads `go test -json` events (cmd/test2json): counts every test
// and subtest that passes, fails or is skipped, keeps the output of running
// tests (bounded) and turns each failing leaf test into a TestFailure whose
// location and message come from the first "file.go:N: message" line of its
// output, or from the first stack frame in the module for a panic.
type goParser struct {
	mu      sync.Mutex
	proj    TestProject
	absDir  string
	ls      lineSplitter
	passed  int
	failed  int
	skipped int
	running []string // packages started and not finished, in start order
	// started counts tests and subtests that began ("run"); current is the
	// last one begun and not yet finished ("" when none).
	started  int
	current  string
	out      map[string]*boundedLines
	pkgOut   map[string]*boundedLines
	failures []TestFailure
	problems []string
	other    boundedLines // non-JSON lines (go's own errors)
}

func newGoParser(p TestProject) *goParser {
	g := &goParser{proj: p, out: map[string]*boundedLines{}, pkgOut: map[string]*boundedLines{}}
	g.ls.fn = g.line
	return g
}

// boundedLines keeps the first lines of a stream up to a byte budget.
type boundedLines struct {
	lines   []string
	bytes   int
	dropped int
}

const perTestOutput = 8 << 10

func (b *boundedLines) add(s string) {
	if b.bytes+len(s) > perTestOutput {
		b.dropped++
		return
	}
	b.lines = append(b.lines, s)
	b.bytes += len(s)
}

type goEvent struct {
	Action     string
	Package    string
	ImportPath string
	Test       string
	Output     string
}

func (g *goParser) Feed(b []byte) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ls.Write(b)
}

func (g *goParser) line(l []byte) {
	if len(l) == 0 || l[0] != '{' {
		g.other.add(string(l))
		return
	}
	var e goEvent
	if json.Unmarshal(l, &e) != nil {
		g.other.add(string(l))
		return
	}
	if e.Package == "" {
		e.Package = e.ImportPath
	}
	key := e.Package + "\x00" + e.Test
	switch e.Action {
	case "start":
		g.running = append(g.running, e.Package)
	case "run":
		if e.Test != "" {
			g.started++
			g.current = e.Package + "/" + e.Test
		}
	case "output", "build-output":
		line := strings.TrimRight(e.Output, "\n")
		if e.Test != "" {
			if b := g.out[key]; b != nil {
				b.add(line)
			} else {
				b = &boundedLines{}
				b.add(line)
				g.out[key] = b
			}
		} else {
			b := g.pkgOut[e.Package]
			if b == nil {
				b = &boundedLines{}
				g.pkgOut[e.Package] = b
			}
			b.add(line)
		}
	case "pass", "skip", "fail":
		if e.Test == "" {
			g.packageDone(e)
			return
		}
		switch e.Action {
		case "pass":
			g.passed++
		case "skip":
			g.skipped++
		case "fail":
			g.failed++
			g.testFailed(e)
		}
		delete(g.out, key)
		if g.current == e.Package+"/"+e.Test {
			g.current = ""
		}
	case "build-fail":
		g.packageDone(goEvent{Action: "fail", Package: e.Package})
	}
}

func (g *goParser) packageDone(e goEvent) {
	for i, p := range g.running {
		if p == e.Package {
			g.running = append(g.running[:i], g.running[i+1:]...)
			break
		}
	}
	out := g.pkgOut[e.Package]
	delete(g.pkgOut, e.Package)
	if e.Action != "fail" {
		return
	}
	for _, f := range g.failures {
		if f.Package == e.Package {
			return // explained by its failing tests
		}
	}
	// A package that failed without a failing test: a build error, a
	// panic in init or TestMain, a timeout.
	var lines []string
	if out != nil {
		for _, l := range out.lines {
			if l == "FAIL" || strings.HasPrefix(l, "FAIL\t") || strings.HasPrefix(l, "ok  \t") {
				continue
			}
			lines = append(lines, l)
		}
	}
	msg := clip(strings.Join(lines, "\n"), maxExcerptBytes)
	if msg == "" {
		msg = "failed without a failing test"
	}
	g.problems = append(g.problems, e.Package+": "+msg)
}

var (
	goFileLine  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s+([\w./\\-]+\.go):(\d+): ?(.*)$`) })
	goStackLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s+(/\S+\.go):(\d+)(?: \+0x[0-9a-f]+)?$`) })
)

func (g *goParser) testFailed(e goEvent) {
	// A parent fails because a subtest failed: report only the leaf.
	for _, f := range g.failures {
		if f.Package == e.Package && strings.HasPrefix(f.Name, e.Test+"/") {
			return
		}
	}
	f := TestFailure{Name: e.Test, Package: e.Package}
	var excerpt []string
	if b := g.out[e.Package+"\x00"+e.Test]; b != nil {
		inMsg, panicked := false, false
		var msgIndent int
		for _, l := range b.lines {
			t := strings.TrimSpace(l)
			if strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- FAIL") || strings.HasPrefix(t, "--- PASS") || strings.HasPrefix(t, "--- SKIP") {
				inMsg = false
				continue
			}
			excerpt = append(excerpt, strings.TrimLeft(l, " "))
			// The last "file.go:N:" line wins: t.Log lines come before
			// the t.Error/t.Fatal that made the test fail.
			if m := goFileLine().FindStringSubmatch(l); m != nil && !panicked {
				f.File = g.relFile(e.Package, m[1])
				f.Line, _ = strconv.Atoi(m[2])
				f.Message = m[3]
				inMsg, msgIndent = true, len(l)-len(strings.TrimLeft(l, " "))
				continue
			}
			if inMsg {
				if ind := len(l) - len(strings.TrimLeft(l, " ")); ind > msgIndent && !goFileLine().MatchString(l) {
					f.Message += "\n" + strings.TrimSpace(l)
					continue
				}
				inMsg = false
			}
			if strings.HasPrefix(t, "panic: ") {
				f.Message, f.File, f.Line = t, "", 0 // the stack below locates it
				panicked = true
			}
			if m := goStackLine().FindStringSubmatch(l); m != nil && panicked && f.File == "" && g.absDir != "" && strings.HasPrefix(m[1], g.absDir+"/") {
				f.File = pathJoinRel(g.proj.Dir, strings.TrimPrefix(m[1], g.absDir+"/"))
				f.Line, _ = strconv.Atoi(m[2])
			}
		}
		if b.dropped > 0 {
			excerpt = append(excerpt, fmt.Sprintf("… %d more lines", b.dropped))
		}
	}
	f.Message = clip(f.Message, maxMessageBytes)
	f.Excerpt = clip(strings.Join(excerpt, "\n"), maxExcerptBytes)
	if f.Excerpt == f.Message || strings.TrimSpace(f.Excerpt) == "" || len(excerpt) <= 1 {
		f.Excerpt = ""
	}
	g.failures = append(g.failures, f)
}

// relFile maps a file name printed by a test (relative to its package
// directory) to a workspace-relative path.
func (g *goParser) relFile(pkg, file string) string {
	sub := ""
	if pkg != g.proj.Module {
		if rest, ok := strings.CutPrefix(pkg, g.proj.Module+"/"); ok {
			sub = rest
		} else {
			return file // outside the module: leave it as printed
		}
	}
	p := g.proj.Dir
	if sub != "" {
		p = pathJoinRel(p, sub)
	}
	return pathJoinRel(p, file)
}

func (g *goParser) Status() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := fmt.Sprintf("%d passed, %d failed", g.passed, g.failed)
	if g.skipped > 0 {
		s += fmt.Sprintf(", %d skipped", g.skipped)
	}
	if n := len(g.running); n > 0 {
		s += ", running " + g.running[n-1]
	}
	return s
}

// Step is "N of M tests, current package/Test": N finished, M begun so far
// (go test -json announces no total before the tests run, so M grows as
// they start).
func (g *goParser) Step() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := fmt.Sprintf("%d of %d tests", g.passed+g.failed+g.skipped, g.started)
	if g.current != "" {
		s += ", current " + g.current
	}
	return s
}

func (g *goParser) Finish(run *TestRun) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ls.Flush()
	run.Passed, run.Failed, run.Skipped = g.passed, g.failed-g.parentsOfFailures(), g.skipped
	run.Failures = g.failures
	probs := g.problems
	if len(g.other.lines) > 0 && run.Failed == 0 && len(probs) == 0 {
		probs = append(probs, clip(strings.Join(g.other.lines, "\n"), maxExcerptBytes))
	}
	if len(probs) > 0 {
		run.Problem = clip(strings.Join(probs, "\n"), 2*maxExcerptBytes)
	}
}

// parentsOfFailures counts failed tests that failed only because a subtest
// did: Failed counts leaves, as the failure list does.
func (g *goParser) parentsOfFailures() int {
	return g.failed - len(g.failures)
}
