package hostlink

import (
	"testing"

	"github.com/ahpls-dev/ahpls/virtualplugin"
)

// Host load messages are free text from another program: extracting file
// names and lines from them must never panic, and spans stay in range.
func FuzzHostMessage(f *testing.F) {
	f.Add("skills/lint/SKILL.md:3: missing description", []byte("---\nname: x\n---\n"))
	f.Add(`C:\x\.mcp.json line 99999999999999999999: bad`, []byte(""))
	f.Add("a.md; b.json:0; ; :1", []byte("\r\n\r\n"))
	f.Fuzz(func(t *testing.T, msg string, text []byte) {
		for _, r := range pathRefs(msg) {
			s := lineSpan(text, r.line)
			if s.Start < 0 || s.End > len(text) || s.Start > s.End {
				t.Fatalf("span %v out of range for %d bytes", s, len(text))
			}
		}
	})
}

// An MCP config may be anything while the user types: bundling and
// filtering it must never panic.
func FuzzMCPConfig(f *testing.F) {
	f.Add([]byte(mcpJSON), "docs")
	f.Add([]byte(`{"servers":null}`), "x")
	f.Add([]byte(`[1,2]`), "")
	f.Fuzz(func(t *testing.T, data []byte, omit string) {
		p := &virtualplugin.Plugin{Name: "p", Files: []*virtualplugin.File{file(".mcp.json", string(data))}}
		_ = bundledServers(p)
		q := withoutServers(p, []string{omit}, "n")
		if len(q.Files) != 1 {
			t.Fatalf("files lost: %d", len(q.Files))
		}
	})
}
