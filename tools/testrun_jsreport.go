package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/wsfs"
)

// Jest and Vitest run through node with the runner's own entry script
// (node_modules/<runner>/package.json's "bin"), found in the project's
// node_modules or a parent's up to the workspace root, never through npm,
// npx or a shell. Both write a JSON report of the same shape (Vitest's
// json reporter follows Jest's) to a temp file; their usual reporter stays
// on the output for progress and the log tail.

// jsRunnerPackage is the npm package of each JSON-reporting runner.
var jsRunnerPackage = map[string]string{FrameworkJest: "jest", FrameworkVitest: "vitest"}

// nodeSetup reads package.json: which runner applies and the extra plain
// arguments of its test script. scripts.test decides when it names a runner
// ("node --test …", "jest …", "vitest run …", optionally behind npx);
// without a test script, a jest or vitest devDependency does; any other
// test script runs as `npm test`, reported as a tail only.
func nodeSetup(pkg []byte) (framework string, argv []string, ok bool) {
	var p struct {
		Scripts         map[string]string `json:"scripts"`
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	if json.Unmarshal(pkg, &p) != nil {
		return "", nil, false
	}
	script := strings.TrimSpace(p.Scripts["test"])
	dep := func(name string) bool { return p.DevDependencies[name] != "" || p.Dependencies[name] != "" }
	if script == "" || strings.Contains(script, "no test specified") {
		switch {
		case dep("vitest"):
			return FrameworkVitest, nil, true
		case dep("jest"):
			return FrameworkJest, nil, true
		}
		return "", nil, false
	}
	plain := !strings.ContainsAny(script, "$`|&;<>()'\"\\*?{}~")
	words := strings.Fields(script)
	if plain && len(words) >= 2 && words[0] == "node" && words[1] == "--test" {
		return FrameworkNode, words, true
	}
	if plain && words[0] == "npx" {
		words = words[1:]
	}
	if plain && len(words) > 0 {
		switch words[0] {
		case "jest":
			return FrameworkJest, jsExtraArgs(FrameworkJest, words[1:]), true
		case "vitest":
			return FrameworkVitest, jsExtraArgs(FrameworkVitest, words[1:]), true
		}
	}
	return FrameworkNode, []string{"npm", "test", "--silent"}, true
}

// jsExtraArgs keeps the script's own options (a config file, an
// environment) and drops what would make the run watch or report
// elsewhere, and Vitest's subcommand (the runner adds "run").
func jsExtraArgs(framework string, words []string) []string {
	var out []string
	for i, w := range words {
		if framework == FrameworkVitest && i == 0 && (w == "run" || w == "watch" || w == "dev") {
			continue
		}
		switch {
		case w == "--watch" || w == "--watchAll" || w == "--json" || w == "--ui",
			strings.HasPrefix(w, "--reporter") || strings.HasPrefix(w, "--outputFile") || strings.HasPrefix(w, "--watch="):
			continue
		}
		out = append(out, w)
	}
	return out
}

// jsRunnerEntry finds the runner's entry script for the project in dir
// (absolute, symlink-free): node_modules/<pkg> in dir or a parent folder
// up to the workspace root, confined to the workspace. It returns the path
// relative to dir, slash-separated, as node is given it.
func jsRunnerEntry(realRoot, dir, framework string) (string, error) {
	name := jsRunnerPackage[framework]
	rel, err := filepath.Rel(realRoot, dir)
	if err != nil {
		return "", err
	}
	rel = filepath.ToSlash(rel)
	for up := ""; ; {
		pkgDir := path.Join(rel, "node_modules", name)
		if data := readProject(wsfs.NewRoot(realRoot), path.Join(pkgDir, "package.json"), 1<<20); data != nil {
			bin := jsBin(data, name)
			if bin == "" {
				return "", fmt.Errorf("node_modules/%s/package.json names no program", name)
			}
			entry := path.Join(pkgDir, bin)
			if !strings.HasPrefix(entry, pkgDir+"/") {
				return "", fmt.Errorf("node_modules/%s names a program outside its package: %w", name, ErrOutsideWorkspace)
			}
			if _, err := resolveInside(realRoot, filepath.FromSlash(entry)); err != nil {
				return "", err
			}
			return path.Join(up, "node_modules", name, bin), nil
		}
		if rel == "." {
			return "", fmt.Errorf("%s is not installed in this project or a parent folder (node_modules/%s is missing; run npm install)", name, name)
		}
		rel, up = path.Dir(rel), path.Join(up, "..")
	}
}

// jsBin is the program of an npm package: "bin" as a string, or its entry
// named like the package.
func jsBin(pkg []byte, name string) string {
	var p struct {
		Bin json.RawMessage `json:"bin"`
	}
	if json.Unmarshal(pkg, &p) != nil || len(p.Bin) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(p.Bin, &s) == nil {
		return path.Clean(s)
	}
	var m map[string]string
	if json.Unmarshal(p.Bin, &m) == nil && m[name] != "" {
		return path.Clean(m[name])
	}
	return ""
}

// jsArgv maps the input to the runner's argv: the entry script, the
// script's extra options, the JSON report to reportPath, a name pattern
// (both runners' --testNamePattern is a regexp over the full name) and the
// files: a target narrows the run to a file or folder (Jest: a path
// regexp anchored at a "/", Vitest: a path filter), failedOnly to the
// failing tests' files and full names.
func jsArgv(framework, entry string, extra []string, reportPath, target, pattern string, prev []TestFailure) ([]string, error) {
	argv := append([]string{"node", entry}, extra...)
	switch framework {
	case FrameworkJest:
		argv = append(argv, "--ci", "--json", "--testLocationInResults", "--outputFile="+reportPath)
	case FrameworkVitest:
		argv = append(argv, "run", "--reporter=default", "--reporter=json", "--outputFile="+reportPath)
	}
	var files []string
	if len(prev) > 0 {
		names, fs := map[string]bool{}, map[string]bool{}
		for _, f := range prev {
			names[regexp.QuoteMeta(f.Name)] = true
			if f.Package != "" {
				fs[f.Package] = true
			}
		}
		pattern = "^(" + strings.Join(sortedKeys(names), "|") + ")$"
		files = sortedKeys(fs)
	} else if target != "" {
		files = []string{target}
	}
	if pattern != "" {
		argv = append(argv, "--testNamePattern="+pattern)
	}
	for _, f := range files {
		if strings.HasPrefix(f, "-") {
			return nil, fmt.Errorf("path %q starts with a dash, which %s would read as an option", f, framework)
		}
		switch framework {
		case FrameworkJest:
			// A regexp over the absolute path; the leading "/" keeps
			// "test" from matching "contest".
			re := "/" + regexp.QuoteMeta(f)
			if strings.HasSuffix(f, ".js") || strings.HasSuffix(f, ".ts") || strings.HasSuffix(f, ".mjs") || strings.HasSuffix(f, ".cjs") || strings.HasSuffix(f, ".jsx") || strings.HasSuffix(f, ".tsx") {
				re += "$"
			} else {
				re += "/"
			}
			argv = append(argv, re)
		case FrameworkVitest:
			argv = append(argv, "./"+f)
		}
	}
	return argv, nil
}

// jsReportParser reads the runner's usual output while it runs (a line
// per finished test file: Jest's "PASS file" / "FAIL file", Vitest's
// "✓ file (N tests)") and the JSON report at the end.
type jsReportParser struct {
	mu         sync.Mutex
	proj       TestProject
	absDir     string
	reportPath string
	ls         lineSplitter
	files      int    // test files finished
	tests      int    // tests in them, where the runner says (Vitest)
	last       string // the last test file finished
	failedF    int    // test files that failed
}

func newJSReportParser(p TestProject, absDir, reportPath string) *jsReportParser {
	j := &jsReportParser{proj: p, absDir: absDir, reportPath: reportPath}
	j.ls.fn = j.line
	return j
}

var (
	ansiEscape   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`) })
	jestFileLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(PASS|FAIL) (\S+)`) })
	vitestFile   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(✓|❯|×|↓) (\S+) \((\d+) tests?`) })
	jsStackFrame = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s+at `) })
)

