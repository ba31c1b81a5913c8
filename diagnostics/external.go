package diagnostics

import (
	"sync"

	"github.com/ahpls-dev/ahpls/model"
)

// Some file kinds are validated in another room (the `.ahpls/tools.json`
// validator lives in package tools, which must not be imported from here);
// their owner registers a checker at startup and Check runs it with the
// same guards, overrides and sorting as the built-in kinds.

// registry guards checkers and ruleInfos: built-in kinds fill them in init
// functions, RegisterChecker may run later while files are being checked.
var registry sync.RWMutex

// RegisterChecker makes Check run check for files of kind, and lists rules
// in Rules() and LookupRule (for hover, SARIF and docs). check receives the
// file's text after the size and encoding guards and returns diagnostics
// with byte spans into it; ahpls.rules overrides apply to them, spans are
// clamped to the text and a panic becomes an internal/error diagnostic. A
// second registration for the same kind replaces the first.
func RegisterChecker(kind model.Kind, check func(text []byte) []model.Diagnostic, rules ...RuleInfo) {
	if kind == model.KindNone || check == nil {
		return
	}
	registry.Lock()
	defer registry.Unlock()
	checkers[kind] = func(f File, r *reporter) {
		for _, d := range check(f.Text) {
			r.add(d)
		}
	}
	for _, ri := range rules {
		ruleInfos[ri.ID] = ri
	}
}

// unregisterChecker undoes RegisterChecker; tests use it to leave the
// global tables as they found them.
func unregisterChecker(kind model.Kind, rules ...string) {
	registry.Lock()
	defer registry.Unlock()
	delete(checkers, kind)
	for _, id := range rules {
		delete(ruleInfos, id)
	}
}
