package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// parseCheck reads `ahpls check --format json`: a plain array of findings, or
// an object with "findings" and the number of files checked per kind under
// one of "checked", "files" or "counts" (directly or one level down).
func parseCheck(out []byte) ([]finding, map[string]int, error) {
	var fs []finding
	if err := json.Unmarshal(out, &fs); err == nil {
		return fs, nil, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(out, &obj); err != nil {
		return nil, nil, fmt.Errorf("ahpls check output: %v", err)
	}
	if err := json.Unmarshal(obj["findings"], &fs); err != nil && obj["findings"] != nil {
		return nil, nil, fmt.Errorf("ahpls check output: findings: %v", err)
	}
	return fs, countsIn(obj, 0), nil
}

func countsIn(obj map[string]json.RawMessage, depth int) map[string]int {
	for _, k := range []string{"checked", "files", "counts"} {
		var m map[string]int
		if err := json.Unmarshal(obj[k], &m); err == nil && len(m) > 0 {
			return m
		}
		var sub map[string]json.RawMessage
		if depth == 0 && json.Unmarshal(obj[k], &sub) == nil {
			if m := countsIn(sub, 1); m != nil {
				return m
			}
		}
	}
	return nil
}

// fileCounts is the harness's own count of customization files in a
// repository (by name and folder, independent of ahpls), how many of them
// lie more than six folders deep, and ahpls' stated count when it gives one.
type fileCounts struct {
	kinds map[string]int
	deep  int
	ahpls map[string]int
}

// treeKind names a file by the conventions of the consumers: enough to
// count, not to decide what a consumer loads.
func treeKind(rel string) string {
	base := filepath.Base(rel)
	dir := filepath.ToSlash(filepath.Dir(rel))
	parent := filepath.Base(dir)
	switch {
	case base == "SKILL.md":
		return "skill"
	case base == "plugin.json" && (parent == ".claude-plugin" || parent == ".plugin" || strings.HasSuffix(dir, ".github/plugin")):
		return "plugin"
	case base == "marketplace.json" && (parent == ".claude-plugin" || strings.HasSuffix(dir, ".github/plugin")):
		return "marketplace"
	case base == "hooks.json" && parent == "hooks", parent == "hooks" && strings.HasSuffix(dir, ".github/hooks") && strings.HasSuffix(base, ".json"):
		return "hooks"
	case parent == ".claude" && (base == "settings.json" || base == "settings.local.json"):
		return "claude-settings"
	case strings.HasSuffix(base, ".agent.md"), strings.HasSuffix(dir, ".github/agents") && strings.HasSuffix(base, ".md"),
		strings.HasSuffix(dir, ".claude/agents") && strings.HasSuffix(base, ".md"):
		return "agent"
	case strings.HasSuffix(base, ".prompt.md"), strings.Contains("/"+dir+"/", "/.claude/commands/") && strings.HasSuffix(base, ".md"):
		return "prompt-or-command"
	case strings.HasSuffix(base, ".instructions.md"), base == "copilot-instructions.md", base == "AGENTS.md", base == "CLAUDE.md":
		return "instructions"
	case base == ".mcp.json", base == "mcp.json" && parent == ".vscode":
		return "mcp"
	}
	return ""
}

func countTree(abs string) fileCounts {
	c := fileCounts{kinds: map[string]int{}}
	_ = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if n := d.Name(); n == ".git" || n == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(abs, p)
		rel = filepath.ToSlash(rel)
		if k := treeKind(rel); k != "" {
			c.kinds[k]++
			if strings.Count(rel, "/") > 6 {
				c.deep++
			}
		}
		return nil
	})
	return c
}

func countTable(dirs []string, counts map[string]fileCounts) {
	fmt.Println("## Customization files in the trees (the harness's count by name; ahpls' own count where its JSON states one)")
	fmt.Println()
	kinds := []string{"skill", "plugin", "marketplace", "hooks", "claude-settings", "agent", "prompt-or-command", "instructions", "mcp"}
	fmt.Println("| repository | " + strings.Join(kinds, " | ") + " | more than 6 folders deep | ahpls says it checked |")
	fmt.Println("|---|" + strings.Repeat("---:|", len(kinds)+2))
	total := fileCounts{kinds: map[string]int{}}
	ahplsTotal := map[string]int{}
	stated := 0
	sorted := append([]string(nil), dirs...)
	sort.Strings(sorted)
	for _, d := range sorted {
		c := counts[d]
		row := []string{d}
		for _, k := range kinds {
			row = append(row, fmt.Sprint(c.kinds[k]))
			total.kinds[k] += c.kinds[k]
		}
		total.deep += c.deep
		row = append(row, fmt.Sprint(c.deep), statedCounts(c.ahpls))
		if c.ahpls != nil {
			stated++
			for k, n := range c.ahpls {
				ahplsTotal[k] += n
			}
		}
		fmt.Println("| " + strings.Join(row, " | ") + " |")
	}
	row := []string{"**all**"}
	for _, k := range kinds {
		row = append(row, fmt.Sprint(total.kinds[k]))
	}
	row = append(row, fmt.Sprint(total.deep), statedCounts(ahplsTotal))
	fmt.Println("| " + strings.Join(row, " | ") + " |")
	fmt.Println()
	fmt.Printf("repositories where ahpls' JSON states its file counts: %d of %d\n\n", stated, len(dirs))
}

func statedCounts(m map[string]int) string {
	if len(m) == 0 {
		return "—"
	}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// summary prints the "must show" numbers against their targets.
func summary(roots []*root, skills []*skillRun, findings map[string][]finding, repoName map[string]string, js []judgement) {
	agree, counted := 0, 0
	for _, r := range roots {
		if !claudeRoot(r) {
			continue
		}
		counted++
		if cell(r) < 2 {
			agree++
		}
	}
	prec := func(sev string) (t, f, u int) {
		for dir, fs := range findings {
			for _, x := range fs {
				if x.Severity != sev {
					continue
				}
				switch j := judge(js, repoName[dir], x); {
				case j == nil:
					u++
				case j.Verdict:
					t++
				default:
					f++
				}
			}
		}
		return
	}
	fmt.Println("## Must show (#25)")
	fmt.Println()
	tg := *targets
	if tg == "" {
		tg = "(default)"
	}
	fmt.Printf("corpus %s, list %q part %q, ahpls --targets %s\n\n", *corpus, *listFile, *part, tg)
	fmt.Println("| metric | measured | target |")
	fmt.Println("|---|---:|---:|")
	note := ""
	if *targets != "claude-code" {
		note = " (defined with --targets claude-code)"
	}
	fmt.Printf("| Claude agreement per root%s | %d/%d = %s | ≥ 99%% |\n", note, agree, counted, pct(agree, counted))
	for _, s := range []struct {
		sev, target string
	}{{"error", "≥ 95%"}, {"warning", "≥ 90%"}} {
		t, f, u := prec(s.sev)
		fmt.Printf("| %s precision | %d/%d = %s (%d unjudged) | %s |\n", s.sev, t, t+f, pct(t, t+f), u, s.target)
	}
	if !*skipSkill {
		_, nameRejected, shown, _, _ := nameRecall(skills, findings)
		note = ""
		if *targets != "" {
			note = " (defined with the default targets)"
		}
		fmt.Printf("| name recall%s | %d/%d = %s | ≥ 95%% |\n", note, shown, nameRejected, pct(shown, nameRejected))
	}
	fmt.Println()
}
