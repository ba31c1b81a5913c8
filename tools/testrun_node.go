package tools

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// tapParser reads the TAP stream of node's test runner
// (--test-reporter=tap): "ok"/"not ok" lines at any nesting depth, the
// YAML diagnostics block after each (location, error, stack), and the
// final "# pass N" / "# fail N" / "# skipped N" totals.
type tapParser struct {
	mu       sync.Mutex
	proj     TestProject
	absDir   string
	ls       lineSplitter
	passed   int
	failed   int
	skipped  int
	totals   map[string]int
	failures []TestFailure
	// The YAML block of the last "not ok" line being read.
	cur       *TestFailure
	curIndent int
	inYAML    bool
	yamlKey   string
	yaml      map[string][]string
	last      string // last test name seen
}

func newTAPParser(p TestProject, absDir string) *tapParser {
	t := &tapParser{proj: p, absDir: absDir, totals: map[string]int{}}
	t.ls.fn = t.line
	return t
}

var (
	tapResult = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\s*)(ok|not ok) \d+ - (.*?)(?: # (SKIP|TODO).*)?$`)
	})
	tapTotal = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^# (tests|pass|fail|skipped|todo|cancelled) (\d+)$`) })
	jsLoc    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:file://)?(/[^\s():]+):(\d+):(\d+)`) })
)

func (t *tapParser) Feed(b []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ls.Write(b)
}

func (t *tapParser) line(l []byte) {
	s := strings.TrimRight(string(l), "\r")
	if t.inYAML {
		trim := strings.TrimSpace(s)
		if trim == "..." {
			t.inYAML = false
			t.endYAML()
			return
		}
		ind := len(s) - len(strings.TrimLeft(s, " "))
		if k, v, ok := strings.Cut(trim, ": "); ok && ind <= t.curIndent+2 && !strings.ContainsAny(k, " '\"") {
			t.yamlKey = k
			if v != "|-" && v != "|" && v != ">-" {
				t.yaml[k] = append(t.yaml[k], strings.Trim(v, `'"`))
			}
			return
		}
		if t.yamlKey != "" && len(t.yaml[t.yamlKey]) < 40 {
			t.yaml[t.yamlKey] = append(t.yaml[t.yamlKey], trim)
		}
		return
	}
	if m := tapResult().FindStringSubmatch(s); m != nil {
		t.last = m[3]
		switch {
		case m[4] != "":
			t.skipped++
		case m[2] == "ok":
			t.passed++
		default:
			t.failed++
			t.cur = &TestFailure{Name: unescapeTAP(m[3])}
			t.curIndent = len(m[1])
		}
		return
	}
	if strings.TrimSpace(s) == "---" && t.cur != nil {
		t.inYAML, t.yamlKey, t.yaml = true, "", map[string][]string{}
		return
	}
	if m := tapTotal().FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[2])
		t.totals[m[1]] = n
	}
}

func unescapeTAP(s string) string {
	return strings.NewReplacer(`\#`, "#", `\\`, `\`).Replace(s)
}

// endYAML finishes the failure whose block just ended.
func (t *tapParser) endYAML() {
	f := t.cur
	t.cur = nil
	if f == nil {
		return
	}
	if ft := strings.Join(t.yaml["failureType"], ""); ft == "subtestsFailed" {
		t.failed-- // the parent of a failing test: counted and listed as the leaf
		return
	}
	f.Message = clip(strings.TrimSpace(strings.Join(t.yaml["error"], "\n")), maxMessageBytes)
	if loc := strings.Join(t.yaml["location"], ""); loc != "" {
		if m := jsLoc().FindStringSubmatch(loc); m != nil {
			f.File = t.rel(m[1])
			f.Line, _ = strconv.Atoi(m[2])
		}
	}
	// The assertion's own line: the first stack frame in the test's file.
	for _, fr := range t.yaml["stack"] {
		if m := jsLoc().FindStringSubmatch(fr); m != nil && (f.File == "" || t.rel(m[1]) == f.File) {
			f.File = t.rel(m[1])
			f.Line, _ = strconv.Atoi(m[2])
			break
		}
	}
	var ex []string
	for _, k := range []string{"expected", "actual", "operator", "code"} {
		if v := t.yaml[k]; len(v) > 0 {
			ex = append(ex, k+": "+strings.Join(v, " "))
		}
	}
	f.Excerpt = clip(strings.Join(ex, "\n"), maxExcerptBytes)
	t.failures = append(t.failures, *f)
}

func (t *tapParser) rel(abs string) string {
	if r, err := filepath.Rel(t.absDir, abs); err == nil && !strings.HasPrefix(r, "..") {
		return pathJoinRel(t.proj.Dir, filepath.ToSlash(r))
	}
	return abs
}

func (t *tapParser) Status() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := fmt.Sprintf("%d passed, %d failed", t.passed, t.failed)
	if t.last != "" {
		s += ", last " + clip(t.last, 80)
	}
	return s
}

func (t *tapParser) Finish(run *TestRun) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ls.Flush()
	if t.inYAML {
		t.endYAML()
	}
	run.Passed, run.Failed, run.Skipped = t.passed, t.failed, t.skipped
	if n, ok := t.totals["pass"]; ok {
		run.Passed = n
	}
	if n, ok := t.totals["skipped"]; ok {
		run.Skipped = n
	}
	run.Failures = t.failures
	run.Failed = max(run.Failed, len(t.failures))
}

// pytestParser counts pytest's -q progress characters while it runs and
// reads the JUnit XML report it wrote to a temp file at the end.
type pytestParser struct {
	mu      sync.Mutex
	proj    TestProject
	xmlPath string
	ls      lineSplitter
	passed  int
	failed  int
	skipped int
}

func newPytestParser(p TestProject, xmlPath string) *pytestParser {
	t := &pytestParser{proj: p, xmlPath: xmlPath}
	t.ls.fn = t.line
	return t
}

var pytestProgress = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([.FEsxX]+)\s*(\[\s*\d+%\])?$`) })

