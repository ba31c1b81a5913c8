// Command perfgate is the perf regression gate of .ci/run (#42): it runs
// two ahpls binaries, the base's and the candidate's, paired (A B A B ...)
// on the same generated inputs and fails when the candidate costs more
// than -limit times the base on any benchmark. Cost is the CPU time of
// the whole process (user and system, from the kernel's accounting of
// the child), so a busy machine stretches wall time without faking a
// slowdown; the median over the pairs is compared, and a benchmark past
// the limit is measured again before it fails.
//
// Benchmarks: `check` of a generated folder; the editor's first scan of it
// (`ahpls serve` from start to the scan's $/progress end and exit);
// edit → diagnostics (`ahpls serve`, one document, a run of edits each
// waited for); start-up (`ahpls version`, `ahpls check` of an empty
// folder, several processes per sample).
//
// Run it through scripts/perf-gate.sh, which builds both binaries.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	base := flag.String("base", "", "the base's ahpls binary (A)")
	cand := flag.String("cand", "", "the candidate's ahpls binary (B)")
	pairs := flag.Int("pairs", 5, "pairs per benchmark")
	limit := flag.Float64("limit", 1.25, "largest candidate/base ratio of median CPU that passes")
	work := flag.String("work", "", "folder for the generated inputs (default: a temporary one)")
	only := flag.String("only", "", "comma-separated benchmarks to run (default: all)")
	scan := flag.String("scan", "", "run one first scan of this folder with -cand and exit (for timing from outside)")
	corpus := flag.String("corpus", "", "write the gate's generated folders here and exit")
	flag.Parse()
	if *corpus != "" {
		if _, err := makeInputs(*corpus); err != nil {
			fatal(err)
		}
		return
	}
	if *scan != "" && *cand != "" {
		if _, err := firstScan(*cand, *scan); err != nil {
			fatal(err)
		}
		return
	}
	if *base == "" || *cand == "" {
		fmt.Fprintln(os.Stderr, "usage: perfgate -base BIN -cand BIN [-pairs N] [-limit R]")
		os.Exit(2)
	}
	dir := *work
	if dir == "" {
		d, err := os.MkdirTemp("", "ahpls-perfgate-")
		if err != nil {
			fatal(err)
		}
		defer os.RemoveAll(d)
		dir = d
	}
	in, err := makeInputs(dir)
	if err != nil {
		fatal(err)
	}
	failed := false
	fmt.Printf("perf gate: A = %s, B = %s, %d pairs each, limit B/A <= %.2f (median CPU)\n", *base, *cand, *pairs, *limit)
	for _, b := range benchmarks(in) {
		if *only != "" && !strings.Contains(","+*only+",", ","+b.name+",") {
			continue
		}
		ratio, line, err := pairRun(b, *base, *cand, *pairs)
		if err != nil {
			fatal(fmt.Errorf("%s: %w", b.name, err))
		}
		verdict := "ok"
		if ratio > *limit {
			// Measure again: noise must strike twice to fail the gate.
			ratio2, line2, err := pairRun(b, *base, *cand, *pairs)
			if err != nil {
				fatal(fmt.Errorf("%s: %w", b.name, err))
			}
			fmt.Printf("%-18s %s  (past the limit; measured again)\n", b.name, line)
			line, ratio = line2, ratio2
			if ratio > *limit {
				verdict = "SLOWER"
				failed = true
			}
		}
		fmt.Printf("%-18s %s  %s\n", b.name, line, verdict)
	}
	if failed {
		fmt.Printf("perf gate: FAIL: the candidate is more than %.2f× the base on a benchmark above\n", *limit)
		os.Exit(1)
	}
	fmt.Println("perf gate: ok")
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "perfgate:", err)
	os.Exit(2)
}

type bench struct {
	name string
	run  func(bin string) (time.Duration, error) // one sample: CPU
}

// pairRun measures A and B alternately and returns B's median over A's.
func pairRun(b bench, base, cand string, pairs int) (float64, string, error) {
	var as, bs []time.Duration
	for range pairs {
		a, err := b.run(base)
		if err != nil {
			return 0, "", fmt.Errorf("base: %w", err)
		}
		c, err := b.run(cand)
		if err != nil {
			return 0, "", fmt.Errorf("candidate: %w", err)
		}
		as, bs = append(as, a), append(bs, c)
	}
	ma, mb := median(as), median(bs)
	ratio := float64(mb) / float64(max(ma, time.Microsecond))
	return ratio, fmt.Sprintf("A %s  B %s  median A %-9v B %-9v B/A %.3f", ms(as), ms(bs), ma.Round(time.Millisecond/10), mb.Round(time.Millisecond/10), ratio), nil
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ms(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64)
	}
	return "[" + strings.Join(parts, " ") + "]ms"
}

// inputs are the generated folders the benchmarks read.
type inputs struct {
	corpus, empty, editWS string
}

