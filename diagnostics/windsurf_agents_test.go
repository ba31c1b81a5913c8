package diagnostics

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/model"
)

// Windsurf reads AGENTS.md through its rules engine, whose files are
// limited to 12,000 characters: an Info for Windsurf only, counted in
// characters (not bytes), and nothing without Windsurf among the targets
// (an AGENTS.md implies no one agent).
func TestWindsurfAgentsSize(t *testing.T) {
	long := "# Notes\n\n" + strings.Repeat("é", 12001)
	cases := []struct {
		name, rel, text string
		targets         []model.Target
		want            bool
	}{
		{"over the limit", "AGENTS.md", long, []model.Target{model.TargetWindsurf}, true},
		{"in a sub-folder", "web/AGENTS.md", long, []model.Target{model.TargetWindsurf}, true},
		{"bytes over, characters under", "AGENTS.md", strings.Repeat("é", 7000), []model.Target{model.TargetWindsurf}, false},
		{"no Windsurf target", "AGENTS.md", long, []model.Target{model.TargetCodex}, false},
		{"not AGENTS.md", "CLAUDE.md", long, []model.Target{model.TargetWindsurf}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := find(checkText(c.rel, c.text, c.targets...), "memory/windsurf-size")
			if !c.want {
				assert.Nil(t, d)
				return
			}
			require.NotNil(t, d)
			assert.Equal(t, model.SeverityInfo, d.Severity)
			assert.Contains(t, d.Message, "this one has 12010")
		})
	}
}
