// Command agree is differential testing for ahpls (issue #13): it runs
// `ahpls check --format json`, Claude Code's plugin validator and the Agent
// Skills reference validator (skills-ref) over a folder of real repositories
// and prints where they agree and where they do not.
//
// It is a development tool, not part of CI (the consumers need a network
// install). Set-up and the exact consumer commands: scripts/agree/README.md;
//
//	go run ./scripts/agree -corpus DIR -claude BIN -skills-ref SRC -targets claude-code
//
// Roots: a plugin root is a folder holding .claude-plugin/plugin.json
// (Claude), or plugin.json / .plugin/plugin.json (VS Code); a marketplace
// root holds .claude-plugin/marketplace.json; a skill folder holds SKILL.md.
// Claude's validator is run on each manifest file; "has an error" is its
// JSON `success: false` (its "directory" submission review does not count).
// ahpls "has an error" for a root is an error finding on a file under the
// plugin root (not under a nested plugin root), or on the marketplace file.
// Consumer results are cached in -cache keyed by the root's files, so reruns
// only pay for ahpls.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

var (
	corpus      = flag.String("corpus", "corpus", "folder of repositories, one per subfolder")
	targets     = flag.String("targets", "", "passed to ahpls check --targets (empty: ahpls' default)")
	cacheDir    = flag.String("cache", filepath.Join(os.TempDir(), "agree-cache"), "consumer result cache")
	ahplsBin    = flag.String("ahpls", "", "ahpls binary (default: go build ./cmd/ahpls into the cache)")
	claudeBin   = flag.String("claude", "claude", "Claude Code binary (node_modules/@anthropic-ai/claude-code-linux-x64/claude of an npm install)")
	skillsSrc   = flag.String("skills-ref", "skills-ref/src", "skills-ref source folder (PYTHONPATH)")
	python      = flag.String("python", "/usr/bin/python3", "python with python3-strictyaml and python3-click")
	jobs        = flag.Int("j", 2, "consumer runs at once")
	verbose     = flag.Bool("v", false, "list every disagreement with its messages (default: first 40 per table)")
	skipSkill   = flag.Bool("no-skills", false, "skip skills-ref")
	listFile    = flag.String("list", "", "corpus list (scripts/agree/corpus.tsv): check only its repositories, <corpus>/<owner>+<name>")
	part        = flag.String("part", "tune", "with -list: tune, holdout or all")
	judged      = flag.String("judged", "scripts/agree/judged.tsv", "judgements of error and warning findings (repo path rule severity verdict why)")
	warm        = flag.Bool("warm", false, "only run the consumers into the cache (no ahpls run, no tables): a big part's consumer runs can happen ahead of its one measured run")
	unjudgedOut = flag.String("unjudged", "", "write the unjudged error and warning findings to this file as judged.tsv rows to fill in")
	noImplied   = flag.Bool("no-implied-targets", false, "pass --no-implied-targets to ahpls check: only the -targets consumers' reading is reported (issue #38's per-consumer measurement)")
	onlyPrec    = flag.Bool("precision-only", false, "run no consumer (no Claude validator, no skills-ref): only ahpls, the precision table with its counts per rule")
	skipRules   = flag.String("skip-rules", "", "comma-separated rules left out of the precision table (e.g. security/unscoped-bash, which names no consumer)")
)

// root is one plugin or marketplace root.
type root struct {
	Repo     string // repository folder name
	Dir      string // root folder relative to the repository
	Manifest string // manifest file relative to the repository
	Kind     string // "claude-plugin", "vscode-plugin", "marketplace"

	ccErr  bool
	ccMsgs []string
	// viaMarket: Claude refuses the plugin alone only for a reserved name
	// and says "validate the marketplace that lists it"; that marketplace
	// (an ancestor in the same repository) passes, so its verdict counts.
	viaMarket bool
	// loadsAnyway: every error Claude's validator gives says, in its own
	// words, that the runtime still loads the file ("At runtime this
	// command loads with empty metadata"): the file loads with its whole
	// header dropped, which docs/rules.md's policy (issue #40) makes an
	// Error like a refusal, so the root keeps its error; it is counted.
	loadsAnyway bool
	ahErr       []finding // error findings under the root
}

