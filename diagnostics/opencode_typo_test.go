package diagnostics

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/model"
)

// A near miss of a field OpenCode reads for the agent is a Warning with a
// rename; the rename is offered only where the renamed file still loads
// (a value OpenCode would refuse under the real key, or the key already
// there, gets no fix), and the renamed file has no finding left.
func TestOpenCodeAgentFieldTypo(t *testing.T) {
	const rel = ".opencode/agent/review.md"
	cases := []struct {
		name, text string
		sev        model.Severity
		fix        bool
	}{
		{"permissions map", "---\ndescription: Reviews\npermissions:\n  edit: deny\n---\nBody.\n", model.SeverityWarning, true},
		{"tool map", "---\ndescription: Reviews\ntool:\n  bash: false\n---\nBody.\n", model.SeverityWarning, true},
		{"value OpenCode refuses", "---\ndescription: Reviews\npermissions:\n  edit: never\n---\nBody.\n", model.SeverityWarning, false},
		{"key already there", "---\ndescription: Reviews\npermission:\n  edit: deny\npermissions:\n  bash: ask\n---\nBody.\n", model.SeverityWarning, false},
		{"quoted key", "---\ndescription: Reviews\n\"permissions\":\n  edit: deny\n---\nBody.\n", model.SeverityWarning, false},
		{"a provider option", "---\ndescription: Reviews\ntop_k: 40\n---\nBody.\n", model.SeverityInfo, false},
		{"two edits from a field", "---\ndescription: Reviews\nrole: reviewer\n---\nBody.\n", model.SeverityInfo, false},
		{"case and separators", "---\ndescription: Reviews\nmax_steps: 5\n---\nBody.\n", model.SeverityWarning, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := find(checkText(rel, c.text, model.TargetOpenCode), "ocagent/unknown-key")
			require.NotNil(t, d)
			assert.Equal(t, c.sev, d.Severity)
			if !c.fix {
				assert.Empty(t, d.Fixes)
				return
			}
			require.Len(t, d.Fixes, 1)
			e := d.Fixes[0].Edits[0]
			fixed := c.text[:e.Span.Start] + e.NewText + c.text[e.Span.End:]
			assert.Empty(t, checkText(rel, fixed, model.TargetOpenCode), "the renamed agent: %q", fixed)
		})
	}
}
