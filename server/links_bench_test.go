package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/uri"
)

// BenchmarkDocumentLinks: one request over a file with 500 links into its
// workspace folder; each link's real path is checked (wsfs.Confined).
func BenchmarkDocumentLinks(b *testing.B) {
	root := b.TempDir()
	var text strings.Builder
	for i := range 500 {
		writeFileB(b, root, fmt.Sprintf("docs/d%d/page.md", i%50), "x")
		fmt.Fprintf(&text, "[p%d](docs/d%d/page.md)\n", i, i%50)
	}
	u := writeFileB(b, root, "AGENTS.md", text.String())
	c := newTestClient(b, clientSetup{folders: []string{root}})
	b.ResetTimer()
	for b.Loop() {
		var links []json.RawMessage
		if err := c.call("textDocument/documentLink", docParams(u), &links); err != nil || len(links) != 500 {
			b.Fatal(len(links), err)
		}
	}
}

func writeFileB(b *testing.B, root, rel, text string) uri.URI {
	b.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	return uri.File(p)
}
