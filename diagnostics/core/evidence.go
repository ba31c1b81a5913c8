package core

// Evidence or silence (issue #25): a rule may report Error or Warning for a
// consumer only when its rule-table entry names where that consumer's
// reaction is seen (consumer code, validator output, documentation line).
// A Copilot CLI reaction without such an entry is reported as unknown:
// Info at most (gateEvidence). For the other consumers the rule holds in
// TestEvidenceOrSilence over every golden fixture: evidenceDebt lists the
// reactions that predate it and still wait for their evidence to be
// written down; it may only shrink, and no Copilot CLI reaction is in it.

import (
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/model"
)

// backing is how well a rule's reaction for one target is seen.
type backing uint8

const (
	unseen     backing = iota
	documented         // only entries marked unverified ("REJ?"): a documentation line or schema, no observed reaction
	observed           // an entry without "?": consumer code or validator output
)

// backingOf reports how rule's reaction for t is backed (recorded debt
// counts as observed).
func backingOf(rule *Rule, t model.Target) backing {
	b := unseen
	for _, e := range rule.Evidence {
		eb := observed
		if strings.HasSuffix(e.Reaction, "?") {
			eb = documented
		}
		for _, x := range model.TargetsOfCode(e.Consumer) {
			if x == t {
				b = max(b, eb)
			}
		}
	}
	for _, x := range EvidenceDebt()[rule.ID] {
		if x == t {
			b = observed
		}
	}
	return b
}

// HasEvidence reports whether rule's reaction for t has any evidence.
func HasEvidence(rule *Rule, t model.Target) bool { return backingOf(rule, t) != unseen }

// GateEvidence returns v with every Error- or Warning-level Copilot CLI
// reaction that has no evidence turned into model.Unknown (Info at most),
// and one backed only by documentation marked unverified (Warning at
// most). v itself is not changed.
func GateEvidence(rule *Rule, v model.Verdicts) model.Verdicts {
	var out model.Verdicts
	for t, r := range v {
		sev, rep := r.Severity()
		if t != model.TargetCopilotCLI || !rep || sev > model.SeverityWarning {
			continue
		}
		nr := r
		switch backingOf(rule, t) {
		case unseen:
			nr = model.Unknown
		case documented:
			nr = r.Unverified() // a documented requirement, an unseen reaction: Warning at most
		}
		if nr == r {
			continue
		}
		if out == nil {
			out = make(model.Verdicts, len(v))
			for k, x := range v {
				out[k] = x
			}
		}
		out[t] = nr
	}
	if out == nil {
		return v
	}
	return out
}

