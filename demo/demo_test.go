package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateReadme = flag.Bool("update", false, "rewrite the demo transcript in ../README.md")

const readmePath = "../README.md"

var (
	transcriptStart = "<!-- demo-transcript:start -->\n```text\n"
	transcriptEnd   = "```\n<!-- demo-transcript:end -->"
)

// normalize blanks out what differs between runs and machines (ports,
// ids, nonces, paths, durations) so transcripts compare by shape.
func normalize(s string) string {
	for _, r := range []struct{ re, with string }{
		{`ws://127\.0\.0\.1:\d+`, "ws://127.0.0.1:PORT"},
		{`ahpls-[0-9a-f]{12}`, "ahpls-ID"},
		{`sha256-[0-9a-f]+`, "sha256-NONCE"},
		{`virtual://ahpls/[0-9a-f]{8}/`, "virtual://ahpls/KEY/"},
		{`file://\S*examples/workspace`, "file://WS"},
		{`\S*examples/workspace`, "WS"},
		{`\b\d+(\.\d+)?(ms|s)\b`, "T"},
		{`turn-\d+`, "turn-N"},
	} {
		s = regexp.MustCompile(r.re).ReplaceAllString(s, r.with)
	}
	return s
}

func runDemo(t *testing.T, opts Options) (string, error) {
	t.Helper()
	var out bytes.Buffer
	opts.Out = &out
	if opts.Timeout == 0 {
		opts.Timeout = 2 * time.Minute
	}
	err := Run(context.Background(), opts)
	return out.String(), err
}

// TestDemoOnExampleWorkspace runs the whole product end to end and keeps
// the README's transcript true: same steps, same lines, same shape.
func TestDemoOnExampleWorkspace(t *testing.T) {
	out, err := runDemo(t, Options{})
	require.NoError(t, err, out)
	for _, want := range []string{"[check]", "skill/desc-missing", "[publish]", "ahpls_run_tests", "left out: .github/skills/db-migrate/SKILL.md",
		"[read]", "skills/run-tests/SKILL.md", "[load]", "loaded", "[tool]", "structured: 2 passed, 0 failed", "go in calc: 2 passed", "[result]", "success=true", "[done]"} {
		assert.Contains(t, out, want)
	}
	read := out[strings.Index(out, "[read]"):strings.Index(out, "[load]")]
	assert.NotContains(t, read, "db-migrate", "the broken skill is not read back")

	readme, err := os.ReadFile(readmePath)
	require.NoError(t, err)
	start := bytes.Index(readme, []byte(transcriptStart))
	end := bytes.Index(readme, []byte(transcriptEnd))
	require.True(t, start >= 0 && end > start, "README has the demo transcript markers")
	if *updateReadme {
		shown := out
		if root, err := filepath.Abs(".."); err == nil {
			shown = strings.ReplaceAll(shown, root+string(filepath.Separator), "/home/you/ahpls/")
		}
		updated := append(append(append([]byte{}, readme[:start+len(transcriptStart)]...), shown...), readme[end:]...)
		require.NoError(t, os.WriteFile(readmePath, updated, 0o644))
		return
	}
	inReadme := string(readme[start+len(transcriptStart) : end])
	assert.Equal(t, normalize(inReadme), normalize(out), "README transcript out of date: go test ./demo -run TestDemoOnExampleWorkspace -update")
}

func TestDemoJSONEvents(t *testing.T) {
	out, err := runDemo(t, Options{JSON: true})
	require.NoError(t, err, out)
	var steps []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e Event
		require.NoError(t, json.Unmarshal([]byte(line), &e), line)
		require.NotEmpty(t, e.Step)
		if len(steps) == 0 || steps[len(steps)-1] != e.Step {
			steps = append(steps, e.Step)
		}
	}
	assert.Equal(t, []string{"check", "host", "connect", "publish", "read", "load", "turn", "tool", "output", "result", "done"}, steps)
}

// TestDemoNamesTheFailingStep: a workspace without the test-runner tool
// fails at publication, and the error says so.
func TestDemoNamesTheFailingStep(t *testing.T) {
	ws := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(ws, ".github/skills/lint"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, ".github/skills/lint/SKILL.md"), []byte("---\nname: lint\ndescription: Lint.\n---\n"), 0o644))
	out, err := runDemo(t, Options{Workspace: ws})
	var se *StepError
	require.True(t, errors.As(err, &se), "got %v\n%s", err, out)
	assert.Equal(t, "publish", se.Step)
	assert.Contains(t, out, "FAILED: the test-runner tool ahpls_run_tests was not registered")
}

// TestDemoFailingToolFails: when the tests fail, so does the demo, at the
// tool step.
func TestDemoFailingToolFails(t *testing.T) {
	src, err := FindExampleWorkspace()
	require.NoError(t, err)
	ws := filepath.Join(t.TempDir(), "ws")
	require.NoError(t, os.CopyFS(ws, os.DirFS(src)))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "calc/calc.go"), []byte("package calc\n\nfunc Add(a, b int) int { return a - b }\n\nfunc Mul(a, b int) int { return a * b }\n"), 0o644))
	out, err := runDemo(t, Options{Workspace: ws})
	var se *StepError
	require.True(t, errors.As(err, &se), "got %v\n%s", err, out)
	assert.Equal(t, "tool", se.Step)
	// The built-in runner's structured result names the test, its file:line
	// and the assertion message.
	assert.Contains(t, out, "failed: TestAdd at calc/calc_test.go:7: Add(2, 3) = -1, want 5")
}
