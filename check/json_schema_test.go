package check

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/diagnostics"
)

// TestJSONOutputMatchesItsSchema: `--format json` over the rule fixtures
// (every rule, fixes, verdicts) and over an empty folder validates
// against docs/check-output.schema.json, whose version is ReportVersion.
// The schema is closed, so a field added to the output without the
// schema fails here.
func TestJSONOutputMatchesItsSchema(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "docs", "check-output.schema.json"))
	require.NoError(t, err)
	doc, err := jsonschema.UnmarshalJSON(f)
	f.Close()
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const loc = "https://ahpls.invalid/check-output.schema.json"
	require.NoError(t, c.AddResource(loc, doc))
	sch, err := c.Compile(loc)
	require.NoError(t, err)
	assert.Equal(t, json.Number(strconv.Itoa(ReportVersion)), doc.(map[string]any)["properties"].(map[string]any)["version"].(map[string]any)["const"])

	for _, dir := range []string{rulesWS, t.TempDir()} {
		var out, errb bytes.Buffer
		Main([]string{"--format", "json", dir}, &out, &errb, "test", diagnostics.Options{})
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out.Bytes()))
		require.NoError(t, err)
		require.NoError(t, sch.Validate(inst), dir)
		var rep struct {
			Version  int               `json:"version"`
			Findings []json.RawMessage `json:"findings"`
		}
		require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
		assert.Equal(t, ReportVersion, rep.Version)
		if dir == rulesWS {
			assert.Contains(t, out.String(), `"tier": "safe"`)
			assert.Contains(t, out.String(), `"tier": "unsafe"`)
		}
	}
}
