package hostlink

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/tools"
)

// Every rule id this room (and the tools config checker) reports has a
// section in docs/rules.md, where its codeDescription link points.
func TestRuleIDsAreDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/rules.md")
	require.NoError(t, err)
	for _, id := range []string{RuleLoadError, RuleLoadDegraded, RuleMCPError, RuleExcluded, RuleEnablementState, RuleToolsUntrusted, tools.RuleConfig} {
		assert.True(t, strings.Contains(string(doc), "\n### "+id+"\n"), "docs/rules.md has no section for %s", id)
	}
}
