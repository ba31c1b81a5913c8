package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/model"
)

// fixesInGoldens is, per rule, whether the golden fixtures saw it offer a
// quick fix.
func fixesInGoldens(t *testing.T) map[string]bool {
	t.Helper()
	offered := map[string]bool{}
	require.NoError(t, filepath.WalkDir(goldenRoot, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasSuffix(p, ".golden") {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, goldenRoot+string(filepath.Separator)))
		kind := model.Classify(rel, dirLayout(goldenRoot))
		if kind == model.KindNone {
			return nil
		}
		text, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, d := range Check(core.File{Path: rel, Kind: kind, Text: text, FS: dirFS(goldenRoot), Layout: dirLayout(goldenRoot)}, core.Options{}) {
			if len(d.Fixes) > 0 {
				offered[d.Rule] = true
			}
		}
		return nil
	}))
	return offered
}

// TestEveryQuickFixHasATier: a rule that offers a quick fix in the golden
// fixtures states its tier and why; a rule with a tier offers a fix
// somewhere (the goldens, or the listed test).
func TestEveryQuickFixHasATier(t *testing.T) {
	offered := fixesInGoldens(t)
	elsewhere := map[string]string{
		"fm/crlf": "check/testdata/fix/fm-crlf",
		// Offered for a near miss only (enumFix, closest), which no
		// golden fixture has.
		"agent/target":        "agent.go enumFix",
		"instr/exclude-agent": "instructions.go closest",
		"setup/job-missing":   "TestSetupSteps (the golden workspace's copilot-setup-steps.yml has the job)",
	}
	for _, r := range Rules() {
		if offered[r.ID] {
			assert.NotEqual(t, core.FixNone, r.Fix, "%s offers a quick fix but has no tier", r.ID)
		}
		if r.Fix != core.FixNone {
			assert.NotEmpty(t, r.FixWhy, "%s: say why its fix is %s", r.ID, r.Fix)
			assert.True(t, offered[r.ID] || elsewhere[r.ID] != "", "%s has a %s fix that no fixture offers", r.ID, r.Fix)
		}
	}
}

func TestFixTierApplies(t *testing.T) {
	for _, c := range []struct {
		tier         core.FixTier
		safe, unsafe bool
	}{{core.FixNone, false, false}, {core.FixUnsafe, false, true}, {core.FixSafe, true, true}} {
		assert.Equal(t, c.safe, c.tier.Applies(false), c.tier.String())
		assert.Equal(t, c.unsafe, c.tier.Applies(true), c.tier.String())
	}
}
