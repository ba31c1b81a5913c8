package tools

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoGeneralSchemaLibrary: santhosh-tekuri/jsonschema compiles its
// meta-schemas in its package init, ~15 ms CPU and 1.7 MB at the start of
// every process that links it (issue #30). Package tools keeps it for the
// differential tests only.
func TestNoGeneralSchemaLibrary(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err)
	for _, dep := range strings.Fields(string(out)) {
		assert.False(t, strings.HasPrefix(dep, "github.com/santhosh-tekuri/"), "package tools imports %s", dep)
	}
}
