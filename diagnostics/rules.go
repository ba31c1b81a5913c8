package diagnostics

import "sort"

// RuleInfo describes one rule for hover, SARIF and the rules list.
type RuleInfo struct {
	ID      string // e.g. "skill/name-charset"
	Summary string // one line: what the rule checks
}

var ruleInfos = map[string]RuleInfo{}

// registerRules is called from each kind's init with the rules it owns, so
// golden coverage and SARIF know every rule id.
func registerRules(infos ...RuleInfo) {
	for _, r := range infos {
		ruleInfos[r.ID] = r
	}
}

func init() {
	registerRules(
		RuleInfo{"file/too-large", "The file is larger than ahpls checks (4 MiB)."},
		RuleInfo{"file/unreadable", "The file is not a regular file inside the workspace folder (a FIFO, a device, a symlink loop or a symlink out of the folder), so ahpls did not read it."},
		RuleInfo{"file/encoding", "The file is not valid UTF-8 or contains a NUL byte; agents read customization files as UTF-8 text."},
		RuleInfo{"internal/error", "A rule failed on input it did not expect; ahpls reports the file as unchecked instead of crashing."},
	)
}

// Rules lists every registered rule, sorted by id.
func Rules() []RuleInfo {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]RuleInfo, 0, len(ruleInfos))
	for _, r := range ruleInfos {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// LookupRule returns a rule's description.
func LookupRule(id string) (RuleInfo, bool) {
	registry.RLock()
	defer registry.RUnlock()
	r, ok := ruleInfos[id]
	return r, ok
}
