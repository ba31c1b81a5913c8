package tools

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite golden files")

// formatProblems renders problems with the text each one underlines, so a
// golden file shows at a glance whether the offsets point at the right
// place.
func formatProblems(data []byte, probs []Problem) string {
	var b strings.Builder
	for _, p := range probs {
		fmt.Fprintf(&b, "%d-%d %s %s: %s\n    | %s\n", p.Start, p.End, p.Severity, p.Path, p.Message, data[p.Start:p.End])
	}
	return b.String()
}

func TestConfigProblemsGolden(t *testing.T) {
	root := t.TempDir()
	files, err := filepath.Glob("testdata/config/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			probs := ValidateConfig(data, ConfigOptions{Root: root, Trusted: true})
			for _, p := range probs {
				require.True(t, 0 <= p.Start && p.Start <= p.End && p.End <= len(data), "offsets out of range: %+v", p)
			}
			got := formatProblems(data, probs)
			golden := strings.TrimSuffix(f, ".json") + ".golden"
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run with -update to create")
			assert.Equal(t, string(want), got)
		})
	}
}

func TestGoodConfigLoadsDefinitions(t *testing.T) {
	data, err := os.ReadFile("testdata/config/good.json")
	require.NoError(t, err)
	defs, probs := ParseConfig(data, ConfigOptions{Trusted: true, Source: SourceWorkspace})
	require.Empty(t, probs)
	require.Len(t, defs, 2)
	d := defs[0]
	assert.Equal(t, "go_test", d.Name)
	assert.Equal(t, SourceWorkspace, d.Source)
	require.NotNil(t, d.Command)
	assert.Equal(t, []ArgvItem{{"go"}, {"test"}, {"-count=1"}, {"-run", "{pattern}"}, {"{packages}"}}, d.Command.Argv)
	assert.Equal(t, 300e9, float64(d.Command.Timeout()))
	assert.Equal(t, 131072, d.Command.OutputLimit())
	assert.Equal(t, DefaultTimeout, defs[1].Command.Timeout())
	assert.Equal(t, DefaultMaxOutputBytes, defs[1].Command.OutputLimit())
}

func TestBadToolsAreDroppedGoodOnesKept(t *testing.T) {
	data, err := os.ReadFile("testdata/config/bad.json")
	require.NoError(t, err)
	defs, probs := ParseConfig(data, ConfigOptions{Trusted: true})
	require.NotEmpty(t, probs)
	var names []string
	for _, d := range defs {
		names = append(names, d.Name)
	}
	// ok_one's first definition has an unknown property; the second is a
	// duplicate: neither is offered. Everything else has an error too.
	assert.Empty(t, names)

	defs, probs = ParseConfig([]byte(config(`{"name":"a","command":{"argv":["true"]}}`, `{"name":"b","command":{"argv":[1]}}`)), ConfigOptions{Trusted: true})
	require.Len(t, defs, 1)
	assert.Equal(t, "a", defs[0].Name)
	require.Len(t, probs, 1)
	assert.Equal(t, "/tools/1/command/argv/0", probs[0].Path)
}

func TestUntrustedConfigExplainsWhy(t *testing.T) {
	text := config(`{"name":"a","command":{"argv":["true"]}}`)
	probs := ValidateConfig([]byte(text), ConfigOptions{Trusted: false})
	require.Len(t, probs, 1)
	assert.Equal(t, SeverityWarning, probs[0].Severity)
	assert.Contains(t, probs[0].Message, "not trusted")
	assert.Equal(t, `"command"`, text[probs[0].Start:probs[0].End])
	assert.Empty(t, ValidateConfig([]byte(text), ConfigOptions{Trusted: true}))
}

