package diagnostics

import (
	"slices"
	"sort"

	"github.com/ahpls-dev/ahpls/diagnostics/claude"
	"github.com/ahpls-dev/ahpls/diagnostics/cline"
	"github.com/ahpls-dev/ahpls/diagnostics/copilot"
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/shared"
	"github.com/ahpls-dev/ahpls/diagnostics/cursor"
	"github.com/ahpls-dev/ahpls/diagnostics/gemini"
	"github.com/ahpls-dev/ahpls/diagnostics/kiro"
	"github.com/ahpls-dev/ahpls/diagnostics/memory"
	"github.com/ahpls-dev/ahpls/diagnostics/opencode"
	"github.com/ahpls-dev/ahpls/diagnostics/plugins"
	"github.com/ahpls-dev/ahpls/diagnostics/roo"
	"github.com/ahpls-dev/ahpls/diagnostics/skills"
	"github.com/ahpls-dev/ahpls/diagnostics/windsurf"
	"github.com/ahpls-dev/ahpls/model"
)

// FixTierOf is the tier of one fix of a finding of rule: the rule's tier,
// but unsafe for a fix the fix guard (fixguard.go) demoted.
func FixTierOf(rule string, fx *model.Fix) core.FixTier {
	r, ok := LookupRule(rule)
	if !ok {
		return core.FixNone
	}
	if r.Fix == core.FixSafe && fx != nil && fx.Demoted != "" {
		return core.FixUnsafe
	}
	return r.Fix
}

// checkers is every kind's checker, in model.Kinds order. It is set in
// init, as ruleTable is: a check function looks rules up (the config
// checker validates rule ids), which a package-level initializer may not.
var checkers []core.Checker

func init() {
	checkers = []core.Checker{
		{Kind: model.KindSkill, Rules: skills.SkillRules, Check: skills.CheckSkill},
		{Kind: model.KindAgent, Rules: copilot.AgentRules, Check: copilot.CheckAgent},
		{Kind: model.KindClaudeAgent, Rules: claude.ClaudeAgentRules, Check: claude.CheckClaudeAgent},
		{Kind: model.KindPrompt, Rules: copilot.PromptRules, Check: copilot.CheckPrompt},
		{Kind: model.KindCommand, Rules: skills.CommandRules, Check: skills.CheckCommand},
		{Kind: model.KindInstructions, Rules: copilot.InstructionRules, Check: copilot.CheckInstructions},
		{Kind: model.KindRule, Rules: claude.ClaudeRuleRules, Check: claude.CheckRule},
		{Kind: model.KindMemory, Rules: memory.MemoryRules, Check: memory.CheckMemory},
		{Kind: model.KindPlugin, Rules: plugins.PluginRules, Check: plugins.CheckPluginManifest},
		{Kind: model.KindMarketplace, Rules: plugins.MarketplaceRules, Check: plugins.CheckMarketplace},
		{Kind: model.KindSettings, Rules: plugins.SettingsRules, Check: plugins.CheckSettings},
		{Kind: model.KindHooks, Rules: shared.HookRules, Check: shared.CheckHooksFile},
		{Kind: model.KindMCP, Rules: shared.MCPRules, Check: shared.CheckMCPFile},
		{Kind: model.KindTools, Rules: toolsRules, Check: checkToolsConfig},
		{Kind: model.KindConfig, Rules: configRules, Check: checkAhplsConfig},
		{Kind: model.KindOutputStyle, Rules: claude.OutputStyleRules, Check: claude.CheckOutputStyle},
		{Kind: model.KindSetupSteps, Rules: copilot.SetupRules, Check: copilot.CheckSetupSteps},
		{Kind: model.KindCursorRule, Rules: cursor.CursorRules, Check: cursor.CheckCursorRule},
		{Kind: model.KindGeminiCmd, Rules: gemini.GeminiCmdRules, Check: gemini.CheckGeminiCommand},
		{Kind: model.KindGeminiExt, Rules: gemini.GeminiExtRules, Check: gemini.CheckGeminiExtension},
		{Kind: model.KindCodexPlugin, Rules: plugins.CodexPluginRules, Check: plugins.CheckCodexPlugin},
		{Kind: model.KindKiroSteering, Rules: kiro.KiroRules, Check: kiro.CheckKiroSteering},
		{Kind: model.KindWindsurfRule, Rules: windsurf.WindsurfRules, Check: windsurf.CheckWindsurfRule},
		{Kind: model.KindWindsurfFlow, Rules: windsurf.WorkflowRules, Check: windsurf.CheckWorkflow},
		{Kind: model.KindCodexMarket, Rules: plugins.CodexMarketRules, Check: plugins.CheckCodexMarketplace},
		{Kind: model.KindCursorPlugin, Rules: cursor.CursorPluginRules, Check: cursor.CheckCursorPlugin},
		{Kind: model.KindCursorMarket, Rules: cursor.CursorMarketRules, Check: cursor.CheckCursorMarketplace},
		{Kind: model.KindCursorMCP, Rules: cursor.CursorMCPRules, Check: cursor.CheckCursorMCP},
		{Kind: model.KindClineRule, Rules: cline.ClineRules, Check: cline.CheckClineRule},
		{Kind: model.KindRooRule, Rules: roo.RooRules, Check: roo.CheckRooRule},
		{Kind: model.KindRooModes, Rules: roo.RooModesRules, Check: roo.CheckRooModes},
		{Kind: model.KindOCConfig, Rules: opencode.OpenCodeConfigRules, Check: opencode.CheckOpenCodeConfig},
		{Kind: model.KindOCAgent, Rules: opencode.OpenCodeAgentRules, Check: opencode.CheckOpenCodeAgent},
		{Kind: model.KindOCCommand, Rules: opencode.OpenCodeCommandRules, Check: opencode.CheckOpenCodeCommand},
	}
	ruleTable = joinRules(sharedRules, checkers)
}

