package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// cargoArgv maps the input to `cargo test` (libtest's human output; the
// JSON format needs a nightly toolchain). --no-fail-fast runs every test
// binary even when an earlier one failed. A pattern is libtest's substring
// filter; failedOnly passes the failing tests' names with --exact. A
// target that is a tests/NAME.rs file runs that integration test only, one
// inside a member package runs that package (--manifest-path).
func cargoArgv(dir, target, pattern string, prev []TestFailure) []string {
	argv := []string{"cargo", "test", "--no-fail-fast"}
	if target != "" {
		pkg, rest := cargoPackageOf(dir, target)
		if pkg != "" {
			argv = append(argv, "--manifest-path="+pkg+"/Cargo.toml")
		}
		if d, file, ok := strings.Cut(rest, "/"); ok && d == "tests" && !strings.Contains(file, "/") && strings.HasSuffix(file, ".rs") {
			argv = append(argv, "--test="+strings.TrimSuffix(file, ".rs"))
		}
	}
	var filters []string
	if len(prev) > 0 {
		filters = append(filters, "--exact")
		seen := map[string]bool{}
		for _, f := range prev {
			seen[f.Name] = true
		}
		names := sortedKeys(seen)
		// "--" ends libtest's options: a name cannot be read as one.
		filters = append(append(filters, "--"), names...)
	} else if pattern != "" {
		if strings.HasPrefix(pattern, "-") {
			filters = append(filters, "--")
		}
		filters = append(filters, pattern)
	}
	if len(filters) > 0 {
		argv = append(append(argv, "--"), filters...)
	}
	return argv
}

// cargoPackageOf splits a project-relative target into the folder of the
// nearest member package that holds it ("" for the project's own) and the
// rest of the path below that package.
func cargoPackageOf(dir, target string) (pkg, rest string) {
	parts := strings.Split(target, "/")
	for i := len(parts); i > 0; i-- {
		cand := strings.Join(parts[:i], "/")
		if st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(cand), "Cargo.toml")); err == nil && st.Mode().IsRegular() {
			return cand, strings.Join(parts[i:], "/")
		}
	}
	return "", target
}

// cargoParser reads libtest's human output as `cargo test` prints it:
// cargo's "Running <target> (<binary>)" and "Doc-tests <crate>" headers on
// stderr, "running N tests", one "test NAME ... ok|FAILED|ignored" line per
// test, then for each failure a "---- NAME stdout ----" section holding
// the panic: `thread 'NAME' panicked at FILE:L:C:` followed by the message
// (Rust 1.73 on), or `thread 'NAME' panicked at 'MESSAGE', FILE:L:C` with
// the message possibly spanning lines (Debian's 1.63). Compiler errors
// ("error[E0425]: …" then " --> FILE:L:C") become the run's problem.
type cargoParser struct {
	mu      sync.Mutex
	proj    TestProject
	ls      lineSplitter
	passed  int
	failed  int
	skipped int
	total   int    // sum of "running N tests" so far
	target  string // the test binary running now ("src/lib.rs", "tests/x.rs", "doc-tests")
	last    string // the last test that finished
	// The "---- NAME stdout ----" section being read.
	section  *TestFailure
	secLines []string
	failures []TestFailure
	// Compiler errors, each with its location.
	errs    []string
	errOpen bool
}

func newCargoParser(p TestProject) *cargoParser {
	c := &cargoParser{proj: p}
	c.ls.fn = c.line
	return c
}

var (
	cargoRunning   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s+Running (?:unittests )?(\S+)`) })
	cargoDocTests  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s+Doc-tests (\S+)`) })
	libtestCount   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^running (\d+) tests?$`) })
	libtestResult  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^test (.+?) \.\.\. (ok|FAILED|ignored(?:, .*)?)$`) })
	libtestSection = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^---- (.+?) std(?:out|err) ----$`) })
	// Rust 1.73 and later: the location ends the line, the message follows.
	panicNew = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^thread '(.*?)'(?: \(\d+\))? panicked at (.+?):(\d+):(\d+):$`)
	})
	// Before 1.73: the quoted message first, the location after it.
	panicOldStart = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^thread '(.*?)'(?: \(\d+\))? panicked at '(.*)$`) })
	panicOldEnd   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.*)', (\S+?):(\d+):(\d+)$`) })
	rustErr       = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^error(?:\[E\d+\])?: (.*)$`) })
	rustErrLoc    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*--> (\S+?):(\d+):(\d+)$`) })
)

func (c *cargoParser) Feed(b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ls.Write(b)
}

