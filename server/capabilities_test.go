package server

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The exact capabilities of #18, and every one of them listed in the
// README's table.
func TestREADMEListsCapabilities(t *testing.T) {
	c := newTestClient(t, clientSetup{noInit: true})
	res := c.initialize(clientSetup{})
	var init struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	require.NoError(t, json.Unmarshal(res, &init))
	want := map[string]string{
		"codeActionProvider":      `{"codeActionKinds":["quickfix","source.fixAll.ahpls"]}`,
		"definitionProvider":      `true`,
		"documentLinkProvider":    `{}`,
		"documentSymbolProvider":  `true`,
		"foldingRangeProvider":    `true`,
		"hoverProvider":           `true`,
		"renameProvider":          `{"prepareProvider":true}`,
		"workspace":               `{"fileOperations":{"didDelete":{"filters":[{"pattern":{"glob":"**/*"},"scheme":"file"}]},"didRename":{"filters":[{"pattern":{"glob":"**/*"},"scheme":"file"}]}},"workspaceFolders":{"changeNotifications":true,"supported":true}}`,
		"workspaceSymbolProvider": `true`,
	}
	for k, v := range want {
		assert.Equal(t, v, compact(t, init.Capabilities[k]), k)
	}
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	for k := range init.Capabilities {
		assert.True(t, strings.Contains(string(readme), "| `"+k+"` |"), "README.md lists capability %s", k)
	}
}
