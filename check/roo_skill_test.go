package check

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ahpls-dev/ahpls/view"
)

// Roo Code skips a skill whose trimmed description is longer than 1024
// characters, counted in UTF-16 units (RooCodeInc/Roo-Code@cb836567
// SkillsManager.ts loadSkillMetadata). Issue #38's second claims sample
// found `ahpls list --targets roo` saying "loads" for such a skill
// (LIDR-IT/ai-assisted-workflow lidr-propuesta-builder, 1,228 characters).
func TestRooSkipsLongSkillDescription(t *testing.T) {
	for _, tc := range []struct {
		name, desc, want string
	}{
		{"short", strings.Repeat("a", 200), "loads"},
		{"over-1024", strings.Repeat("a", 1100), "fails"},
		// A folded scalar keeps its final newline: 1025 characters, 1024 once trimmed.
		{"exactly-1024-folded", ">\n  " + strings.Repeat("a", 1024), "loads"},
		// 600 astral characters are 600 runes but 1200 UTF-16 units.
		{"astral", strings.Repeat("😀", 600), "fails"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			dir := filepath.Join(ws, ".roo", "skills", "s")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			text := "---\nname: s\ndescription: " + tc.desc + "\n---\nBody.\n"
			if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			if code := ListMain([]string{"--format", "json", "--targets", "roo", ws}, &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			var v view.View
			if err := json.Unmarshal(out.Bytes(), &v); err != nil {
				t.Fatal(err)
			}
			got := ""
			for _, c := range v.Consumers {
				for _, it := range c.Items {
					if it.Source == ".roo/skills/s/SKILL.md" {
						got = string(it.Status)
					}
				}
			}
			if got != tc.want {
				t.Errorf("Roo Code: %q, want %q", got, tc.want)
			}
		})
	}
}