func (j *jsReportParser) Feed(b []byte) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.ls.Write(b)
}

func (j *jsReportParser) line(l []byte) {
	s := ansiEscape().ReplaceAllString(string(l), "")
	if m := jestFileLine().FindStringSubmatch(s); m != nil {
		j.files++
		j.last = m[2]
		if m[1] == "FAIL" {
			j.failedF++
		}
		return
	}
	if m := vitestFile().FindStringSubmatch(s); m != nil {
		j.files++
		j.tests += atoi(m[3])
		j.last = m[2]
		if m[1] == "❯" || m[1] == "×" {
			j.failedF++
		}
	}
}

func (j *jsReportParser) Status() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	s := fmt.Sprintf("%s done, %d failed", count(j.files, "test file"), j.failedF)
	if j.last != "" {
		s += ", last " + clip(j.last, 80)
	}
	return s
}

// Step is "N tests in K files done, last FILE" (Vitest says each file's
// count) or "K test files done, last FILE" (Jest does not): neither
// announces a total before the files run.
func (j *jsReportParser) Step() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	var s string
	if j.tests > 0 {
		s = fmt.Sprintf("%s in %s done", count(j.tests, "test"), count(j.files, "file"))
	} else {
		s = count(j.files, "test file") + " done"
	}
	if j.last != "" {
		s += ", last " + clip(j.last, 80)
	}
	return s
}

