package check

import (
	"slices"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/model"
)

// shared keeps one copy of what many findings repeat, a rule's link and
// a verdict map: a check of a big tree holds tens of thousands of
// findings, and these copies were a third of their memory (#30). Findings
// only read them. Bounded: past maxShared distinct values a value is used
// as it comes, unshared.
var shared = struct {
	mu       sync.Mutex
	hrefs    map[string]string
	verdicts map[string]model.Verdicts
}{hrefs: map[string]string{}, verdicts: map[string]model.Verdicts{}}

const maxShared = 4096

// sharedHref is model.RuleHref(rule), one string per rule.
func sharedHref(rule string) string {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if h, ok := shared.hrefs[rule]; ok {
		return h
	}
	h := model.RuleHref(rule)
	if len(shared.hrefs) < maxShared {
		shared.hrefs[rule] = h
	}
	return h
}

// sharedVerdicts is a map equal to v, the same map for equal v's.
func sharedVerdicts(v model.Verdicts) model.Verdicts {
	if len(v) == 0 {
		return v
	}
	keys := make([]string, 0, len(v))
	for t, r := range v {
		keys = append(keys, string(t)+"="+string(r))
	}
	slices.Sort(keys)
	k := strings.Join(keys, "\x00")
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if s, ok := shared.verdicts[k]; ok {
		return s
	}
	if len(shared.verdicts) < maxShared {
		shared.verdicts[k] = v
	}
	return v
}
