package model

import (
	"path"
	"sort"
	"strings"
)

// Target is a consumer of customization files whose real reaction to a
// mistake decides how loudly ahpls reports it (customization-formats.md §1).
type Target string

const (
	TargetVSCodeAgentHost Target = "vscode-agent-host" // VH
	TargetVSCode          Target = "vscode"            // VS
	TargetClaudeCode      Target = "claude-code"       // CC
	TargetCopilotCLI      Target = "copilot-cli"       // CL
	TargetAgentSkills     Target = "agent-skills"      // AS
	TargetClaudeUpload    Target = "claude-upload"     // UP, opt-in
)

// ConsumerSpec is one consumer as a value: what it is called, whether it
// is a default target, what it reads and installs and where its behaviour
// is seen. AllTargets, DefaultTargets, KnownTarget, DisplayName, the
// documentation order of targets, the evidence codes of the rule table and
// the editors' `ahpls.targets` enum are all read from Consumers, so a new
// consumer is one entry here (and its reactions in the rules it changes).
type ConsumerSpec struct {
	Target Target
	// Name is the plain consumer name used in messages.
	Name string
	// Code is its code in docs/rules.md's legend and in rules' evidence.
	Code string
	// Groups are legend codes that stand for several consumers at once
	// ("V": both VS Code targets).
	Groups []string
	// Default: the consumer is a target when `ahpls.targets` is unset.
	Default bool
	// OptIn: the consumer is a target only when named (no path implies
	// it, see ImpliedTable).
	OptIn bool
	// Legend names the consumer in docs/rules.md's legend when that says
	// more than Name (other products that read files alike).
	Legend string
	// Reads names the paths and manifests the consumer loads.
	Reads []string
	// Install says how a plugin or file reaches it.
	Install string
	// Evidence is where its behaviour is seen (source, validator, spec).
	Evidence string
	// Fields lists, per kind, the header or JSON fields the consumer uses;
	// nil until rules read it from here.
	Fields map[Kind][]string
}

// Consumers is every known target, in documentation order.
var Consumers = []ConsumerSpec{
	{Target: TargetVSCodeAgentHost, Name: "the VS Code agent host", Code: "VH", Groups: []string{"V"}, Default: true,
		Reads:    []string{".github/{agents,prompts,instructions,skills}/", ".claude/{agents,skills}/", ".agents/skills/", "AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md", "plugins (all four manifest locations)"},
		Install:  "plugins published to its sessions (virtual plugins over AHP) or installed from a marketplace",
		Evidence: "the agent host's parsers in microsoft/vscode; the repros of issue #13"},
	{Target: TargetVSCode, Name: "VS Code", Code: "VS", Groups: []string{"V"},
		Reads:    []string{".github/{agents,prompts,instructions,skills}/", ".claude/{agents,skills,settings*.json}", "AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md", "plugins (all four manifest locations)"},
		Install:  "workspace files by location; plugins from chat.plugins marketplaces",
		Evidence: "microsoft/vscode src/vs/workbench/contrib/chat (promptValidator.ts, promptFileLocations.ts)"},
	{Target: TargetClaudeCode, Name: "Claude Code", Code: "CC",
		Reads:    []string{".claude/{agents,commands,output-styles,rules,skills}/", ".claude/settings*.json", "CLAUDE.md", "CLAUDE.local.md", ".mcp.json", ".claude-plugin/plugin.json", ".claude-plugin/marketplace.json"},
		Install:  "plugins from a marketplace (`/plugin marketplace add`); project files by location",
		Evidence: "@anthropic-ai/claude-code 2.1.332 (`claude plugin validate DIR --json`, its loaders)"},
	{Target: TargetCopilotCLI, Name: "Copilot CLI", Code: "CL", Legend: "Copilot CLI and the GitHub.com cloud agent",
		Reads:    []string{".github/{agents,skills,hooks}/", ".github/plugin/plugin.json", ".github/plugin/marketplace.json", "plugin.json", "AGENTS.md"},
		Install:  "a folder with a root plugin.json, or from a marketplace",
		Evidence: "GitHub's Copilot CLI documentation (no source to run): reactions without evidence are Info at most"},
	{Target: TargetAgentSkills, Name: "the Agent Skills spec", Code: "AS", Default: true,
		Reads:    []string{"SKILL.md and its folder"},
		Install:  "none: a specification and its reference validator",
		Evidence: "agentskills.io specification and skills-ref (agentskills/agentskills)"},
	{Target: TargetClaudeUpload, Name: "claude.ai upload", Code: "UP", OptIn: true, Legend: "claude.ai upload and the Skills API",
		Reads:    []string{"SKILL.md and its folder (a zip upload)"},
		Install:  "a skill uploaded to claude.ai or the Skills API",
		Evidence: "anthropics/skills skill-creator/scripts/quick_validate.py"},
}

// AllTargets lists every known target id in documentation order.
var AllTargets = func() []Target {
	out := make([]Target, len(Consumers))
	for i, c := range Consumers {
		out[i] = c.Target
	}
	return out
}()

// DefaultTargets is what `ahpls.targets` means when unset or empty.
var DefaultTargets = func() []Target {
	var out []Target
	for _, c := range Consumers {
		if c.Default {
			out = append(out, c.Target)
		}
	}
	return out
}()

// Spec returns the target's entry of Consumers.
func (t Target) Spec() (ConsumerSpec, bool) {
	for _, c := range Consumers {
		if c.Target == t {
			return c, true
		}
	}
	return ConsumerSpec{}, false
}