func (c *cargoParser) line(l []byte) {
	s := strings.TrimRight(string(l), "\r")
	if m := libtestSection().FindStringSubmatch(s); m != nil {
		c.endSection()
		c.section = &TestFailure{Name: m[1], Package: c.target}
		return
	}
	if c.section != nil {
		// The section ends at the "failures:" list that follows the
		// last one, or at the next section (handled above).
		if s == "failures:" || strings.HasPrefix(s, "test result: ") {
			c.endSection()
			return
		}
		if len(c.secLines) < 200 {
			c.secLines = append(c.secLines, s)
		}
		return
	}
	switch {
	case cargoRunning().MatchString(s):
		c.target = cargoRunning().FindStringSubmatch(s)[1]
		return
	case cargoDocTests().MatchString(s):
		c.target = "doc-tests " + cargoDocTests().FindStringSubmatch(s)[1]
		return
	}
	if m := libtestCount().FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		c.total += n
		return
	}
	if m := libtestResult().FindStringSubmatch(s); m != nil {
		switch {
		case m[2] == "ok":
			c.passed++
		case m[2] == "FAILED":
			c.failed++
		default:
			c.skipped++
		}
		c.last = m[1]
		return
	}
	if m := rustErr().FindStringSubmatch(s); m != nil {
		c.errOpen = false
		// cargo's own summary lines after failing tests are not errors.
		if strings.HasPrefix(m[1], "test failed") || strings.Contains(m[1], "target failed") || strings.Contains(m[1], "targets failed") || len(c.errs) >= 10 {
			return
		}
		c.errs = append(c.errs, m[1])
		c.errOpen = true
		return
	}
	if m := rustErrLoc().FindStringSubmatch(s); m != nil && c.errOpen {
		c.errs[len(c.errs)-1] += " at " + c.relFile(m[1]) + ":" + m[2]
		c.errOpen = false
	}
}

// endSection turns the panic in the section just read into a failure.
func (c *cargoParser) endSection() {
	f := c.section
	lines := c.secLines
	c.section, c.secLines = nil, nil
	if f == nil {
		return
	}
	var msg []string
	var excerpt []string
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := panicNew().FindStringSubmatch(l); m != nil && f.File == "" {
			f.File, f.Line = c.relFile(m[2]), atoi(m[3])
			for i++; i < len(lines) && !panicMessageEnd(lines[i]); i++ {
				msg = append(msg, lines[i])
			}
			break
		}
		if m := panicOldStart().FindStringSubmatch(l); m != nil && f.File == "" {
			rest := m[2]
			for j := i; j < len(lines); j++ {
				if j > i {
					rest = lines[j]
				}
				if e := panicOldEnd().FindStringSubmatch(rest); e != nil {
					msg = append(msg, e[1])
					f.File, f.Line = c.relFile(e[2]), atoi(e[3])
					break
				}
				msg = append(msg, rest)
			}
			if f.File == "" {
				msg = nil // no location followed: not a panic line after all
			}
			break
		}
		if strings.TrimSpace(l) != "" {
			excerpt = append(excerpt, l)
		}
	}
	f.Message = clip(strings.TrimSpace(strings.Join(msg, "\n")), maxMessageBytes)
	if len(excerpt) > 0 {
		f.Excerpt = clip(strings.Join(excerpt, "\n"), maxExcerptBytes)
	}
	c.failures = append(c.failures, *f)
}

// panicMessageEnd is the first line after a panic's message: the backtrace
// or its hint, or the blank line before the failures list.
func panicMessageEnd(l string) bool {
	return l == "" || strings.HasPrefix(l, "note: ") || strings.HasPrefix(l, "stack backtrace:")
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// relFile maps a path rustc printed (relative to the cargo workspace root,
// which is the project's folder) to a workspace-relative one; a path
// outside the project (the standard library, a dependency) is left as
// printed.
func (c *cargoParser) relFile(p string) string {
	p = filepath.ToSlash(p)
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "..") || filepath.IsAbs(p) {
		return p
	}
	return pathJoinRel(c.proj.Dir, strings.TrimPrefix(p, "./"))
}

func (c *cargoParser) Status() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := fmt.Sprintf("%d passed, %d failed", c.passed, c.failed)
	if c.skipped > 0 {
		s += fmt.Sprintf(", %d ignored", c.skipped)
	}
	if c.target != "" {
		s += ", running " + c.target
	}
	return s
}

// Step is "N of M tests, current target/test": M is the sum of the counts
// libtest announced for the binaries started so far.
func (c *cargoParser) Step() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := fmt.Sprintf("%d of %d tests", c.passed+c.failed+c.skipped, c.total)
	if c.target != "" {
		s += ", current " + c.target
		if c.last != "" {
			s += "/" + clip(c.last, 80)
		}
	}
	return s
}

func (c *cargoParser) Finish(run *TestRun) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ls.Flush()
	c.endSection()
	run.Passed, run.Failed, run.Skipped = c.passed, c.failed, c.skipped
	run.Failures = c.failures
	run.Failed = max(run.Failed, len(c.failures))
	if len(c.errs) > 0 && run.Failed == 0 {
		run.Problem = clip(strings.Join(c.errs, "\n"), 2*maxExcerptBytes)
	}
}
