package check

// `ahpls rules` and `ahpls check --explain`: what the rule table says about
// each rule, as JSON or as Markdown. The MCP server (package mcpserver)
// serves the same RuleInfo and the same Markdown (its `explain` tool and
// its ahpls://rules/<id> resources), so the CLI and the agents read one text.

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// RuleInfo is one rule as `ahpls rules --format json` prints it.
type RuleInfo struct {
	ID      string `json:"id"`
	Summary string `json:"summary"`
	// Kinds are the file kinds, in the codes of docs/rules.md.
	Kinds string `json:"kinds"`
	// Severity is the rule table's line: how the level follows from each
	// consumer's reaction.
	Severity string `json:"severity"`
	// Levels is, per target, the most severe level the rule table states
	// for it (from Severity and Evidence); a rule whose level depends on
	// the case may report less. A target the table does not name is absent.
	Levels map[model.Target]string `json:"levels"`
	// DefaultLevel is the most severe of Levels over the default targets
	// (vscode-agent-host, agent-skills), "" when neither is named.
	DefaultLevel string `json:"defaultLevel,omitempty"`
	// SetByAhpls: the level is ahpls' own ([I]), no consumer reaction.
	SetByAhpls bool `json:"setByAhpls"`
	// Fix is the fix tier: "safe" (`ahpls check --fix` and the editor's
	// fix-all apply it), "unsafe" (`--fix --unsafe-fixes` and the editor's
	// quick fix only) or "none"; FixWhy says why.
	Fix      string         `json:"fix"`
	FixWhy   string         `json:"fixWhy,omitempty"`
	Evidence []EvidenceInfo `json:"evidence"`
	Href     string         `json:"href"`
}

// EvidenceInfo is one consumer reaction and where it is seen.
type EvidenceInfo struct {
	Consumer string `json:"consumer"`
	Reaction string `json:"reaction"`
	Source   string `json:"source"`
}

// consumerTargets maps a legend code of docs/rules.md to its targets (AP,
// Agent Plugins, has no target of its own). A switch, not a map: a map
// literal is built at package init, on every start of every subcommand.
func consumerTargets(code string) []model.Target {
	switch code {
	case "V":
		return []model.Target{model.TargetVSCode, model.TargetVSCodeAgentHost}
	case "VS":
		return []model.Target{model.TargetVSCode}
	case "VH":
		return []model.Target{model.TargetVSCodeAgentHost}
	case "CC":
		return []model.Target{model.TargetClaudeCode}
	case "CL":
		return []model.Target{model.TargetCopilotCLI}
	case "AS":
		return []model.Target{model.TargetAgentSkills}
	case "UP":
		return []model.Target{model.TargetClaudeUpload}
	}
	return nil
}

// levelPatterns compile on first use: package init runs on every start of
// every subcommand, and only `rules`, `--explain` and the MCP server read
// them.
var (
	patternsOnce sync.Once
	// reactionRe finds "CC REJ", "VH, CC, CL LOSE?", "V ok", "CL ?" in a severity
	// line; allRe "All REJ" (every target); leadLevelRe an [I] line's
	// level ("Warning [I]; …").
	reactionRe, allRe, leadLevelRe *regexp.Regexp
)

func compilePatterns() {
	reactionRe = regexp.MustCompile(`\b((?:V|VS|VH|CC|CL|AS|UP)(?:, (?:V|VS|VH|CC|CL|AS|UP))*) (SKIP|REJ|LOSE|WARN|IGN|SPEC|SHOULD|ok|\?)(\??)`)
	allRe = regexp.MustCompile(`\bAll (SKIP|REJ|LOSE|WARN)\b`)
	leadLevelRe = regexp.MustCompile(`\b(Error|Warning|Info|Hint)\b[^;.]*\[I\]`)
}

// ruleLevels derives RuleInfo.Levels from the table's words.
func ruleLevels(r diagnostics.Rule) (map[model.Target]string, bool) {
	patternsOnce.Do(compilePatterns)
	worst := map[model.Target]model.Severity{}
	note := func(t model.Target, reaction string) {
		s, ok := model.Reaction(strings.ToLower(reaction)).Severity()
		if !ok {
			return
		}
		if prev, seen := worst[t]; !seen || s < prev { // Error is 1
			worst[t] = s
		}
	}
	for _, m := range reactionRe.FindAllStringSubmatch(r.Severity, -1) {
		for _, code := range strings.Split(m[1], ", ") {
			for _, t := range consumerTargets(code) {
				note(t, m[2]+m[3])
			}
		}
	}
	for _, m := range allRe.FindAllStringSubmatch(r.Severity, -1) {
		for _, t := range model.AllTargets {
			note(t, m[1])
		}
	}
	for _, e := range r.Evidence {
		word, _, _ := strings.Cut(strings.TrimSpace(e.Reaction), " ")
		for _, t := range consumerTargets(e.Consumer) {
			note(t, strings.TrimSuffix(word, ":"))
		}
	}
	own := false
	if m := leadLevelRe.FindStringSubmatch(r.Severity); m != nil {
		own = true
		if len(worst) == 0 {
			s, _ := model.ParseSeverity(strings.ToLower(m[1]))
			for _, t := range model.AllTargets {
				worst[t] = s
			}
		}
	}
	out := make(map[model.Target]string, len(worst))
	for t, s := range worst {
		out[t] = s.String()
	}
	return out, own
}