// EvidenceDebt: reactions ahpls reported before the gate whose evidence is
// not yet written into the rule table. Not for new rules.
var EvidenceDebt = sync.OnceValue(func() map[string][]model.Target {
	return map[string][]model.Target{
		"agent/agents":             {model.TargetVSCodeAgentHost},
		"agent/github-permissions": {model.TargetVSCodeAgentHost},
		"agent/handoff":            {model.TargetVSCodeAgentHost},
		"agent/handoff-key":        {model.TargetVSCode, model.TargetVSCodeAgentHost},
		"agent/target":             {model.TargetVSCodeAgentHost},
		"ccagent/desc-missing":     {model.TargetClaudeCode},
		"ccagent/enum":             {model.TargetClaudeCode, model.TargetVSCodeAgentHost},
		"ccagent/name-missing":     {model.TargetClaudeCode},
		"ccagent/name-skip":        {model.TargetClaudeCode},
		"ccagent/plugin-ignored":   {model.TargetClaudeCode},
		"ccagent/tools":            {model.TargetVSCodeAgentHost},
		"field/bool":               {model.TargetVSCodeAgentHost},
		"field/empty":              {model.TargetVSCodeAgentHost},
		"field/renamed":            {model.TargetVSCodeAgentHost},
		"field/type":               {model.TargetVSCodeAgentHost},
		"field/unknown":            {model.TargetVSCodeAgentHost},
		"fm/bom":                   {model.TargetVSCode, model.TargetVSCodeAgentHost},
		"fm/crlf":                  {model.TargetClaudeUpload},
		"fm/inline-dashes":         {model.TargetClaudeCode},
		"fm/leading-lines":         {model.TargetAgentSkills, model.TargetVSCode, model.TargetVSCodeAgentHost},
		"fm/not-mapping":           {model.TargetClaudeCode, model.TargetVSCode, model.TargetVSCodeAgentHost},
		"fm/unclosed":              {model.TargetAgentSkills, model.TargetVSCode, model.TargetVSCodeAgentHost},
		"hooks/command":            {model.TargetVSCodeAgentHost},
		"hooks/field-form":         {model.TargetClaudeCode, model.TargetVSCode, model.TargetVSCodeAgentHost},
		"hooks/field-type":         {model.TargetVSCode, model.TargetVSCodeAgentHost},
		"hooks/group-key":          {model.TargetVSCodeAgentHost},
		"hooks/shape":              {model.TargetVSCode, model.TargetVSCodeAgentHost},
		"hooks/type":               {model.TargetVSCodeAgentHost},
		"hooks/unknown-key":        {model.TargetVSCodeAgentHost},
		"hooks/user-config":        {model.TargetClaudeCode},
		"instr/glob":               {model.TargetVSCodeAgentHost},
		"json/duplicate-key":       {model.TargetClaudeCode, model.TargetVSCode, model.TargetVSCodeAgentHost},
		"json/syntax":              {model.TargetVSCode, model.TargetVSCodeAgentHost},
		"market/version":           {model.TargetClaudeCode},
		"mcp/duplicate":            {model.TargetVSCode, model.TargetVSCodeAgentHost},
		"mcp/name":                 {model.TargetClaudeCode},
		"mcp/url":                  {model.TargetVSCode, model.TargetVSCodeAgentHost},
		"md/link":                  {model.TargetClaudeCode, model.TargetVSCodeAgentHost},
		"memory/import":            {model.TargetClaudeCode},
		"plugin/copies":            {model.TargetVSCode, model.TargetVSCodeAgentHost},
		"plugin/unknown-key":       {model.TargetVSCode, model.TargetVSCodeAgentHost},
		"prompt/agent":             {model.TargetVSCodeAgentHost},
		"prompt/tools-mode":        {model.TargetVSCodeAgentHost},
		"rule/apply-to":            {model.TargetClaudeCode},
		"rule/paths":               {model.TargetVSCodeAgentHost},
		"settings/recommendations": {model.TargetVSCode, model.TargetVSCodeAgentHost},
		"skill/compat":             {model.TargetClaudeUpload},
		"skill/desc-length":        {model.TargetClaudeUpload},
		"skill/desc-xml":           {model.TargetClaudeUpload},
		"skill/enum":               {model.TargetClaudeCode, model.TargetVSCodeAgentHost},
		"skill/listing-length":     {model.TargetClaudeCode},
		"skill/name-duplicate":     {model.TargetVSCode, model.TargetVSCodeAgentHost},
		"skill/name-hyphens":       {model.TargetClaudeUpload},
		"skill/name-length":        {model.TargetClaudeUpload},
		"skill/name-reserved":      {model.TargetClaudeCode},
		"token/plugin-root":        {model.TargetClaudeCode, model.TargetVSCode, model.TargetVSCodeAgentHost},
		"yaml/duplicate-key":       {model.TargetVSCode, model.TargetVSCodeAgentHost},
		"yaml/syntax":              {model.TargetVSCode, model.TargetVSCodeAgentHost},
		"yaml/tab-indent":          {model.TargetAgentSkills},
		"yaml/vscode-subset":       {model.TargetVSCode, model.TargetVSCodeAgentHost},
	}
})
