package check

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ahpls-dev/ahpls/diagnostics"
)

// TestSuppressionInCheck: `ahpls check` applies the comments and the
// config's overrides as the server does (server/suppress_test.go), in a
// folder walk, for a named file, and for a strict JSON file (overrides
// only).
func TestSuppressionInCheck(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, ".ahpls/config.json", `{"overrides": [
		{"files": [".github/skills/quiet/**"], "rules": {"md/link": "off"}},
		{"files": [".github/hooks/*.json"], "rules": {"hooks/field-type": "off"}}]}`)
	head := func(name string) string { return "---\nname: " + name + "\ndescription: A skill.\n---\n" }
	write(t, ws, ".github/skills/loud/SKILL.md", head("loud")+"[a](missing.md)\n")
	write(t, ws, ".github/skills/hushed/SKILL.md", head("hushed")+"<!-- ahpls-disable-next-line md/link -->\n[a](missing.md)\n<!-- ahpls-disable skill/name-dir -->\n")
	write(t, ws, ".github/skills/quiet/SKILL.md", head("quiet")+"[a](missing.md)\n")
	// hooks/field-type without the override (check/testdata/fix/json-form).
	write(t, ws, ".github/hooks/hooks.json", `{"hooks": {"PostToolUse": [{"type": "command", "command": "echo done", "timeout": "30"}]}}`)
	var out, errb bytes.Buffer
	Main([]string{"--fail-on", "never", ws}, &out, &errb, "test", diagnostics.Options{})
	got := out.String()
	assert.Contains(t, got, "loud/SKILL.md:5:")
	assert.NotContains(t, got, "quiet/SKILL.md")
	assert.NotContains(t, got, "hushed/SKILL.md:6:")
	assert.Contains(t, got, "hushed/SKILL.md:7:") // the unused file-wide comment
	assert.Contains(t, got, "[suppress/unused]")
	assert.NotContains(t, got, "hooks.json")
	assert.Equal(t, 2, bytes.Count(out.Bytes(), []byte("\n")), got)
}
