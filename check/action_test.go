//go:build !windows

package check

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runAction runs scripts/action.sh (the GitHub Action's logic) in dir
// with env, returning stdout and the exit code.
func runAction(t *testing.T, dir string, env ...string) (string, string, int) {
	t.Helper()
	script, err := filepath.Abs("../scripts/action.sh")
	require.NoError(t, err)
	cmd := exec.Command("bash", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return out.String(), errb.String(), code
}

// TestActionScript runs the action's script the way action.yml does:
// with a prebuilt binary, and building one from the repository (module
// cache only, no network), on a workspace with a broken skill.
func TestActionScript(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	repo, err := filepath.Abs("..")
	require.NoError(t, err)
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "ahpls")
	build := exec.Command(goBin, "build", "-o", bin, "./cmd/ahpls")
	build.Dir = repo
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))

	ws := t.TempDir()
	write(t, ws, ".github/skills/tab-skill/SKILL.md", "---\nname: tab-skill\ndescription: Checks a skill whose header is indented with tabs.\nmetadata:\n\tauthor: someone\n---\n")
	ghOut := filepath.Join(tmp, "github_output")
	sarif := filepath.Join(tmp, "results", "ahpls.sarif")

	stdout, stderr, code := runAction(t, ws, "AHPLS_BIN="+bin, "INPUT_PATHS=.", "INPUT_FAIL_ON=error",
		"INPUT_FORMAT=text", "INPUT_SARIF="+sarif, "GITHUB_OUTPUT="+ghOut, "INPUT_TARGETS=")
	assert.Equal(t, 1, code, "an error finding fails the step; stderr: %s", stderr)
	assert.Contains(t, stdout, "[yaml/tab-indent]")
	b, err := os.ReadFile(sarif)
	require.NoError(t, err)
	var log map[string]any
	require.NoError(t, json.Unmarshal(b, &log), "the SARIF file is JSON")
	assert.Contains(t, string(b), `"artifactChanges"`, "the SARIF log carries the fix")
	gh, err := os.ReadFile(ghOut)
	require.NoError(t, err)
	assert.Contains(t, string(gh), "exit-code=1\n")
	assert.Contains(t, string(gh), "sarif-file="+sarif+"\n")

	// fail-on never passes; the format input reaches ahpls.
	stdout, _, code = runAction(t, ws, "AHPLS_BIN="+bin, "INPUT_FAIL_ON=never", "INPUT_FORMAT=json")
	assert.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(stdout, "{") && strings.Contains(stdout, `"findings"`), "JSON output: %q", stdout)

	// Inputs are data, not shell: a target that looks like a command
	// substitution is passed to ahpls as a string.
	marker := filepath.Join(tmp, "pwned")
	_, stderr, _ = runAction(t, ws, "AHPLS_BIN="+bin, "INPUT_TARGETS=$(touch "+marker+")", "INPUT_FAIL_ON=never")
	assert.NoFileExists(t, marker)
	assert.Contains(t, stderr, "unknown target")

	// A repository that turns its own security findings off is named in
	// the step's output, as one annotation per finding even when the
	// SARIF pass runs too (issue 39).
	sws := suppressedWorkspace(t)
	_, stderr, code = runAction(t, sws, "AHPLS_BIN="+bin, "INPUT_FAIL_ON=warning", "INPUT_SARIF="+filepath.Join(tmp, "s.sarif"), "GITHUB_ACTIONS=true", "GITHUB_OUTPUT=")
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, 1, strings.Count(stderr, "::warning file=.claude/skills/inst/SKILL.md,line=10,col=20,title=ahpls%3A security/remote-exec suppressed::"), stderr)
	assert.Equal(t, 1, strings.Count(stderr, "::warning file=.claude/settings.json,"), stderr)
	assert.Contains(t, stderr, "ahpls check: security: .ahpls/config.json turns off security/remote-exec")
	b, err = os.ReadFile(filepath.Join(tmp, "s.sarif"))
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(b), `"kind": "inSource"`)+strings.Count(string(b), `"kind": "external"`))

	// A bad fail-on is a usage error (2), not a pass.
	_, _, code = runAction(t, ws, "AHPLS_BIN="+bin, "INPUT_FAIL_ON=sometimes")
	assert.Equal(t, 2, code)

	// No binary given: the script builds one from the repository (the
	// same flags as above, so the build cache serves it).
	if testing.Short() {
		return
	}
	stdout, stderr, code = runAction(t, ws, "AHPLS_BIN=", "ACTION_PATH="+repo, "RUNNER_TEMP="+tmp, "INPUT_FAIL_ON=error")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stdout, "[yaml/tab-indent]")
	assert.FileExists(t, filepath.Join(tmp, "ahpls-action-bin", "ahpls"))
}
