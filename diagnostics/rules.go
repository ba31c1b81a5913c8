package diagnostics

import (
	"slices"
	"sort"

	"github.com/ahpls-dev/ahpls/model"
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

// FixTierOf is the tier of one fix of a finding of rule: the rule's tier,
// but unsafe for a fix the fix guard (fixguard.go) demoted.
func FixTierOf(rule string, fx *model.Fix) FixTier {
	r, ok := LookupRule(rule)
	if !ok {
		return FixNone
	}
	if r.Fix == FixSafe && fx != nil && fx.Demoted != "" {
		return FixUnsafe
	}
	return r.Fix
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

// Checker binds a file kind to its check function and the rules that
// check reports: the one value a kind's rules hang from. builtinChecker and
// ruleTable are read from checkers, so a new kind's rules are one Checker
// in the list below.
type Checker struct {
	Kind  model.Kind
	Rules []*Rule
	Check func(File, *reporter)
}

// checkers is every kind's checker, in model.Kinds order. It is set in
// init, as ruleTable is: a check function looks rules up (the config
// checker validates rule ids), which a package-level initializer may not.
var checkers []Checker

func init() {
	checkers = []Checker{
		{model.KindSkill, skillRules, checkSkill},
		{model.KindAgent, agentRules, checkAgent},
		{model.KindClaudeAgent, claudeAgentRules, checkClaudeAgent},
		{model.KindPrompt, promptRules, checkPrompt},
		{model.KindCommand, commandRules, checkCommand},
		{model.KindInstructions, instructionRules, checkInstructions},
		{model.KindRule, claudeRuleRules, checkRule},
		{model.KindMemory, memoryRules, checkMemory},
		{model.KindPlugin, pluginRules, checkPluginManifest},
		{model.KindMarketplace, marketplaceRules, checkMarketplace},
		{model.KindSettings, settingsRules, checkSettings},
		{model.KindHooks, hookRules, checkHooksFile},
		{model.KindMCP, mcpRules, checkMCPFile},
		{model.KindTools, toolsRules, checkToolsConfig},
		{model.KindConfig, configRules, checkAhplsConfig},
		{model.KindOutputStyle, outputStyleRules, checkOutputStyle},
		{model.KindSetupSteps, setupRules, checkSetupSteps},
		{model.KindCursorRule, cursorRules, checkCursorRule},
		{model.KindGeminiCmd, geminiCmdRules, checkGeminiCommand},
		{model.KindGeminiExt, geminiExtRules, checkGeminiExtension},
		{model.KindCodexPlugin, codexPluginRules, checkCodexPlugin},
		{model.KindKiroSteering, kiroRules, checkKiroSteering},
		{model.KindWindsurfRule, windsurfRules, checkWindsurfRule},
		{model.KindCodexMarket, codexMarketRules, checkCodexMarketplace},
		{model.KindCursorPlugin, cursorPluginRules, checkCursorPlugin},
		{model.KindCursorMarket, cursorMarketRules, checkCursorMarketplace},
		{model.KindCursorMCP, cursorMCPRules, checkCursorMCP},
		{model.KindClineRule, clineRules, checkClineRule},
		{model.KindRooRule, rooRules, checkRooRule},
		{model.KindOCConfig, openCodeConfigRules, checkOpenCodeConfig},
		{model.KindOCAgent, openCodeAgentRules, checkOpenCodeAgent},
		{model.KindOCCommand, openCodeCommandRules, checkOpenCodeCommand},
	}
	ruleTable = joinRules(sharedRules, checkers)
}

// sharedRules are the rule groups no single kind owns: every file, the
// shared readers of headers, JSON, links and fields, and the rules that
// compare files or scan any kind.
var sharedRules = [][]*Rule{fileRules, headerRules, jsonRules, linkRules, fieldRules,
	crossFileRules, duplicateRules, suppressRules, securityRules, toolNameRules}

// ruleTable is every built-in rule: the shared groups and each checker's.
var ruleTable []*Rule

func joinRules(shared [][]*Rule, cs []Checker) []*Rule {
	groups := slices.Clone(shared)
	for _, c := range cs {
		groups = append(groups, c.Rules)
	}
	return slices.Concat(groups...)
}

// fileRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var fileRules = []*Rule{fileTooLarge, fileUnreadable, fileEncoding, internalError}

var fileTooLarge = &Rule{
	ID:        "file/too-large",
	WholeFile: true,
	Summary:   "The file is larger than ahpls checks (4 MiB).",
	Kinds:     "every kind",
	Severity:  "Warning [I]; the file is not parsed.",
}

var fileUnreadable = &Rule{
	ID:        "file/unreadable",
	WholeFile: true,
	Summary:   "The file is not a regular file inside the workspace folder (a FIFO, a device, a symlink loop or a symlink out of the folder), so ahpls did not read it.",
	Kinds:     "every kind",
	Severity:  "Warning [I]; the file is not opened (a FIFO would block, a device never ends, a link out of the folder is not the workspace's).",
}

var fileEncoding = &Rule{
	ID:        "file/encoding",
	WholeFile: true,
	Summary:   "The file is not valid UTF-8 or contains a NUL byte; agents read customization files as UTF-8 text.",
	Kinds:     "every kind",
	Severity:  "Error [I]; nothing else is reported.",
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