// claudeRoot reports whether Claude Code reads the root at all: a bare
// plugin.json outside .claude-plugin/ (a VS Code plugin, or another tool's
// build source) is never a Claude Code plugin, so Claude's agreement with
// --targets claude-code is measured on the other roots only; the
// validator's reading of such a file is shown as a proxy row.
func claudeRoot(r *root) bool {
	return r.Kind != "vscode-plugin" || *targets != "claude-code"
}

type finding struct {
	Path     string `json:"rel"`
	Line     int    `json:"line"`
	Severity string `json:"severity"`
	Rule     string `json:"rule"`
	Message  string `json:"message"`
}

// ccResult is the part of `claude plugin validate --json` we read.
type ccResult struct {
	Success  bool `json:"success"`
	Manifest struct {
		Errors []struct{ Path, Message string } `json:"errors"`
	} `json:"manifest"`
	Contents []struct {
		File   string                           `json:"file"`
		Errors []struct{ Path, Message string } `json:"errors"`
	} `json:"contents"`
}

type skillRun struct {
	Repo, Dir string
	Errors    []string
}

func main() {
	flag.Parse()
	if err := os.MkdirAll(*cacheDir, 0o755); err != nil {
		fatal(err)
	}
	if *warm {
		warmCache()
		return
	}
	bin := *ahplsBin
	if bin == "" {
		bin = filepath.Join(*cacheDir, "ahpls")
		if out, err := exec.Command("go", "build", "-o", bin, "./cmd/ahpls").CombinedOutput(); err != nil {
			fatal(fmt.Errorf("go build ./cmd/ahpls (run from the repository root): %v\n%s", err, out))
		}
	}
	if *listSample > 0 {
		sampleMain(bin)
		return
	}
	dirs, repoName, err := corpusRepos()
	if err != nil {
		fatal(err)
	}
	var roots []*root
	var skills []*skillRun
	findings := map[string][]finding{} // repository folder → findings
	counts := map[string]fileCounts{}  // repository folder → files in the tree and ahpls' own count
	for _, repo := range dirs {
		rs, sk := discover(filepath.Join(*corpus, repo), repo)
		roots = append(roots, rs...)
		skills = append(skills, sk...)
		fs, checked, err := runAhpls(bin, filepath.Join(*corpus, repo))
		if err != nil {
			fatal(fmt.Errorf("%s: %v", repo, err))
		}
		findings[repo] = dropRules(fs)
		c := countTree(filepath.Join(*corpus, repo))
		c.ahpls = checked
		counts[repo] = c
	}
	js, err := readJudged(*judged)
	if err != nil {
		fatal(err)
	}
	if *onlyPrec {
		precisionTable(findings, repoName, js)
		ruleTable(findings, repoName, js)
		return
	}
	parallel(len(roots), func(i int) { validateRoot(roots[i]) })
	if !*skipSkill {
		parallel(len(skills), func(i int) { validateSkill(skills[i]) })
	}
	byMarketplace(roots)
	runtimeLoads(roots)
	attribute(roots, findings)
	report(roots, skills, findings)
	precisionTable(findings, repoName, js)
	countTable(dirs, counts)
	summary(roots, skills, findings, repoName, js)
}

