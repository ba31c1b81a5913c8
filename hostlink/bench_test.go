package hostlink

import (
	"fmt"
	"github.com/ahpls-dev/ahpls/settings"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
)

// benchLink is a link over a workspace of n skills, scanned and ready, not
// connected (SetActiveClient only records the entry).
func benchLink(b *testing.B, n int) (*Link, string) {
	root := b.TempDir()
	ws := filepath.Join(root, "ws")
	for i := 0; i < n; i++ {
		p := filepath.Join(ws, ".github", "skills", fmt.Sprintf("s%03d", i), "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		text := fmt.Sprintf("---\nname: s%03d\ndescription: Skill number %d of the benchmark workspace.\n---\n\nBody.\n", i, i)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, ".mcp.json"), []byte(mcpJSON), 0o644); err != nil {
		b.Fatal(err)
	}
	l, err := New(Config{Host: settings.Host{URL: "ws://127.0.0.1:1/none"}, StateDir: root}, newFakeEditor(ws), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.client.Close() })
	for _, f := range l.folders {
		l.buildFolder(f)
	}
	l.pub.markReady()
	l.republish()
	return l, ws
}

// A session event that changes nothing: the cost paid on every host
// action in a joined session.
func BenchmarkRepublishUnchanged(b *testing.B) {
	l, _ := benchLink(b, 200)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l.republish()
	}
}

// One skill edited: rebuild the folder, new nonce, new entry.
func BenchmarkEditRebuildRepublish(b *testing.B) {
	l, ws := benchLink(b, 200)
	p := filepath.Join(ws, ".github", "skills", "s000", "SKILL.md")
	texts := [][]byte{[]byte("---\nname: s000\ndescription: First version of the edited skill.\n---\n"), []byte("---\nname: s000\ndescription: Second version of the edited skill.\n---\n")}
	f := l.folders[0]
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := os.WriteFile(p, texts[i%2], 0o644); err != nil {
			b.Fatal(err)
		}
		f.builder.Changed(p)
		l.buildFolder(f)
		l.republish()
	}
}