// RuleInfoOf is the rule table's entry for one rule.
func RuleInfoOf(r diagnostics.Rule) RuleInfo {
	levels, own := ruleLevels(r)
	info := RuleInfo{ID: r.ID, Summary: r.Summary, Kinds: r.Kinds, Severity: r.Severity,
		Levels: levels, SetByAhpls: own, Fix: r.Fix.String(), FixWhy: r.FixWhy, Evidence: []EvidenceInfo{}, Href: model.RuleHref(r.ID)}
	var best model.Severity
	for _, t := range model.DefaultTargets {
		if l, ok := levels[t]; ok {
			if s, _ := model.ParseSeverity(l); best == 0 || s < best {
				best = s
			}
		}
	}
	if best != 0 {
		info.DefaultLevel = best.String()
	}
	for _, e := range r.Evidence {
		info.Evidence = append(info.Evidence, EvidenceInfo(e))
	}
	return info
}

// RuleInfos is every rule, sorted by id.
func RuleInfos() []RuleInfo {
	rules := diagnostics.Rules()
	out := make([]RuleInfo, 0, len(rules))
	for _, r := range rules {
		out = append(out, RuleInfoOf(r))
	}
	return out
}

// ErrUnknownRule is returned for a rule id not in the table.
var ErrUnknownRule = errors.New("unknown rule")

// LookupRuleInfo finds one rule; the error names the id and where the
// list is.
func LookupRuleInfo(id string) (RuleInfo, error) {
	r, ok := diagnostics.LookupRule(strings.TrimSpace(id))
	if !ok {
		return RuleInfo{}, fmt.Errorf("%w %q: `ahpls rules` lists every rule id (e.g. skill/name-dir)", ErrUnknownRule, id)
	}
	return RuleInfoOf(r), nil
}

// ExplainMarkdown is a rule's documentation with its evidence, as Markdown:
// the text of `ahpls check --explain`, the MCP `explain` tool and the
// ahpls://rules/<id> resource.
func ExplainMarkdown(info RuleInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n\n", info.ID, info.Summary)
	if info.Kinds != "" {
		fmt.Fprintf(&b, "- **Kinds:** %s\n", info.Kinds)
	}
	if info.Severity != "" {
		fmt.Fprintf(&b, "- **Severity:** %s\n", info.Severity)
	}
	if len(info.Levels) > 0 {
		var parts []string
		for _, t := range model.AllTargets {
			if l, ok := info.Levels[t]; ok {
				parts = append(parts, fmt.Sprintf("%s %s", t, l))
			}
		}
		fmt.Fprintf(&b, "- **Level per target (most severe case):** %s\n", strings.Join(parts, ", "))
	}
	switch info.Fix {
	case "safe":
		fmt.Fprintf(&b, "- **Fix:** safe, so `ahpls check --fix` and the editor's fix-all apply it: %s.\n", info.FixWhy)
	case "unsafe":
		fmt.Fprintf(&b, "- **Fix:** unsafe, so only `ahpls check --fix --unsafe-fixes` or a quick fix picked in the editor applies it: %s.\n", info.FixWhy)
	default:
		b.WriteString("- **Fix:** none.\n")
	}
	if len(info.Evidence) > 0 {
		b.WriteString("- **Evidence:**\n")
		for _, e := range info.Evidence {
			fmt.Fprintf(&b, "  - %s %s: %s\n", e.Consumer, e.Reaction, e.Source)
		}
	} else if info.SetByAhpls {
		b.WriteString("- **Evidence:** none needed: ahpls sets this level itself ([I]).\n")
	}
	fmt.Fprintf(&b, "\nMore: %s\n", info.Href)
	return b.String()
}

// writeExplain prints `ahpls check --explain id`.
func writeExplain(stdout, stderr io.Writer, id string) int {
	info, err := LookupRuleInfo(id)
	if err != nil {
		fmt.Fprintf(stderr, "ahpls check: --explain: %v\n", err)
		return exitUsage
	}
	if _, err := io.WriteString(stdout, ExplainMarkdown(info)); err != nil {
		return ioError(stderr, err)
	}
	return exitClean
}

// RulesMain runs `ahpls rules [--format text|json]`: every rule with its
// kinds, level per target and fix tier.
func RulesMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ahpls rules", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "output format: text or json")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitClean
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ahpls rules: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	infos := RuleInfos()
	switch *format {
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(infos); err != nil {
			return ioError(stderr, err)
		}
	case "text":
		for _, r := range infos {
			lvl := r.DefaultLevel
			if lvl == "" {
				lvl = "-"
			}
			if _, err := fmt.Fprintf(stdout, "%-28s %-8s fix:%-6s %s\n", r.ID, lvl, r.Fix, r.Kinds); err != nil {
				return ioError(stderr, err)
			}
		}
	default:
		fmt.Fprintf(stderr, "ahpls rules: --format %q is not text or json\n", *format)
		return exitUsage
	}
	return exitClean
}