// warmCache runs the consumers over the selected repositories and prints
// only how many roots and skill folders it ran, never a verdict.
func warmCache() {
	dirs, _, err := corpusRepos()
	if err != nil {
		fatal(err)
	}
	var roots []*root
	var skills []*skillRun
	for _, repo := range dirs {
		rs, sk := discover(filepath.Join(*corpus, repo), repo)
		roots = append(roots, rs...)
		skills = append(skills, sk...)
	}
	parallel(len(roots), func(i int) { validateRoot(roots[i]) })
	if !*skipSkill {
		parallel(len(skills), func(i int) { validateSkill(skills[i]) })
	}
	fmt.Printf("warmed: %d repositories, %d plugin and marketplace roots, %d skill folders\n", len(dirs), len(roots), len(skills))
}

// corpusRepos lists the repository folders to check: the -list entries of
// -part, or every subfolder of -corpus. repoName maps a folder to owner/name.
func corpusRepos() (dirs []string, repoName map[string]string, err error) {
	repoName = map[string]string{}
	if *listFile == "" {
		es, err := os.ReadDir(*corpus)
		if err != nil {
			return nil, nil, err
		}
		for _, e := range es {
			if e.IsDir() {
				dirs = append(dirs, e.Name())
				repoName[e.Name()] = strings.Replace(e.Name(), "+", "/", 1)
			}
		}
		return dirs, repoName, nil
	}
	all, err := readList(*listFile)
	if err != nil {
		return nil, nil, err
	}
	es, err := selectPart(all, *part)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range es {
		d := dirName(e.Repo)
		if st, err := os.Stat(filepath.Join(*corpus, d)); err != nil || !st.IsDir() {
			return nil, nil, fmt.Errorf("%s: no folder %s in %s (check it out at %s)", e.Repo, d, *corpus, e.Commit)
		}
		dirs = append(dirs, d)
		repoName[d] = e.Repo
	}
	return dirs, repoName, nil
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "agree:", err)
	os.Exit(2)
}

func parallel(n int, f func(int)) {
	var wg sync.WaitGroup
	ch := make(chan int)
	for w := 0; w < max(1, *jobs); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ch {
				f(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		ch <- i
	}
	close(ch)
	wg.Wait()
}

// otherProduct reports a dot-folder that belongs to another product
// (.codex-plugin, .cursor-plugin, .kimi-plugin, …): not a plugin root.
func otherProduct(name string) bool {
	return strings.HasPrefix(name, ".") && name != ".plugin" && name != ".claude-plugin"
}

// discover lists a repository's plugin, marketplace and skill roots.
func discover(abs, repo string) ([]*root, []*skillRun) {
	var roots []*root
	var skills []*skillRun
	_ = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if n := d.Name(); n == ".git" || n == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(abs, p)
		rel = filepath.ToSlash(rel)
		dir := filepath.ToSlash(filepath.Dir(rel))
		parent := filepath.Base(dir)
		switch {
		case d.Name() == "SKILL.md":
			skills = append(skills, &skillRun{Repo: repo, Dir: dir})
		case d.Name() == "marketplace.json" && parent == ".claude-plugin":
			roots = append(roots, &root{Repo: repo, Dir: cleanDir(filepath.Dir(dir)), Manifest: rel, Kind: "marketplace"})
		case d.Name() == "plugin.json" && parent == ".claude-plugin":
			roots = append(roots, &root{Repo: repo, Dir: cleanDir(filepath.Dir(dir)), Manifest: rel, Kind: "claude-plugin"})
		case d.Name() == "plugin.json" && parent == ".plugin":
			roots = append(roots, &root{Repo: repo, Dir: cleanDir(filepath.Dir(dir)), Manifest: rel, Kind: "vscode-plugin"})
		case d.Name() == "plugin.json" && !otherProduct(parent) && !strings.Contains("/"+dir+"/", "/.github/"):
			roots = append(roots, &root{Repo: repo, Dir: cleanDir(dir), Manifest: rel, Kind: "vscode-plugin"})
		}
		return nil
	})
	// A VS Code root that also has a Claude manifest is one plugin: keep the
	// Claude reading, which the validator judges with its contents.
	claude := map[string]bool{}
	for _, r := range roots {
		if r.Kind == "claude-plugin" {
			claude[r.Dir] = true
		}
	}
	out := roots[:0]
	for _, r := range roots {
		if r.Kind == "vscode-plugin" && claude[r.Dir] {
			continue
		}
		out = append(out, r)
	}
	return out, skills
}

