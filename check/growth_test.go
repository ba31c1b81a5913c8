package check

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/internal/growth"
)

// Complexity tests (#42): `ahpls check` on one input shape at n and at 4n
// must cost at most linearly more (internal/growth). Run them with
// AHPLS_GROWTH_INJECT=quadratic to see each fail against a quadratic
// variant of its path.

// folderRun is a check of a folder built by fill: the whole `ahpls check`
// path (walk, read, rules, positions, fingerprints).
func folderRun(fill func(tb testing.TB, root string, n int)) growth.Build {
	return folderRuns(1, fill)
}

// folderRuns is folderRun checking the folder reps times a run, for a
// path too cheap at a size whose inputs stay small (growth.Linear asks for
// tens of milliseconds a run).
func folderRuns(reps int, fill func(tb testing.TB, root string, n int)) growth.Build {
	return func(tb testing.TB, n int) func() {
		root := tb.TempDir()
		fill(tb, root, n)
		return func() {
			for range reps {
				if _, err := Run([]string{root}, diagnostics.Options{}); err != nil {
					tb.Fatal(err)
				}
			}
		}
	}
}

// textRun is the rules and positions on one text, reps times (a file's
// own cost, without the disk).
func textRun(rel string, reps int, text func(n int) string) growth.Build {
	return func(tb testing.TB, n int) func() {
		t := []byte(text(n))
		return func() {
			for range reps {
				findings(rel, rel, t, false, diagnostics.Check(diagnostics.File{Path: rel, Text: t}, diagnostics.Options{}))
			}
		}
	}
}

const skillHead = "---\nname: x\ndescription: Growth test.\n---\n"

// TestGrowthFindingsPerLine: n broken links on one line (27 s at 20,000
// when each finding's fingerprint searched and hashed its whole line).
func TestGrowthFindingsPerLine(t *testing.T) {
	growth.Linear(t, 3000, folderRun(func(tb testing.TB, root string, n int) {
		write(tb, root, ".github/skills/x/SKILL.md", linksOneLine(n))
	}))
}

// TestGrowthLineLength: one line of n non-ASCII words with a finding at
// its end (UTF-16 positions on a long line).
func TestGrowthLineLength(t *testing.T) {
	growth.Linear(t, 20000, textRun(".github/skills/x/SKILL.md", 50, func(n int) string {
		return skillHead + strings.Repeat("héllo ", n) + "[l](missing.md)\n"
	}))
}

// TestGrowthLinesPerFile: n lines of prose, one with a finding per ten.
func TestGrowthLinesPerFile(t *testing.T) {
	growth.Linear(t, 5000, textRun(".github/skills/x/SKILL.md", 40, func(n int) string {
		var sb strings.Builder
		sb.WriteString(skillHead)
		for i := range n {
			if i%10 == 0 {
				fmt.Fprintf(&sb, "Line %d links [a page](missing%d.md).\n", i, i)
			} else {
				fmt.Fprintf(&sb, "Line %d says something about the skill and why.\n", i)
			}
		}
		return sb.String()
	}))
}

// TestGrowthLinksPerFile: n links to files that exist, one per line.
func TestGrowthLinksPerFile(t *testing.T) {
	growth.Linear(t, 1000, folderRun(func(tb testing.TB, root string, n int) {
		var sb strings.Builder
		sb.WriteString(skillHead)
		for i := range n {
			write(tb, root, fmt.Sprintf(".github/skills/x/references/r%d.md", i), "x\n")
			fmt.Fprintf(&sb, "- [ref %d](references/r%d.md)\n", i, i)
		}
		write(tb, root, ".github/skills/x/SKILL.md", sb.String())
	}))
}

// TestGrowthFilesPerFolder: n skills side by side.
func TestGrowthFilesPerFolder(t *testing.T) {
	growth.Linear(t, 300, folderRun(func(tb testing.TB, root string, n int) {
		for i := range n {
			write(tb, root, fmt.Sprintf(".github/skills/s%d/SKILL.md", i),
				fmt.Sprintf("---\nname: s%d\ndescription: Skill %d of a large folder.\n---\n# S\n[x](missing.md)\n", i, i))
		}
	}))
}

// TestGrowthFolderDepth: a skill at the bottom of n nested folders, with
// an AGENTS.md every tenth folder.
func TestGrowthFolderDepth(t *testing.T) {
	if os.Getenv(growth.Env) == "" && os.Getenv("AHPLS_GROWTH_DEPTH") == "" {
		// Measured 100 → 400 folders deep: ratio 9 to 15. Each folder
		// costs O(its depth): the walk's ignore matcher splits the whole
		// path (wsfs.Matcher.Match), PluginOf asks about every ancestor,
		// and each open resolves the path from the root in the kernel.
		// Bounded by PATH_MAX, so not yet fixed (AHPLS_GROWTH_DEPTH=1
		// runs it).
		t.Skip("#42: per-folder work grows with the folder's depth (quadratic in depth; not fixed yet)")
	}
	growth.Linear(t, 100, folderRun(func(tb testing.TB, root string, n int) {
		dir := root
		for i := range n {
			dir = filepath.Join(dir, "d")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				tb.Fatal(err)
			}
			if i%10 == 9 {
				if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte(fmt.Sprintf("# Level %d\nSee [x](missing.md).\n", i)), 0o644); err != nil {
					tb.Fatal(err)
				}
			}
		}
		write(tb, dir, ".github/skills/x/SKILL.md", linksOneLine(3))
	}))
}