// makeInputs writes a folder of 1,500 skills (a tenth broken), a few
// plugins with a marketplace, agents and a CLAUDE.md; an empty folder; a
// folder for the edit benchmark.
func makeInputs(dir string) (inputs, error) {
	in := inputs{corpus: filepath.Join(dir, "corpus"), empty: filepath.Join(dir, "empty"), editWS: filepath.Join(dir, "edit")}
	write := func(rel, text string) error {
		p := filepath.Join(in.corpus, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, []byte(text), 0o644)
	}
	for i := range 1500 {
		text := fmt.Sprintf("---\nname: skill-%d\ndescription: Does thing number %d when asked about it.\nlicense: MIT\n---\n# Skill %d\n\nSteps:\n1. Read [the guide](references/guide.md).\n2. Run `make test`.\n", i, i, i)
		if i%10 == 3 {
			text = fmt.Sprintf("---\nname: Skill %d\ndescription: x\n---\nSee [missing](nowhere.md).\n", i)
		}
		if err := write(fmt.Sprintf(".github/skills/skill-%d/SKILL.md", i), text); err != nil {
			return in, err
		}
	}
	var market strings.Builder
	market.WriteString(`{"name":"m","owner":{"name":"o"},"plugins":[`)
	for i := range 20 {
		if i > 0 {
			market.WriteString(",")
		}
		fmt.Fprintf(&market, `{"name":"p%d","source":"./plugins/p%d"}`, i, i)
		files := map[string]string{
			fmt.Sprintf("plugins/p%d/.claude-plugin/plugin.json", i): fmt.Sprintf(`{"name":"p%d","version":"1.0.0"}`, i),
			fmt.Sprintf("plugins/p%d/agents/a.md", i):                "---\nname: a\ndescription: Reviews code.\n---\nReview.\n",
			fmt.Sprintf("plugins/p%d/hooks/hooks.json", i):           `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"echo hi"}]}]}}`,
			fmt.Sprintf("plugins/p%d/skills/s/SKILL.md", i):          "---\nname: s\ndescription: A plugin skill.\n---\nBody.\n",
		}
		for rel, text := range files {
			if err := write(rel, text); err != nil {
				return in, err
			}
		}
	}
	market.WriteString("]}")
	if err := write(".claude-plugin/marketplace.json", market.String()); err != nil {
		return in, err
	}
	if err := write("CLAUDE.md", "# Project\n@AGENTS.md\n"); err != nil {
		return in, err
	}
	if err := write("AGENTS.md", "# Agents\nRun the tests.\n"); err != nil {
		return in, err
	}
	for _, d := range []string{in.empty, in.editWS} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return in, err
		}
	}
	return in, nil
}

func benchmarks(in inputs) []bench {
	return []bench{
		{"check", func(bin string) (time.Duration, error) {
			return processCPU(exec.Command(bin, "check", in.corpus), 1)
		}},
		{"first-scan", func(bin string) (time.Duration, error) { return firstScan(bin, in.corpus) }},
		{"edit-diagnostics", func(bin string) (time.Duration, error) { return edits(bin, in.editWS, 15) }},
		{"startup-version", func(bin string) (time.Duration, error) {
			return repeatCPU(20, func() *exec.Cmd { return exec.Command(bin, "version") }, 0)
		}},
		{"startup-check", func(bin string) (time.Duration, error) {
			return repeatCPU(20, func() *exec.Cmd { return exec.Command(bin, "check", in.empty) }, 0)
		}},
	}
}

// processCPU runs cmd to its end and returns its CPU time; exit codes up
// to okCode are success (check exits 1 when it finds problems).
func processCPU(cmd *exec.Cmd, okCode int) (time.Duration, error) {
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() <= okCode) {
		return 0, err
	}
	st := cmd.ProcessState
	return st.UserTime() + st.SystemTime(), nil
}

func repeatCPU(n int, mk func() *exec.Cmd, okCode int) (time.Duration, error) {
	var sum time.Duration
	for range n {
		d, err := processCPU(mk(), okCode)
		if err != nil {
			return 0, err
		}
		sum += d
	}
	return sum, nil
}

// lsp is a minimal LSP client of `ahpls serve` over its stdin and stdout.
type lsp struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	nextID int
}

func startLSP(bin, folder string) (*lsp, error) {
	cmd := exec.Command(bin, "serve")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	l := &lsp{cmd: cmd, in: stdin, out: bufio.NewReaderSize(stdout, 1<<16)}
	u := fileURI(folder)
	init := fmt.Sprintf(`{"processId":null,"rootUri":%q,"capabilities":{"window":{"workDoneProgress":true}},"workspaceFolders":[{"uri":%q,"name":"ws"}]}`, u, u)
	id, err := l.call("initialize", init)
	if err != nil {
		return nil, err
	}
	if _, err := l.waitResponse(id); err != nil {
		return nil, err
	}
	return l, l.notify("initialized", `{}`)
}

