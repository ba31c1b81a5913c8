package core

import "github.com/ahpls-dev/ahpls/model"

// Rule is one rule: its id, what hover, SARIF and docs/rules.md say about
// it, the evidence behind its severity and its fix tier. Each rule is a
// variable at the top of the checker file that reports it, listed in that
// file's <file>Rules group, and findings are reported through the variable
// (m.Report(skillNameDir, …)), so an unknown rule is a compile error and a
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
	// NameClash: the rule reports a name another item already took (its
	// first Related location is that item), so `ahpls list` shows the item
	// as shadowed rather than failing.
	NameClash bool
	// WholeFile: the rule is about the whole file, not one entry of it
	// (unparsable JSON, a wrong shape), so a consumer that refuses for it
	// refuses every item the file holds.
	WholeFile bool
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
	MDKinds       = "skill, agent, ccagent, prompt, cmd, instr, rule, memory"
	jsonKinds     = "plugin, market, hooks, mcp, settings"
	vsKinds       = "skill, agent, prompt, instr"
	HookKinds     = "hooks, settings (`hooks`), agent/ccagent/skill/cmd frontmatter `hooks:`"
)

// Checker binds a file kind to its check function and the rules that
// check reports: the one value a kind's rules hang from. builtinChecker and
// ruleTable are read from checkers, so a new kind's rules are one Checker
// in the list below.
type Checker struct {
	Kind  model.Kind
	Rules []*Rule
	Check func(File, *Reporter)
}
