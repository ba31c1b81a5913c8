package check

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/view"
)

var updateList = flag.Bool("update-list", false, "rewrite testdata/list/*.golden.json")

// TestListGolden runs `ahpls list --format json` on the fixture workspace,
// once with the editor/host state file and once without, and compares the
// output with the golden files.
func TestListGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"ws", []string{"--format", "json", "testdata/list/ws"}},
		{"ws-state", []string{"--format", "json", "--state", "testdata/list/state.json", "testdata/list/ws"}},
		{"ws-claude-code", []string{"--format", "json", "--targets", "claude-code", "testdata/list/ws"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			require.Equal(t, 0, ListMain(tc.args, &out, &errb), errb.String())
			golden := filepath.Join("testdata", "list", tc.name+".golden.json")
			if *updateList {
				require.NoError(t, os.WriteFile(golden, out.Bytes(), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), out.String())
		})
	}
}

// TestListCoversEveryStatus is what the fixture is for: every consumer
// shows every status it can have. The CLIs and the spec have no
// enablement (VS Code and its agent host do), only the agent host reports
// load states, and the spec defines no load order, so it shadows nothing.
// Copilot CLI's refusals have no evidence yet (unverified verdicts).
func TestListCoversEveryStatus(t *testing.T) {
	var out, errb bytes.Buffer
	require.Equal(t, 0, ListMain([]string{"--format", "json", "--state", "testdata/list/state.json", "testdata/list/ws"}, &out, &errb), errb.String())
	var v view.View
	require.NoError(t, json.Unmarshal(out.Bytes(), &v))
	all := []string{"loads", "shadowed", "not-scanned", "fails", "disabled"}
	want := map[model.Target][]string{
		model.TargetVSCode:          all,
		model.TargetVSCodeAgentHost: append(append([]string(nil), all...), "host-state"),
		model.TargetClaudeCode:      {"loads", "shadowed", "not-scanned", "fails", "description-cut"},
		// Every Copilot CLI skip or reject in the rule table is unverified
		// (no consumer evidence yet): a note, never "fails" or "shadowed".
		model.TargetCopilotCLI:  {"loads", "not-scanned", "unverified-note"},
		model.TargetAgentSkills: {"loads", "not-scanned", "fails"},
		model.TargetCodex:       {"loads", "not-scanned"},
		model.TargetCursor:      {"loads", "not-scanned"},
		model.TargetGeminiCLI:   {"loads", "not-scanned"},
		model.TargetKiro:        {"loads", "not-scanned"},
		model.TargetWindsurf:    {"loads"},
		model.TargetCline:       {"loads", "not-scanned", "fails"},
		model.TargetRoo:         {"loads", "shadowed", "fails"},
		model.TargetOpenCode:    {"loads", "not-scanned"},
	}
	require.Len(t, v.Consumers, len(want))
	for _, c := range v.Consumers {
		seen := map[string]bool{}
		var walk func(items []view.Item)
		walk = func(items []view.Item) {
			for _, it := range items {
				seen[string(it.Status)] = true
				if it.HostState != "" {
					seen["host-state"] = true
				}
				for _, n := range it.Notes {
					if strings.HasPrefix(n, "unverified: ") {
						seen["unverified-note"] = true
					}
				}
				if it.Description != nil && it.Description.Truncated {
					seen["description-cut"] = true
				}
				walk(it.Components)
			}
		}
		walk(c.Items)
		var got []string
		for s := range seen {
			got = append(got, s)
		}
		sort.Strings(got)
		for _, s := range want[c.Target] {
			assert.Truef(t, seen[s], "%s: no item with %q (have %s)", c.Target, s, strings.Join(got, ", "))
		}
	}
}

// TestListIssueExample is the issue's own example: a skill that Claude Code
// loads as `pdf` while VS Code reads the .github copy first.
func TestListIssueExample(t *testing.T) {
	in, err := Inventory("testdata/list/ws", Config{})
	require.NoError(t, err)
	v := view.Build(in)
	lines := v.Summary(".claude/skills/pdf/SKILL.md")
	assert.Contains(t, lines, "Claude Code: loads as `pdf`")
	assert.Contains(t, lines, "VS Code: shadowed by .github/skills/pdf/SKILL.md")
}

func TestListUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"--format", "xml", "testdata/list/ws"}, 2, "not text or json"},
		{[]string{"a", "b"}, 2, "one folder at a time"},
		{[]string{"--state", "testdata/list/missing.json", "testdata/list/ws"}, 2, "--state"},
		{[]string{"--targets", "nobody", "--format", "json", "testdata/list/ws"}, 0, "unknown target 'nobody' ignored"},
		{[]string{"testdata/list/none"}, 2, "ahpls list:"},
	} {
		var out, errb bytes.Buffer
		assert.Equal(t, tc.code, ListMain(tc.args, &out, &errb), tc.args)
		assert.Contains(t, errb.String(), tc.err, tc.args)
	}
}
