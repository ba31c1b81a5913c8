package main

import (
	"bufio"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"
)

// judgement is one row of scripts/agree/judged.tsv: whether ahpls' Error or
// Warning findings of a rule on some files are true. An Error is true when a
// named target refuses or fails to load the file; a Warning is true when a
// target loses or changes something (or a spec MUST tells clients to warn).
// The why column names the evidence: the consumer run or the consumer source.
type judgement struct {
	Repo, Path, Rule, Severity string // Repo "*": any; Path: exact or a glob ("**" spans folders); Severity "*": both
	Verdict                    bool
	Why                        string
	line                       int
}

func readJudged(file string) ([]judgement, error) {
	f, err := os.Open(file)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []judgement
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	header := false
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if !header {
			header = true
			continue
		}
		if len(cols) != 6 {
			return nil, fmt.Errorf("%s:%d: want 6 tab-separated columns (repo path rule severity verdict why), have %d", file, n, len(cols))
		}
		var v bool
		switch cols[4] {
		case "true":
			v = true
		case "false":
		default:
			return nil, fmt.Errorf("%s:%d: verdict must be true or false, not %q", file, n, cols[4])
		}
		out = append(out, judgement{Repo: cols[0], Path: cols[1], Rule: cols[2], Severity: cols[3], Verdict: v, Why: cols[5], line: n})
	}
	return out, sc.Err()
}

// globMatch matches a slash path against a pattern in which "**" spans any
// number of folders and other parts follow path.Match.
func globMatch(pattern, name string) bool {
	if pattern == name || pattern == "**" {
		return true
	}
	if !strings.Contains(pattern, "**") {
		ok, _ := path.Match(pattern, name)
		return ok
	}
	ps, ns := strings.Split(pattern, "/"), strings.Split(name, "/")
	var match func(i, j int) bool
	match = func(i, j int) bool {
		if i == len(ps) {
			return j == len(ns)
		}
		if ps[i] == "**" {
			for k := j; k <= len(ns); k++ {
				if match(i+1, k) {
					return true
				}
			}
			return false
		}
		if j == len(ns) {
			return false
		}
		ok, _ := path.Match(ps[i], ns[j])
		return ok && match(i+1, j+1)
	}
	return match(0, 0)
}

// consumerPrefixes are the why-column prefixes of issue #38's rows: a row
// whose why starts with "codex:", "cursor:", "gemini-cli:" or "opencode:"
// judges the finding for that consumer only (the same file and rule can be
// true for the Agent Skills spec and false for Codex, which does not read its
// folder).
var consumerPrefixes = []string{"codex", "cursor", "gemini-cli", "opencode"}

// rowConsumer is the consumer a row is written for ("" for any).
func rowConsumer(j *judgement) string {
	for _, c := range consumerPrefixes {
		if strings.HasPrefix(j.Why, c+":") {
			return c
		}
	}
	return ""
}

// judge finds the judgement of one finding. With -targets naming one of
// consumerPrefixes, that consumer's rows are looked at first and other
// consumers' rows never; then the rows for any consumer. Within each, an
// exact path wins over a glob; among equals, the first row in the file.
func judge(js []judgement, repo string, f finding) *judgement {
	if t := *targets; t != "" {
		for _, c := range consumerPrefixes {
			if t == c {
				if j := judgeFor(js, repo, f, c); j != nil {
					return j
				}
			}
		}
	}
	return judgeFor(js, repo, f, "")
}

func judgeFor(js []judgement, repo string, f finding, consumer string) *judgement {
	var glob *judgement
	for i := range js {
		j := &js[i]
		if (j.Repo != "*" && j.Repo != repo) || j.Rule != f.Rule || (j.Severity != "*" && j.Severity != f.Severity) {
			continue
		}
		if rc := rowConsumer(j); rc != consumer && !(consumer == "" && rc == *targets) {
			continue
		}
		if j.Path == f.Path {
			return j
		}
		if glob == nil && globMatch(j.Path, f.Path) {
			glob = j
		}
	}
	return glob
}