// jsReport is the part of the Jest-shaped JSON report ahpls reads.
type jsReport struct {
	TestResults []struct {
		Name             string `json:"name"` // absolute file
		Status           string `json:"status"`
		Message          string `json:"message"`
		AssertionResults []struct {
			AncestorTitles  []string `json:"ancestorTitles"`
			Title           string   `json:"title"`
			FullName        string   `json:"fullName"`
			Status          string   `json:"status"`
			FailureMessages []string `json:"failureMessages"`
			Location        *struct {
				Line int `json:"line"`
			} `json:"location"`
		} `json:"assertionResults"`
	} `json:"testResults"`
}

func (j *jsReportParser) Finish(run *TestRun) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.ls.Flush()
	data := readSmall(j.reportPath, 32<<20)
	_ = os.Remove(j.reportPath)
	var rep jsReport
	if len(data) == 0 || json.Unmarshal(data, &rep) != nil {
		return // no report: the exit status and the log tail tell
	}
	var problems []string
	for _, file := range rep.TestResults {
		rel := j.rel(file.Name)
		if len(file.AssertionResults) == 0 && file.Status == "failed" {
			// The file failed to load (a syntax error, a missing module).
			problems = append(problems, rel+": "+clip(firstLines(cleanJSMessage(file.Message), 6), maxExcerptBytes))
			continue
		}
		for _, a := range file.AssertionResults {
			switch a.Status {
			case "passed":
				run.Passed++
				continue
			case "failed":
				run.Failed++
			default: // pending, skipped, todo, disabled
				run.Skipped++
				continue
			}
			name := a.FullName
			if name == "" {
				name = strings.TrimSpace(strings.Join(append(append([]string(nil), a.AncestorTitles...), a.Title), " "))
			}
			f := TestFailure{Name: name, Package: j.relToProject(file.Name), File: rel}
			if a.Location != nil && a.Location.Line > 0 {
				f.Line = a.Location.Line
			}
			msg := ""
			if len(a.FailureMessages) > 0 {
				msg = ansiEscape().ReplaceAllString(a.FailureMessages[0], "")
			}
			// The assertion's own line: the first stack frame in the file.
			for _, fr := range strings.Split(msg, "\n") {
				if !jsStackFrame().MatchString(fr) {
					continue
				}
				if m := jsLoc().FindStringSubmatch(fr); m != nil && m[1] == file.Name {
					f.Line = atoi(m[2])
					break
				}
			}
			f.Message = clip(cleanJSMessage(msg), maxMessageBytes)
			run.Failures = append(run.Failures, f)
		}
	}
	if len(problems) > 0 {
		run.Problem = clip(strings.Join(problems, "\n"), 2*maxExcerptBytes)
	}
}

// cleanJSMessage is an assertion error without its stack, colours, blank
// lines or the bare "Error: " prefix.
func cleanJSMessage(s string) string {
	s = ansiEscape().ReplaceAllString(s, "")
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if jsStackFrame().MatchString(l) {
			break
		}
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "●") {
			out = append(out, t)
		}
	}
	return strings.TrimPrefix(strings.Join(out, "\n"), "Error: ")
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// rel maps an absolute file of the report to a workspace-relative path.
func (j *jsReportParser) rel(abs string) string {
	if r := j.relToProject(abs); r != abs {
		return pathJoinRel(j.proj.Dir, r)
	}
	return abs
}

// relToProject maps an absolute file to a path relative to the project
// folder (what the runners accept back as a file filter).
func (j *jsReportParser) relToProject(abs string) string {
	if r, err := filepath.Rel(j.absDir, abs); err == nil && !strings.HasPrefix(r, "..") && !filepath.IsAbs(r) {
		return filepath.ToSlash(r)
	}
	return abs
}

// count is "1 test" or "N tests".
func count(n int, noun string) string {
	return fmt.Sprintf("%d %s", n, plural(noun, n))
}