func fileURI(p string) string {
	p = filepath.ToSlash(p)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return "file://" + p
}

func (l *lsp) send(msg string) error {
	_, err := fmt.Fprintf(l.in, "Content-Length: %d\r\n\r\n%s", len(msg), msg)
	return err
}

func (l *lsp) call(method, params string) (int, error) {
	l.nextID++
	return l.nextID, l.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, l.nextID, method, params))
}

func (l *lsp) notify(method, params string) error {
	return l.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s}`, method, params))
}

type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// next reads one message, answering the server's own requests (an empty
// configuration, null to the rest).
func (l *lsp) next() (message, error) {
	var m message
	n := -1
	for {
		line, err := l.out.ReadString('\n')
		if err != nil {
			return m, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	if n < 0 {
		return m, errors.New("message without Content-Length")
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(l.out, body); err != nil {
		return m, err
	}
	if err := json.Unmarshal(body, &m); err != nil {
		return m, err
	}
	if m.Method != "" && len(m.ID) > 0 {
		result := "null"
		if m.Method == "workspace/configuration" {
			var p struct {
				Items []json.RawMessage `json:"items"`
			}
			_ = json.Unmarshal(m.Params, &p)
			result = "[" + strings.TrimSuffix(strings.Repeat("null,", len(p.Items)), ",") + "]"
		}
		if err := l.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)); err != nil {
			return m, err
		}
	}
	return m, nil
}

func (l *lsp) waitResponse(id int) (message, error) {
	want := strconv.Itoa(id)
	for {
		m, err := l.next()
		if err != nil {
			return m, err
		}
		if m.Method == "" && string(m.ID) == want {
			return m, nil
		}
	}
}

func (l *lsp) waitFor(pred func(message) bool) error {
	deadline := time.AfterFunc(2*time.Minute, func() { _ = l.cmd.Process.Kill() })
	defer deadline.Stop()
	for {
		m, err := l.next()
		if err != nil {
			return err
		}
		if pred(m) {
			return nil
		}
	}
}

// stop shuts the server down and returns its CPU time.
func (l *lsp) stop() (time.Duration, error) {
	id, err := l.call("shutdown", "null")
	if err == nil {
		_, err = l.waitResponse(id)
	}
	if err == nil {
		err = l.notify("exit", "null")
	}
	_ = l.in.Close()
	go func() { _, _ = io.Copy(io.Discard, l.out) }()
	werr := l.cmd.Wait()
	if err != nil {
		return 0, err
	}
	if werr != nil {
		return 0, werr
	}
	st := l.cmd.ProcessState
	return st.UserTime() + st.SystemTime(), nil
}

// firstScan is `ahpls serve` from its start to the end of the first scan
// of folder, then exit.
func firstScan(bin, folder string) (time.Duration, error) {
	l, err := startLSP(bin, folder)
	if err != nil {
		return 0, err
	}
	if err := l.waitFor(func(m message) bool {
		return m.Method == "$/progress" && strings.Contains(string(m.Params), `"end"`)
	}); err != nil {
		return 0, err
	}
	return l.stop()
}

// edits is `ahpls serve` with one open SKILL.md edited n times, each
// edit's publication waited for (the debounce is wall time, not CPU).
func edits(bin, folder string, n int) (time.Duration, error) {
	l, err := startLSP(bin, folder)
	if err != nil {
		return 0, err
	}
	u := fileURI(filepath.Join(folder, ".github", "skills", "edit", "SKILL.md"))
	text := func(v int) string {
		var sb strings.Builder
		fmt.Fprintf(&sb, "---\nname: Edit %d\ndescription: Measures an edit.\n---\n# Edit\n\n", v)
		for sb.Len() < 4096 {
			sb.WriteString("Follow the steps in [the guide](references/guide.md) and run `make test` before you hand the change over.\n")
		}
		return sb.String()
	}
	published := func(v int) func(message) bool {
		want := fmt.Sprintf(`"version":%d`, v)
		return func(m message) bool {
			return m.Method == "textDocument/publishDiagnostics" && strings.Contains(string(m.Params), want)
		}
	}
	open, _ := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "markdown", "version": 1, "text": text(1)}})
	if err := l.notify("textDocument/didOpen", string(open)); err != nil {
		return 0, err
	}
	if err := l.waitFor(published(1)); err != nil {
		return 0, err
	}
	for v := 2; v <= n+1; v++ {
		change, _ := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": u, "version": v}, "contentChanges": []any{map[string]any{"text": text(v)}}})
		if err := l.notify("textDocument/didChange", string(change)); err != nil {
			return 0, err
		}
		if err := l.waitFor(published(v)); err != nil {
			return 0, err
		}
	}
	return l.stop()
}
