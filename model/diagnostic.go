package model

// Severity uses the LSP numbering so the server can pass it through.
type Severity int

const (
	SeverityError   Severity = 1
	SeverityWarning Severity = 2
	SeverityInfo    Severity = 3
	SeverityHint    Severity = 4
)

// String is the word `ahpls check` prints.
func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	case SeverityInfo:
		return "info"
	case SeverityHint:
		return "hint"
	}
	return "unknown"
}

// ParseSeverity reads the level words used by `ahpls.rules` and `--rule`
// (`error|warning|info|hint`); "off" returns ok with 0.
func ParseSeverity(word string) (s Severity, ok bool) {
	switch word {
	case "error":
		return SeverityError, true
	case "warning":
		return SeverityWarning, true
	case "info", "information":
		return SeverityInfo, true
	case "hint":
		return SeverityHint, true
	case "off":
		return 0, true
	}
	return 0, false
}

// Tag mirrors LSP DiagnosticTag.
type Tag int

const (
	TagUnnecessary Tag = 1
	TagDeprecated  Tag = 2
)

// Edit replaces the bytes of Span with NewText in the file named by Path
// (empty Path = the diagnosed file).
type Edit struct {
	Path    string `json:"path,omitempty"`
	Span    Span   `json:"span"`
	NewText string `json:"newText"`
}

// Fix is a quick fix: a title the editor shows and the edits it applies.
// Preferred marks the one fix an editor may apply automatically.
type Fix struct {
	Title     string `json:"title"`
	Edits     []Edit `json:"edits"`
	Preferred bool   `json:"preferred,omitempty"`
	// Demoted, when set, says why this fix of a rule whose tier is safe
	// could not be proven safe (the file would not parse again, or a value
	// other than its target would read differently): it is offered but
	// applied only as an unsafe fix.
	Demoted string `json:"demoted,omitempty"`
}

// Related points at a second place that explains a diagnostic (the first of
// two duplicate keys, the winning skill of a name clash). Path empty = same
// file.
type Related struct {
	Path    string `json:"path,omitempty"`
	Span    Span   `json:"span"`
	Message string `json:"message"`
}

// Diagnostic is one finding of one rule in one file. Span is in bytes of the
// text the rule saw; renderers convert it with LineIndex.
type Diagnostic struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	Span     Span     `json:"span"`
	Tags     []Tag    `json:"tags,omitempty"`
	// Verdicts is every consumer's reaction, by target id ("vscode": "skip"),
	// for hover and JSON output; the severity is derived from the effective ones.
	Verdicts map[Target]Reaction `json:"verdicts,omitempty"`
	// Consequence is what the finding costs the consumers that decide its
	// level (file refused, entry dropped, field dropped, …); the level
	// follows from it (Consequence.Level). Empty for levels ahpls sets itself.
	Consequence Consequence `json:"consequence,omitempty"`
	// Lost names the fields a FieldDropped finding loses; the level asks
	// whether the deciding consumer uses any of them (Uses).
	Lost    []string  `json:"lost,omitempty"`
	Related []Related `json:"related,omitempty"`
	Fixes   []Fix     `json:"fixes,omitempty"`
	// Suppressed says what hid the finding, when the caller asked to keep
	// hidden findings (diagnostics.Options.KeepSuppressed); "" otherwise.
	Suppressed Suppression `json:"suppressed,omitempty"`
}

// Suppression is what hid a finding, in SARIF's words (§3.35.2 kind).
type Suppression string

const (
	// SuppressedInSource: an ahpls-disable comment in the file itself.
	SuppressedInSource Suppression = "inSource"
	// SuppressedExternal: an "overrides" entry of .ahpls/config.json that
	// turns the rule off for the file.
	SuppressedExternal Suppression = "external"
)

// RuleHref is the documentation anchor for a rule id, used as
// codeDescription.href and in SARIF.
func RuleHref(rule string) string {
	return "https://github.com/ahpls-dev/ahpls/blob/main/docs/rules.md#" + anchor(rule)
}

func anchor(rule string) string {
	b := make([]byte, 0, len(rule))
	for i := 0; i < len(rule); i++ {
		c := rule[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-':
			b = append(b, c)
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		}
	}
	return string(b)
}