func cleanDir(d string) string {
	if d == "." {
		return ""
	}
	return d
}

// runAhpls returns ahpls' findings and, when its JSON states them, how many
// files of each kind it checked. It reads both the plain array of findings
// and an object holding "findings" beside the counts.
func runAhpls(bin, dir string) ([]finding, map[string]int, error) {
	args := []string{"check", "--format", "json", "--fail-on", "never"}
	if *targets != "" {
		args = append(args, "--targets", *targets)
	}
	if *noImplied {
		args = append(args, "--no-implied-targets")
	}
	cmd := exec.Command(bin, append(args, ".")...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("ahpls check: %v: %s", err, stderr.String())
	}
	return parseCheck(out)
}

// cached runs f unless a result for key is cached.
func cached(key string, f func() []byte) []byte {
	h := sha256.Sum256([]byte(key))
	p := filepath.Join(*cacheDir, hex.EncodeToString(h[:12])+".json")
	if b, err := os.ReadFile(p); err == nil {
		return b
	}
	b := f()
	_ = os.WriteFile(p, b, 0o644)
	return b
}

// treeKey fingerprints the files under dir (names, sizes, mtimes).
func treeKey(dir string) string {
	h := sha256.New()
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if info, err := d.Info(); err == nil && !d.IsDir() {
			fmt.Fprintf(h, "%s %d %d\n", p, info.Size(), info.ModTime().UnixNano())
		}
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))
}

func validateRoot(r *root) {
	abs := filepath.Join(*corpus, r.Repo, r.Manifest)
	key := "claude\x00" + abs + "\x00" + treeKey(filepath.Join(*corpus, r.Repo, r.Dir))
	if r.Kind == "marketplace" {
		// The marketplace check reads the marketplace and its plugins'
		// manifests, not the whole repository.
		b, _ := os.ReadFile(abs)
		key = "claude\x00" + abs + "\x00" + string(b)
	}
	out := cached(key, func() []byte {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		home := filepath.Join(*cacheDir, "home")
		_ = os.MkdirAll(home, 0o755)
		cmd := exec.CommandContext(ctx, *claudeBin, "plugin", "validate", abs, "--json")
		cmd.Env = append(os.Environ(), "HOME="+home, "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
		b, _ := cmd.Output()
		return b
	})
	var res ccResult
	if err := json.Unmarshal(out, &res); err != nil {
		r.ccErr, r.ccMsgs = true, []string{"validator output unreadable: " + err.Error()}
		return
	}
	r.ccErr = !res.Success
	for _, e := range res.Manifest.Errors {
		r.ccMsgs = append(r.ccMsgs, e.Path+": "+e.Message)
	}
	base := filepath.Join(*corpus, r.Repo) + "/"
	for _, c := range res.Contents {
		for _, e := range c.Errors {
			r.ccMsgs = append(r.ccMsgs, strings.TrimPrefix(c.File, base)+" "+e.Path+": "+e.Message)
		}
	}
}

func validateSkill(s *skillRun) {
	abs := filepath.Join(*corpus, s.Repo, s.Dir)
	b, _ := os.ReadFile(filepath.Join(abs, "SKILL.md"))
	out := cached("skills-ref\x00"+abs+"\x00"+string(b), func() []byte {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, *python, "-m", "skills_ref.cli", "validate", abs)
		cmd.Env = append(os.Environ(), "PYTHONPATH="+*skillsSrc)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		_ = cmd.Run()
		var errs []string
		for _, l := range strings.Split(stderr.String(), "\n") {
			if m, ok := strings.CutPrefix(l, "  - "); ok {
				errs = append(errs, m)
			}
		}
		if errs == nil && cmd.ProcessState != nil && cmd.ProcessState.ExitCode() != 0 {
			errs = []string{"exit " + fmt.Sprint(cmd.ProcessState.ExitCode()) + ": " + strings.TrimSpace(stderr.String())}
		}
		b, _ := json.Marshal(errs)
		return b
	})
	_ = json.Unmarshal(out, &s.Errors)
}

