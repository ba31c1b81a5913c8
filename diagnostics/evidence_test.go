package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/shared"

	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/model"
)

// TestEvidenceOrSilence checks every golden fixture with every target: a
// finding at Error or Warning must be driven only by consumers whose
// reaction the rule's evidence covers (or recorded debt, never for Copilot
// CLI). It fails when a rule claims a reaction nobody has seen.
func TestEvidenceOrSilence(t *testing.T) {
	var unbacked []string
	seen := map[string]bool{}
	ruleByID := map[string]*core.Rule{}
	for _, r := range ruleTable {
		ruleByID[r.ID] = r
	}
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
		require.NoError(t, err)
		for _, d := range Check(core.File{Path: rel, Kind: kind, Text: text, FS: dirFS(goldenRoot), Layout: dirLayout(goldenRoot)}, core.Options{Targets: model.AllTargets}) {
			if d.Severity > model.SeverityWarning || len(d.Verdicts) == 0 {
				continue // Info and Hint, and severities ahpls sets itself ([I])
			}
			for tg, r := range d.Verdicts {
				if sev, rep := r.Severity(); !rep || sev != d.Severity {
					continue // not a consumer that drove this severity
				}
				rule, ok := ruleByID[d.Rule]
				if ok && !core.HasEvidence(rule, tg) {
					key := fmt.Sprintf("%s %s", d.Rule, tg)
					if !seen[key] {
						seen[key] = true
						unbacked = append(unbacked, key+" ("+rel+")")
					}
				}
			}
		}
		return nil
	}))
	sort.Strings(unbacked)
	assert.Empty(t, unbacked, "Error/Warning without an evidence entry")
	for id, ts := range core.EvidenceDebt() {
		for _, tg := range ts {
			assert.NotEqual(t, model.TargetCopilotCLI, tg, "%s: Copilot CLI reactions need evidence, not debt", id)
		}
	}
}

// TestGateEvidence: an unbacked Error drops to unknown, a backed one stays.
func TestGateEvidence(t *testing.T) {
	v := model.Verdicts{model.TargetCopilotCLI: model.Reject, model.TargetClaudeCode: model.Skip}
	got := core.GateEvidence(shared.HooksCommand, v)
	assert.Equal(t, model.Reject.Unverified(), got[model.TargetCopilotCLI], "documented only: Warning at most")
	assert.Equal(t, model.Skip, got[model.TargetClaudeCode], "only Copilot CLI is gated at run time")
	assert.Equal(t, model.Reject, v[model.TargetCopilotCLI], "the input is not changed")
	got = core.GateEvidence(core.JSONJsonc, model.Verdicts{model.TargetCopilotCLI: model.Reject.Unverified()})
	assert.Equal(t, model.Unknown, got[model.TargetCopilotCLI], "no evidence: unknown (Info)")
}
