package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"testing"

	"github.com/ahpls-dev/ahpls/model"
)

// FuzzOpenCode: the OpenCode config (JSONC), agent and command checkers
// never panic and keep every finding's span inside the text. The same
// bytes go to all three, so JSON reaches the header reader and YAML the
// JSONC reader too.
func FuzzOpenCode(f *testing.F) {
	for _, s := range []string{
		"{\n // c\n \"model\": \"a/b\", /* x */\n \"instructions\": [\"AGENTS.md\",],\n}\n",
		"{\"model\": \"x\",,}", "{\"mcp\":{\"x\":{\"type\":\"local\",\"command\":\"npx\"},\"y\":{}}}",
		"{\"agent\":{\"x\":{\"mode\":\"sub\",\"steps\":1.5,\"color\":\"#12345\"}},\"command\":{\"c\":{}}}",
		"{\"permission\":{\"edit\":\"maybe\",\"webfetch\":{\"*\":\"allow\"},\"bash\":{\"*\":1}},\"plugin\":[[],1]}",
		"---\ndescription: x\ntools: [Read]\ncolor: purple\nsteps: 0\n---\nbody\n",
		"---\ndescription: [x\n---\n", "---\nmode: subagent\n", "---\n- a\n---\n", "---\na: &x 1\nb: *x\n---\n",
		"---\nsubtask: \"yes\"\nfoo: 1\n---\n$ARGUMENTS\n", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, file := range []core.File{
			{Path: "opencode.jsonc", Kind: model.KindOCConfig, Text: b},
			{Path: ".opencode/agent/x.md", Kind: model.KindOCAgent, Text: b},
			{Path: ".opencode/command/x.md", Kind: model.KindOCCommand, Text: b},
		} {
			for _, d := range Check(file, core.Options{Targets: []model.Target{model.TargetOpenCode}}) {
				if d.Span.Start < 0 || d.Span.Start > d.Span.End || d.Span.End > len(b) {
					t.Fatalf("%s: %s span %+v outside %d bytes", file.Path, d.Rule, d.Span, len(b))
				}
			}
		}
	})
}