// sharedRules are the rule groups no single kind owns: every file, the
// shared readers of headers, JSON, links and fields, and the rules that
// compare files or scan any kind.
var sharedRules = [][]*core.Rule{fileRules, core.HeaderRules, core.JSONRules, shared.LinkRules, core.FieldRules,
	plugins.CrossFileRules, shared.DuplicateRules, suppressRules, shared.SecurityRules, shared.ToolNameRules}

// ruleTable is every built-in rule: the shared groups and each checker's.
var ruleTable []*core.Rule

func joinRules(shared [][]*core.Rule, cs []core.Checker) []*core.Rule {
	groups := slices.Clone(shared)
	for _, c := range cs {
		groups = append(groups, c.Rules)
	}
	return slices.Concat(groups...)
}

// fileRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var fileRules = []*core.Rule{fileTooLarge, fileUnreadable, fileEncoding, internalError}

var fileTooLarge = &core.Rule{
	ID:        "file/too-large",
	WholeFile: true,
	Summary:   "The file is larger than ahpls checks (4 MiB).",
	Kinds:     "every kind",
	Severity:  "Warning [I]; the file is not parsed.",
}

var fileUnreadable = &core.Rule{
	ID:        "file/unreadable",
	WholeFile: true,
	Summary:   "The file is not a regular file inside the workspace folder (a FIFO, a device, a symlink loop or a symlink out of the folder), so ahpls did not read it.",
	Kinds:     "every kind",
	Severity:  "Warning [I]; the file is not opened (a FIFO would block, a device never ends, a link out of the folder is not the workspace's).",
}

var fileEncoding = &core.Rule{
	ID:        "file/encoding",
	WholeFile: true,
	Summary:   "The file is not valid UTF-8 or contains a NUL byte; agents read customization files as UTF-8 text.",
	Kinds:     "every kind",
	Severity:  "Error [I]; nothing else is reported.",
}

var internalError = &core.Rule{
	ID:       "internal/error",
	Summary:  "A rule failed on input it did not expect; ahpls reports the file as unchecked instead of crashing.",
	Kinds:    "every kind",
	Severity: "Warning [I]; please report it with the file.",
}

// Rules lists every rule, sorted by id.
func Rules() []core.Rule {
	out := make([]core.Rule, 0, len(ruleTable))
	for _, r := range ruleTable {
		out = append(out, *r)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// LookupRule returns a rule's metadata.
func LookupRule(id string) (core.Rule, bool) {
	for _, r := range ruleTable {
		if r.ID == id {
			return *r, true
		}
	}
	return core.Rule{}, false
}