// TestGrowthMarketplaceEntries: a marketplace.json listing n plugins
// (half of them missing).
func TestGrowthMarketplaceEntries(t *testing.T) {
	growth.Linear(t, 300, folderRun(marketFill))
}

// marketFill writes a marketplace.json listing n plugins, half of them
// present.
func marketFill(tb testing.TB, root string, n int) {
	var sb strings.Builder
	sb.WriteString(`{"name":"m","owner":{"name":"o"},"plugins":[`)
	for i := range n {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"name":"p%d","source":"./plugins/p%d","description":"Plugin %d."}`, i, i, i)
		if i%2 == 0 {
			write(tb, root, fmt.Sprintf("plugins/p%d/.claude-plugin/plugin.json", i), fmt.Sprintf(`{"name":"p%d"}`, i))
		}
	}
	sb.WriteString("]}")
	write(tb, root, ".claude-plugin/marketplace.json", sb.String())
}

// TestGrowthHooksEntries: a plugin's hooks.json with n matchers.
func TestGrowthHooksEntries(t *testing.T) {
	growth.Linear(t, 1000, textRun("p/hooks/hooks.json", 3, func(n int) string {
		var sb strings.Builder
		sb.WriteString(`{"hooks":{"PreToolUse":[`)
		for i := range n {
			if i > 0 {
				sb.WriteString(",")
			}
			fmt.Fprintf(&sb, `{"matcher":"Tool%d","hooks":[{"type":"command","command":"echo %d","timeout":%d}]}`, i, i, i%600+1)
		}
		sb.WriteString("]}}")
		return sb.String()
	}))
}

// TestGrowthImportsPerMemoryFile: a CLAUDE.md importing one file n times,
// the imported file n lines long: linear when each file is read and
// walked once, quadratic when each import re-walks its file (300 imports
// of one large file cost 165× one import, #42).
func TestGrowthImportsPerMemoryFile(t *testing.T) {
	// Ten checks a run: one at n=500 cost about 1 ms of CPU, small enough
	// for a busy machine's noise to fake a ratio of 7-10 (seen beside
	// another test binary). A larger n is no cure: past 1 MiB the
	// imported file is read another way, and the ratio drifts up to 6.
	growth.Linear(t, 500, folderRuns(10, func(tb testing.TB, root string, n int) {
		write(tb, root, "big.md", strings.Repeat("Some instructions about the project and its code.\n", 4*n))
		write(tb, root, "CLAUDE.md", "# Memory\n"+strings.Repeat("@big.md\n", n))
	}))
}

// TestGrowthJSONNesting: an MCP server's args nested n arrays deep (4n
// stays under the parser's depth limit, past which the cost is flat).
func TestGrowthJSONNesting(t *testing.T) {
	growth.Linear(t, 120, textRun(".mcp.json", 500, func(n int) string {
		return `{"mcpServers":{"s":{"command":"x","args":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}}}`
	}))
}

// TestGrowthYAMLNesting: a skill's metadata nested n flow maps deep.
func TestGrowthYAMLNesting(t *testing.T) {
	growth.Linear(t, 500, textRun(".github/skills/x/SKILL.md", 20, func(n int) string {
		return "---\nname: x\ndescription: Growth test.\nmetadata: " + strings.Repeat("{a: ", n) + "1" + strings.Repeat("}", n) + "\n---\nBody.\n"
	}))
}

// TestGrowthAnchorsAliases: one anchor and n aliases of it in a skill's
// header.
func TestGrowthAnchorsAliases(t *testing.T) {
	growth.Linear(t, 1000, textRun(".github/skills/x/SKILL.md", 10, func(n int) string {
		var sb strings.Builder
		sb.WriteString("---\nname: x\ndescription: &d Growth test.\nmetadata:\n")
		for i := range n {
			fmt.Fprintf(&sb, "  k%d: *d\n", i)
		}
		sb.WriteString("---\nBody.\n")
		return sb.String()
	}))
}

// TestGrowthAgentTree: n subagents in one .claude/agents tree, each name
// used twice. The duplicate check read the whole tree for every subagent
// (n² reads) until the run kept each tree as read once (diagnostics.AgentTrees).
// 4n stays under the check's 500-file bound on a tree.
func TestGrowthAgentTree(t *testing.T) {
	growth.Linear(t, 120, folderRun(func(tb testing.TB, root string, n int) {
		for i := range n {
			write(tb, root, fmt.Sprintf(".claude/agents/a%04d.md", i), fmt.Sprintf("---\nname: agent-%d\ndescription: Growth test.\n---\nBody.\n", i/2))
		}
	}))
}