// KnownTarget reports whether id names a target.
func KnownTarget(id string) bool {
	_, ok := Target(id).Spec()
	return ok
}

// DisplayName is the plain consumer name used in messages.
func (t Target) DisplayName() string {
	if c, ok := t.Spec(); ok {
		return c.Name
	}
	return string(t)
}

// TargetsOfCode returns the targets an evidence code of the legend covers:
// a consumer's own code or a group code; nil for an unknown code. The
// caller must not change the slice.
func TargetsOfCode(code string) []Target { return codeTargets[code] }

var codeTargets = func() map[string][]Target {
	m := map[string][]Target{}
	for _, c := range Consumers {
		for _, code := range append([]string{c.Code}, c.Groups...) {
			m[code] = append(m[code], c.Target)
		}
	}
	return m
}()

// Reaction is what a consumer does with a mistake. A trailing "?" marks an
// unverified reaction; a bare "?" means unknown.
type Reaction string

const (
	Skip    Reaction = "skip"   // silently not loaded
	Reject  Reaction = "rej"    // loud failure
	Lose    Reaction = "lose"   // loads, something silently dropped
	Warn    Reaction = "warn"   // loads, the consumer warns
	Ignore  Reaction = "ign"    // unsupported field ignored
	Spec    Reaction = "spec"   // only spec text forbids it
	Should  Reaction = "should" // spec recommendation
	OK      Reaction = "ok"     // accepted
	Unknown Reaction = "?"
)

// Unverified marks r as a guess ("rej" → "rej?").
func (r Reaction) Unverified() Reaction {
	if r == Unknown || strings.HasSuffix(string(r), "?") {
		return r
	}
	return r + "?"
}

// Severity maps a reaction to a diagnostic severity; report is false for
// reactions that deserve no diagnostic. Unverified reactions cap at Warning
// and an unknown one at Info: never an Error on a guess.
func (r Reaction) Severity() (s Severity, report bool) {
	if r == Unknown {
		return SeverityInfo, true
	}
	base, guessed := strings.CutSuffix(string(r), "?")
	switch Reaction(base) {
	case Skip, Reject:
		s = SeverityError
	case Lose, Warn:
		s = SeverityWarning
	case Ignore, Should:
		s = SeverityHint
	case Spec:
		s = SeverityInfo
	default:
		return 0, false
	}
	if guessed && s < SeverityWarning {
		s = SeverityWarning
	}
	return s, true
}

// Verdicts holds every target's reaction to one finding.
type Verdicts map[Target]Reaction

// V is shorthand for the two VS Code targets that react alike.
func V(r Reaction) Verdicts {
	return Verdicts{TargetVSCode: r, TargetVSCodeAgentHost: r}
}

// With returns a copy of v with more verdicts added.
func (v Verdicts) With(more Verdicts) Verdicts {
	out := make(Verdicts, len(v)+len(more))
	for t, r := range v {
		out[t] = r
	}
	for t, r := range more {
		out[t] = r
	}
	return out
}

// Decide returns the severity over the effective targets (the most severe
// one wins), the targets that drove it (most severe first, then by
// documentation order) and whether anything is to be reported at all.
func (v Verdicts) Decide(effective []Target) (sev Severity, by []Target, report bool) {
	for _, t := range effective {
		r, ok := v[t]
		if !ok {
			continue
		}
		s, rep := r.Severity()
		if !rep {
			continue
		}
		switch {
		case !report || s < sev:
			sev, by, report = s, []Target{t}, true
		case s == sev:
			by = append(by, t)
		}
	}
	sort.SliceStable(by, func(i, j int) bool { return targetOrder(by[i]) < targetOrder(by[j]) })
	return sev, by, report
}

func targetOrder(t Target) int {
	for i, x := range AllTargets {
		if x == t {
			return i
		}
	}
	return len(AllTargets)
}

// EffectiveTargets is the configured target set plus the families a file's
// path implies (`ahpls.impliedTargets`, ImpliedTable): `.claude/**`,
// `.claude-plugin/**`, `CLAUDE*.md` and Claude plugins add claude-code;
// `.github/plugin/**` and Copilot plugins add copilot-cli. Callers with a
// layout use EffectiveTargetsIn, which also knows whether a Claude
// marketplace lists the plugin; the hooks rules add copilot-cli for a hooks
// file in Copilot CLI's format themselves (that needs the content).
func EffectiveTargets(configured []Target, implied bool, rel string, pluginFormat PluginFormat) []Target {
	if len(configured) == 0 {
		configured = DefaultTargets
	}
	out := append([]Target(nil), configured...)
	if !implied {
		return out
	}
	add := func(t Target) {
		for _, x := range out {
			if x == t {
				return
			}
		}
		out = append(out, t)
	}
	base := path.Base(rel)
	if hasSeg(rel, ".claude") || hasSeg(rel, ".claude-plugin") { // claude-dir, claude-plugin-dir
		add(TargetClaudeCode)
	}
	if strings.HasPrefix(base, "CLAUDE") && strings.HasSuffix(base, ".md") { // claude-md
		add(TargetClaudeCode)
	}
	if hasSeg(rel, ".github/plugin") { // copilot-plugin-dir
		add(TargetCopilotCLI)
	}
	switch pluginFormat {
	case FormatClaude:
		add(TargetClaudeCode)
	case FormatCopilot:
		add(TargetCopilotCLI)
	}
	return out
}
