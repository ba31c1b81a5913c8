package tools

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// The config file is checked like every other kind: through
// diagnostics.Check, at the offending value, as tools/config.
func TestConfigFileIsDiagnosed(t *testing.T) {
	text := []byte(`{"version": 1, "tools": [{"name": "1bad", "command": {"argv": ["go", "test"]}}]}`)
	opts := diagnostics.Options{ToolsConfig: ConfigProblems}
	ds := diagnostics.Check(diagnostics.File{Path: ConfigFile, Text: text}, opts)
	require.NotEmpty(t, ds)
	assert.Equal(t, "tools/config", ds[0].Rule)
	assert.Equal(t, model.SeverityError, ds[0].Severity)
	assert.Equal(t, `"1bad"`, string(text[ds[0].Span.Start:ds[0].Span.End]))

	clean := []byte(`{"version": 1, "tools": [{"name": "unit", "command": {"argv": ["go", "test", "./..."]}}]}`)
	assert.Empty(t, diagnostics.Check(diagnostics.File{Path: ConfigFile, Text: clean}, opts))
	_, ok := diagnostics.LookupRule(ds[0].Rule)
	assert.True(t, ok, "tools/config is in the rule table")
}
