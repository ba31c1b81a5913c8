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

// Roo Code skips a skill without a string name or description, whose name
// is not its folder's, or whose trimmed description is longer than 1024
// characters, counted in UTF-16 units (RooCodeInc/Roo-Code@cb836567
// SkillsManager.ts loadSkillMetadata). Issue #38's second claims sample
// found `ahpls list --targets roo` saying "loads" for such a skill
// (LIDR-IT/ai-assisted-workflow lidr-propuesta-builder, 1,228 characters).
func TestRooSkipsSkillHeaders(t *testing.T) {
	for _, tc := range []struct {
		name, desc, want string
		header           string // replaces the whole header when set
	}{
		{name: "short", desc: strings.Repeat("a", 200), want: "loads"},
		{name: "over-1024", desc: strings.Repeat("a", 1100), want: "fails"},
		// A folded scalar keeps its final newline: 1025 characters, 1024 once trimmed.
		{name: "exactly-1024-folded", desc: ">\n  " + strings.Repeat("a", 1024), want: "loads"},
		// 600 astral characters are 600 runes but 1200 UTF-16 units.
		{name: "astral", desc: strings.Repeat("😀", 600), want: "fails"},
		// The other checks of loadSkillMetadata: name and description
		// strings, and the name equal to the folder's.
		{name: "no-name", header: "description: d", want: "fails"},
		{name: "no-description", header: "name: s", want: "fails"},
		{name: "name-not-folder", header: "name: t\ndescription: d", want: "fails"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			dir := filepath.Join(ws, ".roo", "skills", "s")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			header := "name: s\ndescription: " + tc.desc
			if tc.header != "" {
				header = tc.header
			}
			text := "---\n" + header + "\n---\nBody.\n"
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