func (t *pytestParser) Feed(b []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ls.Write(b)
}

func (t *pytestParser) line(l []byte) {
	if m := pytestProgress().FindSubmatch(l); m != nil {
		for _, c := range m[1] {
			switch c {
			case '.':
				t.passed++
			case 'F', 'E':
				t.failed++
			default:
				t.skipped++
			}
		}
	}
}

func (t *pytestParser) Status() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return fmt.Sprintf("%d passed, %d failed", t.passed, t.failed)
}

type junitCase struct {
	Classname string `xml:"classname,attr"`
	Name      string `xml:"name,attr"`
	File      string `xml:"file,attr"`
	Line      string `xml:"line,attr"`
	Failure   *struct {
		Message string `xml:"message,attr"`
		Body    string `xml:",chardata"`
	} `xml:"failure"`
	Error *struct {
		Message string `xml:"message,attr"`
		Body    string `xml:",chardata"`
	} `xml:"error"`
	Skipped *struct{} `xml:"skipped"`
}

var pyFileLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^([^\s:]+\.py):(\d+): (.*)$`) })

func (t *pytestParser) Finish(run *TestRun) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ls.Flush()
	run.Passed, run.Failed, run.Skipped = t.passed, t.failed, t.skipped
	data := readSmall(t.xmlPath, 16<<20)
	if len(data) == 0 {
		return
	}
	var doc struct {
		Cases  []junitCase `xml:"testsuite>testcase"`
		Direct []junitCase `xml:"testcase"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		return
	}
	cases := append(doc.Cases, doc.Direct...)
	run.Passed, run.Failed, run.Skipped = 0, 0, 0
	for _, c := range cases {
		fail := c.Failure
		if fail == nil {
			fail = c.Error
		}
		switch {
		case fail != nil:
			run.Failed++
		case c.Skipped != nil:
			run.Skipped++
			continue
		default:
			run.Passed++
			continue
		}
		f := TestFailure{Name: pytestID(c)}
		f.Message = clip(strings.TrimSpace(fail.Message), maxMessageBytes)
		if c.File != "" {
			f.File = pathJoinRel(t.proj.Dir, filepath.ToSlash(c.File))
			if n, err := strconv.Atoi(c.Line); err == nil {
				f.Line = n + 1 // xunit1 line attributes are 0-based
			}
		}
		// The failing line: the last "file.py:N: Error" of the report.
		if ms := pyFileLine().FindAllStringSubmatch(fail.Body, -1); len(ms) > 0 {
			m := ms[len(ms)-1]
			f.File = pathJoinRel(t.proj.Dir, filepath.ToSlash(m[1]))
			f.Line, _ = strconv.Atoi(m[2])
		}
		var ex []string
		for _, l := range strings.Split(fail.Body, "\n") {
			if strings.HasPrefix(l, ">") || strings.HasPrefix(l, "E ") {
				ex = append(ex, l)
			}
		}
		f.Excerpt = clip(strings.Join(ex, "\n"), maxExcerptBytes)
		run.Failures = append(run.Failures, f)
	}
	_ = os.Remove(t.xmlPath)
}

// pytestID is the node id pytest accepts back on its command line
// (file::Class::test), used by failedOnly.
func pytestID(c junitCase) string {
	if c.File == "" {
		return c.Name
	}
	mod := strings.TrimSuffix(filepath.ToSlash(c.File), ".py")
	mod = strings.ReplaceAll(mod, "/", ".")
	id := filepath.ToSlash(c.File)
	if rest, ok := strings.CutPrefix(c.Classname, mod+"."); ok && rest != "" {
		id += "::" + strings.ReplaceAll(rest, ".", "::")
	}
	return id + "::" + c.Name
}