// byMarketplace applies Claude's own advice for reserved plugin names: a
// plugin whose only errors say "validate the marketplace that lists it" is
// judged by its enclosing marketplace's verdict.
func byMarketplace(roots []*root) {
	for _, r := range roots {
		if r.Kind != "claude-plugin" || !r.ccErr || len(r.ccMsgs) == 0 {
			continue
		}
		only := true
		for _, m := range r.ccMsgs {
			only = only && strings.Contains(m, "validate the marketplace that lists it")
		}
		if !only {
			continue
		}
		for _, m := range roots {
			if m.Kind == "marketplace" && m.Repo == r.Repo && under(r.Dir, m.Dir) && !m.ccErr {
				r.ccErr, r.viaMarket = false, true
			}
		}
	}
}

// runtimeLoads marks the roots whose every validator error says the
// runtime loads the file anyway with its header dropped. They keep their
// error: a dropped header is an Error (header-dropped), as ahpls reports it.
func runtimeLoads(roots []*root) {
	for _, r := range roots {
		if !r.ccErr || len(r.ccMsgs) == 0 {
			continue
		}
		all := true
		for _, m := range r.ccMsgs {
			all = all && runtimeLoadsMsg(m)
		}
		r.loadsAnyway = all
	}
}

func runtimeLoadsMsg(m string) bool {
	_, after, ok := strings.Cut(m, "At runtime this ")
	return ok && strings.Contains(after, " loads ")
}

// under reports whether rel is dir itself or below it ("" is everything).
func under(rel, dir string) bool {
	return dir == "" || rel == dir || strings.HasPrefix(rel, dir+"/")
}

// attribute gives each root the ahpls error findings that belong to it: for
// a plugin, files under its folder but not under a deeper plugin root; for a
// marketplace, the marketplace file.
func attribute(roots []*root, findings map[string][]finding) {
	for _, r := range roots {
		for _, f := range findings[r.Repo] {
			if f.Severity != "error" {
				continue
			}
			if r.Kind == "marketplace" {
				// Claude's marketplace check also validates the manifests of
				// the plugins it lists ("plugins[91] plugin.json → agents.0");
				// a local source is a folder below the marketplace root.
				if f.Path == r.Manifest || under(f.Path, r.Dir) && strings.HasSuffix(f.Path, "/.claude-plugin/plugin.json") {
					r.ahErr = append(r.ahErr, f)
				}
				continue
			}
			if !under(f.Path, r.Dir) || deeper(roots, r, f.Path) {
				continue
			}
			r.ahErr = append(r.ahErr, f)
		}
	}
}

func deeper(roots []*root, r *root, rel string) bool {
	for _, o := range roots {
		if o.Repo == r.Repo && o.Kind != "marketplace" && len(o.Dir) > len(r.Dir) && under(o.Dir, r.Dir) && under(rel, o.Dir) {
			return true
		}
	}
	return false
}

