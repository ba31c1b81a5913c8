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

// AllTargets lists every known target id in documentation order.
var AllTargets = []Target{TargetVSCodeAgentHost, TargetVSCode, TargetClaudeCode, TargetCopilotCLI, TargetAgentSkills, TargetClaudeUpload}

// DefaultTargets is what `ahpls.targets` means when unset or empty.
var DefaultTargets = []Target{TargetVSCodeAgentHost, TargetAgentSkills}

// KnownTarget reports whether id names a target.
func KnownTarget(id string) bool {
	for _, t := range AllTargets {
		if string(t) == id {
			return true
		}
	}
	return false
}

// DisplayName is the plain consumer name used in messages.
func (t Target) DisplayName() string {
	switch t {
	case TargetVSCodeAgentHost:
		return "the VS Code agent host"
	case TargetVSCode:
		return "VS Code"
	case TargetClaudeCode:
		return "Claude Code"
	case TargetCopilotCLI:
		return "Copilot CLI"
	case TargetAgentSkills:
		return "the Agent Skills spec"
	case TargetClaudeUpload:
		return "claude.ai upload"
	}
	return string(t)
}

// Reaction is what a consumer does with a mistake. A trailing "?" marks an
// unverified reaction; a bare "?" means unknown.
type Reaction string

const (
	Skip         Reaction = "skip"     // the file is silently not loaded
	Reject       Reaction = "rej"      // loud failure: the file or plugin does not load
	NoHeader     Reaction = "noheader" // loads with its whole header dropped (empty metadata)
	Drop         Reaction = "drop"     // loads, one entry of it is dropped (never runs)
	Lose         Reaction = "lose"     // loads, fields silently dropped, cut or changed
	Warn         Reaction = "warn"     // loads, the consumer warns
	Ignore       Reaction = "ign"      // unsupported field ignored
	ShadowedBy   Reaction = "shadowed" // another file of the same name wins
	Wins         Reaction = "wins"     // this file wins over another of the same name
	Undiscovered Reaction = "undiscovered"
	LinkedOnly   Reaction = "linked" // not discovered, read through a link of another file
	Spec         Reaction = "spec"   // only spec text forbids it
	Should       Reaction = "should" // spec recommendation
	OK           Reaction = "ok"     // accepted
	Unknown      Reaction = "?"
)

func splitGuess(r Reaction) (Reaction, bool) {
	base, guessed := strings.CutSuffix(string(r), "?")
	return Reaction(base), guessed
}

// Unverified marks r as a guess ("rej" → "rej?").
func (r Reaction) Unverified() Reaction {
	if r == Unknown || strings.HasSuffix(string(r), "?") {
		return r
	}
	return r + "?"
}

// Severity maps a reaction to a diagnostic severity when the consumer uses
// what is lost; report is false for reactions that deserve no diagnostic.
func (r Reaction) Severity() (s Severity, report bool) { return r.Level(true) }

// Level maps a reaction to a severity through its consequence
// (Consequence.Level); used says whether the consumer uses what the finding
// loses. Unverified reactions cap at Warning and an unknown one is Info:
// never an Error on a guess.
func (r Reaction) Level(used bool) (s Severity, report bool) {
	if r == Unknown {
		return SeverityInfo, true
	}
	c, ok := r.Consequence()
	if !ok {
		return 0, false
	}
	s = c.Level(used)
	if _, guessed := splitGuess(r); guessed && s < SeverityWarning {
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
	return v.DecideUsing(effective, nil)
}

// DecideUsing is Decide where used(t) says whether consumer t uses what the
// finding loses (nil: every consumer does).
func (v Verdicts) DecideUsing(effective []Target, used func(Target) bool) (sev Severity, by []Target, report bool) {
	for _, t := range effective {
		r, ok := v[t]
		if !ok {
			continue
		}
		s, rep := r.Level(used == nil || used(t))
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
