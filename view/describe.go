package view

import (
	"github.com/ahpls-dev/ahpls/model"
)

// Description is an item's description as the consumer presents it to the
// model.
type Description struct {
	// Text is what the model sees: cut to Budget when the consumer cuts.
	Text string `json:"text"`
	// Length is the full text's length in characters (code points).
	Length int `json:"length"`
	// Budget is the consumer's per-item cap in characters (0: none known).
	Budget    int  `json:"budget,omitempty"`
	Truncated bool `json:"truncated,omitempty"`
	// BudgetSource says where the number comes from.
	BudgetSource string `json:"budgetSource,omitempty"`
}

// Listing is a consumer's budget for its whole skill listing.
type Listing struct {
	// Chars is what the workspace's loaded skills and commands take.
	Chars  int `json:"chars"`
	Budget int `json:"budget"`
	// Over means descriptions are dropped (least-used skills first) to fit.
	Over   bool   `json:"over,omitempty"`
	Source string `json:"source"`
}

// Claude Code's listing numbers, read from Claude Code 2.1.332's own
// code (the settings schema and the listing builder in the shipped
// binary) and its settings documentation (skillListingMaxDescChars,
// skillListingBudgetFraction):
//   - each entry's text is the description, then " - " and when_to_use
//     when set, cut at skillListingMaxDescChars (default 1536);
//   - the listing's budget is skillListingBudgetFraction (default 0.01) of
//     the context window (200,000 tokens when unknown) at 4 characters a
//     token: 8,000 characters, unless SLASH_COMMAND_TOOL_CHAR_BUDGET is
//     set; an entry costs its name + 4 + its text, entries are joined by a
//     newline; past the budget the least-used skills lose their
//     descriptions.
const (
	ccMaxDescChars  = 1536
	ccListingBudget = 200000 * 4 / 100
	ccSource        = "Claude Code 2.1.332: skillListingMaxDescChars (default 1536), skillListingBudgetFraction (default 0.01 of a 200k-token context at 4 chars/token = 8000 chars)"
	vsSource        = "no cap found: microsoft/vscode promptsServiceImpl.ts computeSkillDiscoveryInfo and promptFileParser.ts pass the description on whole (rule skill/desc-length reports a cut at 1024 from customization-formats.md, not re-traced)"
	asSource        = "agentskills.io specification: description max 1024 characters (a limit for authors; no cut is specified)"
	clSource        = "no documented limit found for Copilot CLI"
)

// describe is the description t shows for a Markdown item with header h.
func describe(t model.Target, kind model.Kind, h header) *Description {
	text := h.description
	if text == "" && h.whenToUse == "" {
		return nil
	}
	d := &Description{}
	switch t {
	case model.TargetClaudeCode:
		if kind == model.KindSkill || kind == model.KindCommand {
			if h.whenToUse != "" {
				if text != "" {
					text += " - " + h.whenToUse
				} else {
					text = h.whenToUse
				}
			}
			d.Budget, d.BudgetSource = ccMaxDescChars, ccSource
		}
	case model.TargetVSCode, model.TargetVSCodeAgentHost:
		if kind == model.KindSkill {
			d.BudgetSource = vsSource
		}
	case model.TargetAgentSkills:
		d.Budget, d.BudgetSource = 1024, asSource
	case model.TargetCopilotCLI:
		d.BudgetSource = clSource
	}
	r := []rune(text)
	d.Length = len(r)
	d.Text = text
	if d.Budget > 0 && len(r) > d.Budget && t == model.TargetClaudeCode {
		d.Text, d.Truncated = string(r[:d.Budget]), true
	}
	return d
}

// listing sums Claude Code's skill listing over the loaded skills and
// commands (nil for other consumers).
func listing(t model.Target, items []Item) *Listing {
	if t != model.TargetClaudeCode {
		return nil
	}
	l := &Listing{Budget: ccListingBudget, Source: ccSource}
	n := 0
	var add func(items []Item)
	add = func(items []Item) {
		for _, it := range items {
			if it.Status == Loads && (it.Category == CatSkills || it.Category == CatCommands) {
				entry := len([]rune(it.Name)) + 4
				if it.Description != nil {
					entry += len([]rune(it.Description.Text))
				}
				l.Chars += entry
				n++
			}
			add(it.Components)
		}
	}
	add(items)
	if n > 1 {
		l.Chars += n - 1
	}
	l.Over = l.Chars > l.Budget
	return l
}