func report(roots []*root, skills []*skillRun, findings map[string][]finding) {
	tg := *targets
	if tg == "" {
		tg = "(default)"
	}
	fmt.Printf("# agree: %s, ahpls --targets %s\n\n", *corpus, tg)

	fmt.Println("## Plugin and marketplace roots: \"has an error\" (ahpls vs Claude's validator)")
	fmt.Println()
	fmt.Println("| kind | roots | both error | both clean | only Claude | only ahpls | agree |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|")
	var all [4]int
	for _, kind := range []string{"claude-plugin", "vscode-plugin", "marketplace"} {
		var c [4]int
		proxy := false
		for _, r := range roots {
			if r.Kind == kind {
				c[cell(r)]++
				proxy = !claudeRoot(r)
			}
		}
		if proxy {
			row(kind+" (not read by Claude Code: proxy, not in all)", c)
			continue
		}
		for i := range c {
			all[i] += c[i]
		}
		row(kind, c)
	}
	row("all", all)
	fmt.Println()
	loads := 0
	for _, r := range roots {
		if r.loadsAnyway {
			loads++
		}
	}
	fmt.Printf("Roots whose only validator errors say the runtime loads the file with its header dropped (counted as an error, header-dropped): %d\n", loads)
	via := 0
	for _, r := range roots {
		if r.viaMarket {
			via++
		}
	}
	fmt.Printf("Plugins judged by the marketplace that lists them (reserved names, Claude's advice): %d\n\n", via)
	var dis []*root
	for _, r := range roots {
		if i := cell(r); i >= 2 && claudeRoot(r) {
			dis = append(dis, r)
		}
	}
	sort.Slice(dis, func(i, j int) bool { return dis[i].Repo+dis[i].Manifest < dis[j].Repo+dis[j].Manifest })
	fmt.Printf("### Disagreements (%d)\n\n", len(dis))
	for i, r := range dis {
		if i == 40 && !*verbose {
			fmt.Printf("… %d more (-v)\n", len(dis)-40)
			break
		}
		fmt.Printf("- %s/%s [%s]\n", r.Repo, r.Manifest, r.Kind)
		for _, m := range clip(r.ccMsgs) {
			fmt.Printf("    claude: %s\n", m)
		}
		for _, f := range clipF(r.ahErr) {
			fmt.Printf("    ahpls:  %s:%d [%s] %s\n", f.Path, f.Line, f.Rule, f.Message)
		}
	}
	fmt.Println()

	fmt.Println("## Other products' plugin folders (.codex-plugin/, .cursor-plugin/, …)")
	fmt.Println()
	other := 0
	for repo, fs := range findings {
		for _, f := range fs {
			if (f.Severity == "error" || f.Severity == "warning") && inOtherProduct(f.Path) {
				other++
				if other <= 20 {
					fmt.Printf("- %s/%s:%d %s [%s] %s\n", repo, f.Path, f.Line, f.Severity, f.Rule, f.Message)
				}
			}
		}
	}
	fmt.Printf("errors or warnings on files in other products' folders: %d\n\n", other)

	if !*skipSkill {
		skillTable(skills, findings)
	}

	fmt.Println("## ahpls errors and warnings by rule")
	fmt.Println()
	type key struct{ rule, sev string }
	count := map[key]int{}
	for _, fs := range findings {
		for _, f := range fs {
			if f.Severity == "error" || f.Severity == "warning" {
				count[key{f.Rule, f.Severity}]++
			}
		}
	}
	var keys []key
	for k := range count {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].sev != keys[j].sev {
			return keys[i].sev < keys[j].sev
		}
		return keys[i].rule < keys[j].rule
	})
	fmt.Println("| severity | rule | findings |")
	fmt.Println("|---|---|---:|")
	for _, k := range keys {
		fmt.Printf("| %s | %s | %d |\n", k.sev, k.rule, count[k])
	}
}

// cell is 0 both error, 1 both clean, 2 only Claude, 3 only ahpls.
func cell(r *root) int {
	ah := len(r.ahErr) > 0
	switch {
	case r.ccErr && ah:
		return 0
	case !r.ccErr && !ah:
		return 1
	case r.ccErr:
		return 2
	}
	return 3
}

func row(name string, c [4]int) {
	n := c[0] + c[1] + c[2] + c[3]
	pct := 100.0
	if n > 0 {
		pct = 100 * float64(c[0]+c[1]) / float64(n)
	}
	fmt.Printf("| %s | %d | %d | %d | %d | %d | %.1f%% |\n", name, n, c[0], c[1], c[2], c[3], pct)
}

