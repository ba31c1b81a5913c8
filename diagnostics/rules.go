package diagnostics

import (
	"slices"
	"sort"
)

// Rule is one rule: its id, what hover, SARIF and docs/rules.md say about
// it, the evidence behind its severity and its fix tier. Each rule is a
// variable at the top of the checker file that reports it, listed in that
// file's <file>Rules group, and findings are reported through the variable
// (m.report(skillNameDir, …)), so an unknown rule is a compile error and a
// new rule is one value and one report call in one file.
type Rule struct {
	ID      string // e.g. "skill/name-charset"
	Summary string // one line: what the rule checks
	// Kinds lists the file kinds the rule applies to, in the codes of
	// docs/rules.md ("skill, cmd").
	Kinds string
	// Severity says in one line how the severity follows from each
	// consumer's reaction (codes in the legend of docs/rules.md), or that
	// ahpls sets it itself ([I]).
	Severity string
	// Evidence backs the reactions Severity claims: for each consumer, where
	// its behaviour is seen (a function in its source, a validator's
	// message, a spec line).
	Evidence []Evidence
	// Fix is the tier of the rule's quick fix (the preferred one, or the
	// only one): FixSafe changes the form and never the meaning, so `ahpls
	// check --fix` and the editor's source.fixAll.ahpls apply it unasked;
	// FixUnsafe (a delete, a rename, a guessed text, a changed value) is
	// applied only by `--fix --unsafe-fixes` or picked in the editor.
	Fix FixTier
	// FixWhy says why the fix has its tier (docs/rules.md prints it).
	FixWhy string
}

// FixTier is how freely a rule's quick fix may be applied (as ruff's
// applicability): a rule without a quick fix is FixNone.
type FixTier int

// Fix tiers, from none to the most trusted.
const (
	FixNone FixTier = iota
	FixUnsafe
	FixSafe
)

// String is the tier's name in `ahpls rules` and docs/rules.md.
func (t FixTier) String() string {
	switch t {
	case FixSafe:
		return "safe"
	case FixUnsafe:
		return "unsafe"
	}
	return "none"
}

// Applies reports whether a fix of this tier is applied by a run that
// takes unsafe fixes too (unsafe) or safe ones only.
func (t FixTier) Applies(unsafe bool) bool {
	return t == FixSafe || unsafe && t == FixUnsafe
}

// Evidence is the source of one consumer reaction a rule claims.
type Evidence struct {
	// Consumer is a legend code of docs/rules.md (V, VS, VH, CC, CL, AS, UP, AP).
	Consumer string
	// Reaction is what the consumer does, in the legend's words ("REJ",
	// "ok", "LOSE: cut to 64 characters").
	Reaction string
	// Source is where that is seen: "src/vs/…/file.ts functionName", a
	// validator message in quotes, or a spec section.
	Source string
}

// Document-kind groups used in Kinds.
const (
	mdHeaderKinds = "skill, agent, ccagent, prompt, cmd, instr, rule"
	mdKinds       = "skill, agent, ccagent, prompt, cmd, instr, rule, memory"
	jsonKinds     = "plugin, market, hooks, mcp, settings"
	vsKinds       = "skill, agent, prompt, instr"
	hookKinds     = "hooks, settings (`hooks`), agent/ccagent/skill/cmd frontmatter `hooks:`"
)

// ruleTable is every built-in rule: one group per checker file.
var ruleTable = slices.Concat(fileRules, headerRules, jsonRules, linkRules, fieldRules,
	skillRules, agentRules, claudeAgentRules, promptRules, commandRules, instructionRules,
	claudeRuleRules, memoryRules, pluginRules, marketplaceRules, settingsRules, hookRules,
	mcpRules, crossFileRules, duplicateRules, toolsRules, suppressRules, configRules, securityRules, toolNameRules, outputStyleRules, setupRules,
	cursorRules, geminiCmdRules, geminiExtRules, codexPluginRules)

// fileRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var fileRules = []*Rule{fileTooLarge, fileUnreadable, fileEncoding, internalError}

var fileTooLarge = &Rule{
	ID:       "file/too-large",
	Summary:  "The file is larger than ahpls checks (4 MiB).",
	Kinds:    "every kind",
	Severity: "Warning [I]; the file is not parsed.",
}

var fileUnreadable = &Rule{
	ID:       "file/unreadable",
	Summary:  "The file is not a regular file inside the workspace folder (a FIFO, a device, a symlink loop or a symlink out of the folder), so ahpls did not read it.",
	Kinds:    "every kind",
	Severity: "Warning [I]; the file is not opened (a FIFO would block, a device never ends, a link out of the folder is not the workspace's).",
}

var fileEncoding = &Rule{
	ID:       "file/encoding",
	Summary:  "The file is not valid UTF-8 or contains a NUL byte; agents read customization files as UTF-8 text.",
	Kinds:    "every kind",
	Severity: "Error [I]; nothing else is reported.",
}

var internalError = &Rule{
	ID:       "internal/error",
	Summary:  "A rule failed on input it did not expect; ahpls reports the file as unchecked instead of crashing.",
	Kinds:    "every kind",
	Severity: "Warning [I]; please report it with the file.",
}

// Rules lists every rule, sorted by id.
func Rules() []Rule {
	out := make([]Rule, 0, len(ruleTable))
	for _, r := range ruleTable {
		out = append(out, *r)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// LookupRule returns a rule's metadata.
func LookupRule(id string) (Rule, bool) {
	for _, r := range ruleTable {
		if r.ID == id {
			return *r, true
		}
	}
	return Rule{}, false
}
