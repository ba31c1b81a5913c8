package server

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/check"
	"github.com/ahpls-dev/ahpls/diagnostics"
)

// The editor and `ahpls check` must agree: scanning the rule fixtures as a
// workspace folder publishes exactly the findings `ahpls check` prints, at
// the same positions (LSP 0-based UTF-16 = check's 1-based columns − 1).
func TestServerMatchesCheck(t *testing.T) {
	root, err := filepath.Abs("../diagnostics/testdata/ws")
	require.NoError(t, err)
	findings, err := check.Run([]string{root}, diagnostics.Options{})
	require.NoError(t, err)
	require.NotEmpty(t, findings)
	want := map[string][]string{}
	for _, f := range findings {
		u := string(uri.File(f.Path))
		want[u] = append(want[u], fmt.Sprintf("%d:%d %s", f.Line-1, f.Column-1, f.Rule))
	}
	for _, v := range want {
		sort.Strings(v)
	}

	c := newTestClient(t, clientSetup{folders: []string{root}, opts: Options{NoFSNotify: true}})
	got := map[string][]string{}
	deadline := time.After(waitLimit)
	seen := 0
	for !assertSameKeys(want, got) {
		c.mu.Lock()
		for ; seen < len(c.notes); seen++ {
			n := c.notes[seen]
			if n.Method != "textDocument/publishDiagnostics" {
				continue
			}
			var p wirePublish
			require.NoError(t, json.Unmarshal(n.Params, &p))
			var list []string
			for _, d := range p.diags(t) {
				list = append(list, fmt.Sprintf("%d:%d %s", d.Range.Start.Line, d.Range.Start.Character, d.Code))
			}
			sort.Strings(list)
			got[p.URI] = list
		}
		ch := c.changed
		c.mu.Unlock()
		if assertSameKeys(want, got) {
			break
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("published %d of %d files", len(got), len(want))
		}
	}
	assert.Equal(t, want, got)
}

func assertSameKeys(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}