// precisionTable prints, for Error, Warning and Info findings, how many are
// judged true and false, and lists the false and the unjudged ones by rule.
// With -unjudged it writes the unjudged ones as judged.tsv rows to fill in.
// Info findings are judged too (issue #38 counts them toward the 30 judged
// findings per consumer) but the precision targets are for Error and Warning.
func precisionTable(findings map[string][]finding, repoName map[string]string, js []judgement) {
	type tally struct{ n, t, f, u int }
	sev := map[string]*tally{"error": {}, "warning": {}, "info": {}}
	type key struct{ sev, rule string }
	falseBy, unBy := map[key][]string{}, map[key][]string{}
	var rows []string
	for dir, fs := range findings {
		repo := repoName[dir]
		for _, f := range fs {
			t := sev[f.Severity]
			if t == nil {
				continue
			}
			t.n++
			where := fmt.Sprintf("%s/%s:%d %s", repo, f.Path, f.Line, f.Message)
			j := judge(js, repo, f)
			switch {
			case j == nil:
				t.u++
				unBy[key{f.Severity, f.Rule}] = append(unBy[key{f.Severity, f.Rule}], where)
				rows = append(rows, strings.Join([]string{repo, f.Path, f.Rule, f.Severity, "", oneLine(f.Message)}, "\t"))
			case j.Verdict:
				t.t++
			default:
				t.f++
				falseBy[key{f.Severity, f.Rule}] = append(falseBy[key{f.Severity, f.Rule}], where+"  ← judged.tsv:"+fmt.Sprint(j.line)+" "+j.Why)
			}
		}
	}
	fmt.Println("## Precision of errors, warnings and infos (judgements: -judged)")
	fmt.Println()
	fmt.Println("| severity | findings | judged true | judged false | unjudged | precision (true / judged) |")
	fmt.Println("|---|---:|---:|---:|---:|---:|")
	for _, s := range []string{"error", "warning", "info"} {
		t := sev[s]
		pct := "n/a"
		if t.t+t.f > 0 {
			pct = fmt.Sprintf("%.1f%%", 100*float64(t.t)/float64(t.t+t.f))
		}
		fmt.Printf("| %s | %d | %d | %d | %d | %s |\n", s, t.n, t.t, t.f, t.u, pct)
	}
	fmt.Println()
	list := func(title string, m map[key][]string) {
		var ks []key
		for k := range m {
			ks = append(ks, k)
		}
		sort.Slice(ks, func(i, j int) bool {
			if len(m[ks[i]]) != len(m[ks[j]]) {
				return len(m[ks[i]]) > len(m[ks[j]])
			}
			return ks[i].sev+ks[i].rule < ks[j].sev+ks[j].rule
		})
		fmt.Printf("### %s\n\n", title)
		for _, k := range ks {
			xs := m[k]
			sort.Strings(xs)
			fmt.Printf("- %s %s: %d\n", k.sev, k.rule, len(xs))
			for i, x := range xs {
				if i == 3 && !*verbose {
					fmt.Printf("    … %d more (-v)\n", len(xs)-3)
					break
				}
				fmt.Printf("    %s\n", x)
			}
		}
		fmt.Println()
	}
	list("False errors, warnings and infos by rule", falseBy)
	list("Unjudged errors, warnings and infos by rule", unBy)
	if *unjudgedOut != "" {
		sort.Strings(rows)
		b := strings.Join(rows, "\n")
		if b != "" {
			b += "\n"
		}
		if err := os.WriteFile(*unjudgedOut, []byte(b), 0o644); err != nil {
			fatal(err)
		}
	}
}

func oneLine(s string) string {
	return strings.NewReplacer("\t", " ", "\n", " ").Replace(s)
}

// dropRules leaves out the findings of -skip-rules.
func dropRules(fs []finding) []finding {
	if *skipRules == "" {
		return fs
	}
	skip := map[string]bool{}
	for _, r := range strings.Split(*skipRules, ",") {
		skip[strings.TrimSpace(r)] = true
	}
	out := fs[:0]
	for _, f := range fs {
		if !skip[f.Rule] {
			out = append(out, f)
		}
	}
	return out
}

// ruleTable prints, per severity and rule, the Error, Warning and Info
// findings judged true, judged false and unjudged, and the repositories they
// are in: the n per rule behind each precision.
func ruleTable(findings map[string][]finding, repoName map[string]string, js []judgement) {
	type tally struct {
		t, f, u int
		repos   map[string]bool
	}
	by := map[string]*tally{}
	for dir, fs := range findings {
		repo := repoName[dir]
		for _, f := range fs {
			if f.Severity != "error" && f.Severity != "warning" && f.Severity != "info" {
				continue
			}
			k := f.Severity + "\t" + f.Rule
			t := by[k]
			if t == nil {
				t = &tally{repos: map[string]bool{}}
				by[k] = t
			}
			t.repos[repo] = true
			switch j := judge(js, repo, f); {
			case j == nil:
				t.u++
			case j.Verdict:
				t.t++
			default:
				t.f++
			}
		}
	}
	var ks []string
	for k := range by {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	fmt.Println("## Per rule")
	fmt.Println()
	fmt.Println("| severity | rule | judged true | judged false | unjudged | repositories |")
	fmt.Println("|---|---|---:|---:|---:|---:|")
	for _, k := range ks {
		t := by[k]
		sev, rule, _ := strings.Cut(k, "\t")
		fmt.Printf("| %s | %s | %d | %d | %d | %d |\n", sev, rule, t.t, t.f, t.u, len(t.repos))
	}
	fmt.Println()
}
