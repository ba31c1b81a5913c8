package diagnostics

// Rule lifecycle (as ruff's redirect table): a rule id, once released, is
// written into users' .ahpls/config.json overrides, `ahpls.rules` and
// suppression comments. A renamed rule keeps its old id as a redirect, so
// those keep working (with a Hint at the old id); a removed rule's id is
// remembered, so naming it is a Hint rather than an unknown id.

// RuleStatus says what a rule id written by a user names.
type RuleStatus int

// Rule statuses.
const (
	RuleUnknown RuleStatus = iota // no rule has or had this id
	RuleCurrent                   // a rule of the table
	RuleRenamed                   // an old id of a rule of the table
	RuleRemoved                   // the id of a rule that is gone
)

// renamedRules maps an old rule id to the rule's id now. Chains are
// followed (a → b, b → c): add a rename, never edit an old one.
var renamedRules = map[string]string{}

// removedRules maps the id of a removed rule to why it went, one phrase
// ("merged into skill/name-dir").
var removedRules = map[string]string{}

// ResolveRule is what id names: the id of the rule it stands for (itself,
// or where its renames lead) and its status. For a removed or unknown id,
// to is "".
func ResolveRule(id string) (to string, status RuleStatus) {
	if _, ok := LookupRule(id); ok {
		return id, RuleCurrent
	}
	if _, ok := removedRules[id]; ok {
		return "", RuleRemoved
	}
	cur, seen := id, 0
	for {
		next, ok := renamedRules[cur]
		if !ok || seen > len(renamedRules) {
			break
		}
		cur, seen = next, seen+1
	}
	if seen > 0 {
		if _, ok := LookupRule(cur); ok {
			return cur, RuleRenamed
		}
		if _, ok := removedRules[cur]; ok {
			return "", RuleRemoved
		}
	}
	return "", RuleUnknown
}

// RemovedWhy is why a removed rule went ("" for other ids).
func RemovedWhy(id string) string {
	if _, st := ResolveRule(id); st != RuleRemoved {
		return ""
	}
	cur := id
	for i := 0; i <= len(renamedRules); i++ {
		if why, ok := removedRules[cur]; ok {
			return why
		}
		cur = renamedRules[cur]
	}
	return ""
}

// SetRuleHistoryForTest replaces the rename and removal tables until the
// returned function restores them. The tables hold real history only, so
// tests outside this package (settings) prove redirects with this.
func SetRuleHistoryForTest(renamed, removed map[string]string) (restore func()) {
	oldRenamed, oldRemoved := renamedRules, removedRules
	renamedRules, removedRules = renamed, removed
	return func() { renamedRules, removedRules = oldRenamed, oldRemoved }
}
