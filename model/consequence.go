package model

import "slices"

// Consequence is what a finding costs the consumer that decides its level
// (issue #40): the file is not loaded, its whole header is dropped, one
// entry or field of a file that loads is dropped, a field is ignored, … The
// level follows from the consequence and, for a dropped field, from whether
// that consumer uses what is lost (Level); a message only says it in words.
type Consequence string

const (
	FileRefused   Consequence = "file-refused"   // the consumer does not load the file
	HeaderDropped Consequence = "header-dropped" // it loads the file with its whole header dropped (empty metadata)
	EntryDropped  Consequence = "entry-dropped"  // a file that loads loses one entry (a hook, a server, an event): it never runs
	FieldDropped  Consequence = "field-dropped"  // a file that loads loses, cuts or changes fields (Lost names them)
	FieldUnused   Consequence = "field-unused"   // the consumer ignores a field it never reads
	Warned        Consequence = "warned"         // the consumer loads the file and warns
	Shadowed      Consequence = "shadowed"       // another file of the same name wins: this one is not used
	Shadows       Consequence = "shadows"        // this file wins over another of the same name
	NotDiscovered Consequence = "not-discovered" // no consumer discovers the file where it is
	Referenced    Consequence = "referenced"     // not discovered on its own, but read through another file's link
	SpecOnly      Consequence = "spec-only"      // only a specification forbids it
	Advice        Consequence = "advice"         // a recommendation
	Unverifiable  Consequence = "unknown"        // the consumer's reaction is not known
)

// Level is the severity of a consequence for one consumer; used says
// whether that consumer uses what the finding loses (only FieldDropped
// asks: a loss of fields the consumer never reads is Info). This is the
// policy table of docs/rules.md ("How severities are decided").
func (c Consequence) Level(used bool) Severity {
	switch c {
	case FileRefused, HeaderDropped:
		return SeverityError
	case EntryDropped, Warned, Shadowed, NotDiscovered:
		return SeverityWarning
	case FieldDropped:
		if used {
			return SeverityWarning
		}
		return SeverityInfo
	case Shadows, Referenced, SpecOnly, Unverifiable:
		return SeverityInfo
	case FieldUnused, Advice:
		return SeverityHint
	}
	return SeverityInfo
}

// Consequences lists every consequence in policy order (docs, tests).
var Consequences = []Consequence{FileRefused, HeaderDropped, EntryDropped, FieldDropped, FieldUnused,
	Warned, Shadowed, Shadows, NotDiscovered, Referenced, SpecOnly, Advice, Unverifiable}

// Consequence is what reaction r means for the file; ok is false for
// reactions that deserve no finding (ok, unknown).
func (r Reaction) Consequence() (c Consequence, ok bool) {
	if r == Unknown {
		return Unverifiable, true
	}
	base, _ := splitGuess(r)
	switch base {
	case Skip, Reject:
		return FileRefused, true
	case NoHeader:
		return HeaderDropped, true
	case Drop:
		return EntryDropped, true
	case Lose:
		return FieldDropped, true
	case Warn:
		return Warned, true
	case Ignore:
		return FieldUnused, true
	case ShadowedBy:
		return Shadowed, true
	case Wins:
		return Shadows, true
	case Undiscovered:
		return NotDiscovered, true
	case LinkedOnly:
		return Referenced, true
	case Spec:
		return SpecOnly, true
	case Should:
		return Advice, true
	}
	return "", false
}

// ccSkillFields: Claude Code 2.1.332's skill and command frontmatter schema
// describes these fields and its loader reads them; `license` is marked
// "@internal", `metadata` "Free-form map for the skill author's own use …
// Preserved on the loaded skill", `compatibility` is only in its known-key
// list: none of the three changes what Claude Code does.
var ccSkillFields = []string{"name", "description", "model", "allowed-tools", "disallowed-tools", "disallowedTools",
	"argument-hint", "arguments", "disable-model-invocation", "user-invocable", "effort", "shell",
	"when_to_use", "when-to-use", "paths", "hooks", "context", "agent", "background", "fallback"}

const ccSkillFieldsEvidence = "claude-code 2.1.332's skill frontmatter schema (the object with when_to_use, paths, hooks, context, agent …) and its skill loader; license is \"@internal\", metadata \"Preserved on the loaded skill\", compatibility only a known key"

// Uses reports whether consumer t acts on any of fields in a file of kind
// k (ConsumerSpec.Fields); with no fields named, or no list for t and k,
// it does.
func Uses(t Target, k Kind, fields []string) bool {
	c, _ := t.Spec()
	used, ok := c.Fields[k]
	if !ok || len(fields) == 0 {
		return true
	}
	for _, f := range fields {
		if slices.Contains(used, f) {
			return true
		}
	}
	return false
}
