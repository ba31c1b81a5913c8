package hostlink

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every rule id this room reports has a section in docs/rules.md, where its
// codeDescription link points (the rule table's, tools/config among them,
// are checked by internal/rulesdoc's tests).
func TestRuleIDsAreDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/rules.md")
	require.NoError(t, err)
	for _, id := range []string{RuleLoadError, RuleLoadDegraded, RuleMCPError, RuleExcluded, RuleEnablementState, RuleToolsUntrusted} {
		assert.True(t, strings.Contains(string(doc), "\n### "+id+"\n"), "docs/rules.md has no section for %s", id)
	}
}
