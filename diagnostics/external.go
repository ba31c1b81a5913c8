package diagnostics

import "github.com/ahpls-dev/ahpls/model"

// Checker checks a file kind that is validated in another package (the
// `.ahpls/tools.json` validator lives in package tools, which must not be
// imported from here). Callers pass it in Options.Checkers; Check runs it
// with the same guards, overrides and sorting as the built-in kinds.
type Checker struct {
	Kind model.Kind
	// Check receives the file's text after the size and encoding guards and
	// returns diagnostics with byte spans into it; ahpls.rules overrides
	// apply to them, spans are clamped to the text and a panic becomes an
	// internal/error diagnostic.
	Check func(text []byte) []model.Diagnostic
	// Rules are the rules Check reports, for Rules(), LookupRule, SARIF and
	// hover.
	Rules []*Rule
}

// extraChecker returns the first of opts.Checkers for kind.
func extraChecker(kind model.Kind, opts Options) func(File, *reporter) {
	for _, c := range opts.Checkers {
		if c.Kind == kind && c.Check != nil {
			check := c.Check
			return func(f File, r *reporter) {
				for _, d := range check(f.Text) {
					r.add(d)
				}
			}
		}
	}
	return nil
}