func inOtherProduct(rel string) bool {
	for _, s := range strings.Split(rel, "/") {
		if otherProduct(s) && strings.HasSuffix(s, "-plugin") {
			return true
		}
	}
	return false
}

func clip(s []string) []string {
	if len(s) > 4 && !*verbose {
		return append(s[:4:4], fmt.Sprintf("… %d more", len(s)-4))
	}
	return s
}

func clipF(s []finding) []finding {
	if len(s) > 4 && !*verbose {
		return s[:4]
	}
	return s
}

// nameProblem reports a skills-ref message about the name's case, charset,
// length, hyphens or folder match.
func nameProblem(msg string) bool {
	return strings.HasPrefix(msg, "Skill name") || strings.HasPrefix(msg, "Directory name") ||
		strings.HasPrefix(msg, "Field 'name'") || strings.Contains(msg, "required field in frontmatter: name")
}

// nameRecall counts the skill folders skills-ref rejects for the name
// (nameProblem) and those of them ahpls reports with a skill/name-* finding
// on their SKILL.md at Warning or above (shown: ahpls' default targets make
// it visible in CI and editors) and at any severity.
func nameRecall(skills []*skillRun, findings map[string][]finding) (rejected, nameRejected, shown, any int, missed []*skillRun) {
	shownAt, anyAt := map[string]bool{}, map[string]bool{}
	for repo, fs := range findings {
		for _, f := range fs {
			if strings.HasPrefix(f.Rule, "skill/name") {
				anyAt[repo+"/"+f.Path] = true
				if f.Severity == "error" || f.Severity == "warning" {
					shownAt[repo+"/"+f.Path] = true
				}
			}
		}
	}
	for _, s := range skills {
		if len(s.Errors) > 0 {
			rejected++
		}
		name := false
		for _, e := range s.Errors {
			// A SKILL.md at a repository's root takes the folder name of
			// wherever it is cloned (here owner+name): not the author's.
			if s.Dir == "." && strings.HasPrefix(e, "Directory name") {
				continue
			}
			name = name || nameProblem(e)
		}
		if !name {
			continue
		}
		nameRejected++
		k := s.Repo + "/" + s.Dir + "/SKILL.md"
		if anyAt[k] {
			any++
		}
		if shownAt[k] {
			shown++
		} else {
			missed = append(missed, s)
		}
	}
	return
}

func skillTable(skills []*skillRun, findings map[string][]finding) {
	fmt.Println("## Skill folders that skills-ref rejects for the name")
	fmt.Println()
	nested := 0
	for _, fs := range findings {
		for _, f := range fs {
			if strings.Contains(f.Message, "inside another skill") {
				nested++
			}
		}
	}
	rejected, nameRejected, shown, any, missed := nameRecall(skills, findings)
	fmt.Println("| skill folders | rejected by skills-ref | for the name | skill/name-* at warning+ | at any severity | name recall (warning+) |")
	fmt.Println("|---:|---:|---:|---:|---:|---:|")
	fmt.Printf("| %d | %d | %d | %d | %d | %s |\n\n", len(skills), rejected, nameRejected, shown, any, pct(shown, nameRejected))
	if *targets != "" {
		fmt.Println("(name recall is defined with ahpls' default targets; this run sets -targets)")
		fmt.Println()
	}
	fmt.Printf("findings claiming \"inside another skill\": %d (check each has an enclosing SKILL.md)\n\n", nested)
	for i, s := range missed {
		if i == 20 && !*verbose {
			fmt.Printf("… %d more (-v)\n", len(missed)-20)
			break
		}
		fmt.Printf("- %s/%s: %s\n", s.Repo, s.Dir, strings.Join(s.Errors, "; "))
	}
	fmt.Println()
}

func pct(n, d int) string {
	if d == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(d))
}