func TestConfigEdgeCases(t *testing.T) {
	cases := []struct {
		name, text string
		problems   int
		first      string // substring of the first message
	}{
		{"empty", "", 0, ""},
		{"blank", " \n\t", 0, ""},
		{"empty object", "{}", 0, ""},
		{"no tools", `{"version":1}`, 0, ""},
		{"array root", `[]`, 1, "want object"},
		{"truncated", `{"tools":[`, 1, "unexpected end of file"},
		{"trailing garbage", `{} {}`, 1, "invalid JSON"},
		{"invalid utf8", "{\"tools\":[{\"name\":\"\xff\"}]}", 1, "invalid JSON"},
		{"deep", strings.Repeat("[", 300) + strings.Repeat("]", 300), 1, "nesting"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			probs := ValidateConfig([]byte(c.text), ConfigOptions{Trusted: true})
			require.Len(t, probs, c.problems, "%+v", probs)
			if c.problems > 0 {
				assert.Contains(t, probs[0].Message, c.first)
			}
		})
	}
}

func TestConfigSchemaIsAValidJSONSchema(t *testing.T) {
	// The embedded bytes are the file on disk, and ahpls's own validator
	// understands every keyword in it (compiling refuses any other).
	disk, err := os.ReadFile("tools.schema.json")
	require.NoError(t, err)
	assert.Equal(t, disk, ConfigSchema)
	s, err := configSchema()
	require.NoError(t, err)
	require.NotNil(t, s)
}

func FuzzParseConfig(f *testing.F) {
	for _, name := range []string{"good", "bad", "syntax", "dupkey"} {
		data, err := os.ReadFile("testdata/config/" + name + ".json")
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte(`{"tools":[{"name":"x","command":{"argv":["a",["{b}"]],"cwd":"c"}}]}`))
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		defs, probs := ParseConfig(data, ConfigOptions{Root: root, Trusted: false})
		for _, p := range probs {
			if p.Start < 0 || p.Start > p.End || p.End > len(data) {
				t.Fatalf("problem offsets out of range: %+v (len %d)", p, len(data))
			}
			if p.Message == "" || p.Severity == "" {
				t.Fatalf("empty problem %+v", p)
			}
		}
		for _, d := range defs {
			if d.Command == nil || len(d.Command.Argv) == 0 || d.schema == nil {
				t.Fatalf("incomplete definition %+v", d)
			}
			if _, ok := placeholder(d.Command.Argv[0][0]); ok {
				t.Fatalf("placeholder as argv[0] accepted: %+v", d.Command.Argv)
			}
		}
	})
}

// Numbers with huge exponents are compared exactly and cheaply: the
// previous validator turned them into rationals (1e99999 took ~50 ms,
// 1e9999999 crashed it with a nil pointer).
func TestConfigHugeNumbers(t *testing.T) {
	cases := []struct{ value, path, msg string }{
		{`{"version":1e9999999}`, "/version", "value must be 1"},
		{`{"version":1e-9999999}`, "/version", "value must be 1"},
		{config(`{"name":"a","command":{"argv":["x"],"timeoutSeconds":1e9999999}}`), "/tools/0/command/timeoutSeconds", "must be at most 3600, got 1e9999999"},
		{config(`{"name":"a","command":{"argv":["x"],"timeoutSeconds":-1e9999999}}`), "/tools/0/command/timeoutSeconds", "must be greater than 0, got -1e9999999"},
		{config(`{"name":"a","command":{"argv":["x"],"maxOutputBytes":1e99999999999999999999}}`), "/tools/0/command/maxOutputBytes", "must be at most 16777216"},
		{config(`{"name":"a","command":{"argv":["x"],"maxOutputBytes":1024.5}}`), "/tools/0/command/maxOutputBytes", "got number, want integer"},
	}
	for _, c := range cases {
		t.Run(c.value, func(t *testing.T) {
			probs := ValidateConfig([]byte(c.value), ConfigOptions{Trusted: true})
			require.Len(t, probs, 1, "%+v", probs)
			assert.Equal(t, c.path, probs[0].Path)
			assert.Contains(t, probs[0].Message, c.msg)
		})
	}
}
