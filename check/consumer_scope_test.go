package check

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// Issue #38, "defect 3": with only Kiro, Windsurf, Cline, Roo Code or
// OpenCode named, rules that name no consumer were still reported on files
// the named consumer never opens (an empty .github/prompts file, a plugin
// manifest without a version) and Codex's AGENTS.md budget note on an
// AGENTS.md the run does not read for Codex. With the default targets the
// same files keep their findings. A memory file counts only under a name
// the consumer reads: Kiro's AGENTS.md is not Copilot's
// .github/copilot-instructions.md (an empty one was reported for Kiro,
// Windsurf and Roo Code, judged false on batch 9-11's tune part).
func TestFixedFindingsOnlyWhereANamedConsumerReads(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		".github/prompts/empty.prompt.md": "---\ndescription: Nothing here.\n---\n",
		"plugins/p/plugin.json":           `{"name": "p"}`,
		"AGENTS.md":                       "# Notes\n\n" + strings.Repeat("Keep answers short and test every change. ", 1000),
		".github/copilot-instructions.md": "",
	}
	writeTree(t, root, files)
	rules := func(opts diagnostics.Options) map[string]bool {
		found, err := Run([]string{root}, opts)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, f := range found {
			out[f.Rule] = true
			out[f.Rule+" "+filepath.Base(f.Path)] = true
		}
		return out
	}
	def := rules(diagnostics.Options{})
	for _, want := range []string{"body/empty", "plugin/version-missing", "memory/codex-size", "body/empty copilot-instructions.md"} {
		if !def[want] {
			t.Errorf("default targets: no %s (the fixture no longer shows it)", want)
		}
	}
	for _, target := range []model.Target{model.TargetKiro, model.TargetWindsurf, model.TargetCline, model.TargetRoo, model.TargetOpenCode} {
		got := rules(diagnostics.Options{Targets: []model.Target{target}, NoImpliedTargets: true})
		for _, rule := range []string{"body/empty", "plugin/version-missing", "memory/codex-size", "body/empty copilot-instructions.md"} {
			if got[rule] {
				t.Errorf("--targets %s: %s reported for a file %s never reads (or a note about Codex)", target, rule, target)
			}
		}
	}
}

// Codex reads MCP servers from a plugin's .mcp.json only (its project
// servers live in .codex/config.toml): a workspace .mcp.json's findings
// that name no consumer are not Codex's (security/plain-http on
// NVIDIAGameWorks/toolkit-remix's .mcp.json was reported for Codex), a
// plugin's still are.
func TestCodexReadsOnlyPluginMCP(t *testing.T) {
	for _, c := range []struct {
		target   model.Target
		manifest string
	}{
		{model.TargetCodex, ".codex-plugin/plugin.json"},
		// Cursor's own MCP file is .cursor/mcp.json (Apezdr/nextjs-stream's
		// root .mcp.json was reported for Cursor on the held-out part).
		{model.TargetCursor, ".cursor-plugin/plugin.json"},
	} {
		t.Run(string(c.target), func(t *testing.T) { pluginOnlyMCP(t, c.target, c.manifest) })
	}
}

func pluginOnlyMCP(t *testing.T, target model.Target, manifest string) {
	root := t.TempDir()
	remote := `{"mcpServers": {"docs": {"type": "http", "url": "http://mcp.example.com/mcp"}}}`
	files := map[string]string{
		".mcp.json":        remote,
		"cx/p/" + manifest: `{"name": "p", "version": "1.0.0", "description": "A plugin."}`,
		"cx/p/.mcp.json":   remote,
	}
	writeTree(t, root, files)
	found, err := Run([]string{root}, diagnostics.Options{Targets: []model.Target{target}, NoImpliedTargets: true})
	if err != nil {
		t.Fatal(err)
	}
	at := map[string]bool{}
	for _, f := range found {
		if f.Rule == "security/plain-http" {
			rel, _ := filepath.Rel(root, f.Path)
			at[filepath.ToSlash(rel)] = true
		}
	}
	if at[".mcp.json"] {
		t.Errorf("--targets %s: security/plain-http on the workspace .mcp.json, which it never reads", target)
	}
	if !at["cx/p/.mcp.json"] {
		t.Errorf("--targets %s: no security/plain-http on the plugin's .mcp.json (found at %v)", target, at)
	}
	def, err := Run([]string{root}, diagnostics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range def {
		if f.Rule == "security/plain-http" {
			n++
		}
	}
	if n < 2 {
		t.Errorf("default targets: %d security/plain-http findings, want both files", n)
	}
}
