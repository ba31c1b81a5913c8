package check

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/diagnostics"
)

// TestBaseline: a saved run hides its findings in the next one, even when
// lines were added above them; a new finding, and a second copy of an old
// one, are reported and decide the exit code.
func TestBaseline(t *testing.T) {
	ws := t.TempDir()
	skill := func(body string) string {
		return "---\nname: s\ndescription: A skill with links.\n---\n" + body
	}
	rel := ".github/skills/s/SKILL.md"
	write(t, ws, rel, skill("[a](a.md)\n"))
	run := func(args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		code := Main(append(args, "--fail-on", "warning", ws), &out, &errb, "test", diagnostics.Options{})
		return out.String(), errb.String(), code
	}
	saved, _, code := run("--format", "json")
	require.Equal(t, 1, code)
	base := filepath.Join(t.TempDir(), "baseline.json")
	require.NoError(t, os.WriteFile(base, []byte(saved), 0o644))

	// Unchanged: nothing new, exit 0.
	out, errb, code := run("--baseline", base)
	assert.Empty(t, out)
	assert.Contains(t, errb, "1 finding(s) in the baseline not shown; 0 new")
	assert.Equal(t, 0, code)

	// Lines added above the old finding: still known. A new link is new.
	write(t, ws, rel, skill("Intro.\n\nMore intro.\n\n[a](a.md)\n[b](b.md)\n"))
	out, _, code = run("--baseline", base)
	assert.Equal(t, 1, strings.Count(out, "\n"), out)
	assert.Contains(t, out, "'b.md'")
	assert.Equal(t, 1, code)

	// A second copy of the old line is new too.
	write(t, ws, rel, skill("[a](a.md)\n[a](a.md)\n"))
	out, _, _ = run("--baseline", base)
	assert.Equal(t, 1, strings.Count(out, "\n"), out)

	// An older saved run without fingerprints matches by message; a bare
	// list (before the JSON object) is read too.
	write(t, ws, rel, skill("[a](a.md)\n"))
	old := strings.NewReplacer(`"fingerprint"`, `"fp"`).Replace(saved)
	require.NoError(t, os.WriteFile(base, []byte(old), 0o644))
	out, _, code = run("--baseline", base)
	assert.Empty(t, out)
	assert.Equal(t, 0, code)
	i, j := strings.Index(old, `"findings": [`), strings.LastIndex(old, `],`)
	require.NoError(t, os.WriteFile(base, []byte(old[i+len(`"findings": `):j+1]), 0o644))
	out, _, code = run("--baseline", base)
	assert.Empty(t, out)
	assert.Equal(t, 0, code)

	// A newer schema or a file that is no report is a usage error.
	require.NoError(t, os.WriteFile(base, []byte(`{"version": 99, "findings": []}`), 0o644))
	_, errb, code = run("--baseline", base)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errb, "newer")
	require.NoError(t, os.WriteFile(base, []byte(`"x"`), 0o644))
	_, _, code = run("--baseline", base)
	assert.Equal(t, exitUsage, code)
}
