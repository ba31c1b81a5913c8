// Command synthskills writes a synthetic workspace of skills shaped like
// real ones, for measuring `ahpls check` and the server on big trees
// (issue #30). Nothing it writes is committed:
//
//	go run ./scripts/synthskills -n 50000 -out /tmp/skills-50k
//
// Each skill is .claude/skills/<name>/SKILL.md below a group folder of
// 100 skills (g0000/, g0001/, …, like a monorepo's packages), about 12 KB:
// YAML front matter whose name matches its folder, a description, and a
// Markdown body of headings, prose, lists, a code fence and relative links
// to its references/ folder, which holds one small file. Every second
// skill also links a reference that does not exist, so half the skills
// have one finding (md/link) and half have none. The text varies by skill
// (a fixed seed), so no two files are the same bytes.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// perGroup skills share a group folder, so no folder lists thousands of
// entries (real trees are deep, not wide).
const perGroup = 100

var words = strings.Fields(`the skill reads a file and checks its fields before it writes
a report for each folder in the workspace with the name of the tool that made it and the
time it took agents load this text when a request matches the description so keep it short
and precise use the scripts in this folder to build test and release the package run the
linter first then the unit tests then the integration tests on a clean checkout`)

func main() {
	n := flag.Int("n", 10000, "number of skills")
	out := flag.String("out", "", "folder to create (must not exist)")
	size := flag.Int("size", 12<<10, "approximate bytes per SKILL.md")
	flag.Parse()
	if *out == "" || *n < 0 {
		fmt.Fprintln(os.Stderr, "usage: synthskills -n N -out DIR [-size BYTES]")
		os.Exit(2)
	}
	if _, err := os.Stat(*out); err == nil {
		fmt.Fprintf(os.Stderr, "synthskills: %s exists; remove it or name another folder\n", *out)
		os.Exit(2)
	}
	if err := write(*out, *n, *size); err != nil {
		fmt.Fprintln(os.Stderr, "synthskills:", err)
		os.Exit(1)
	}
}

func write(out string, n, size int) error {
	rng := rand.New(rand.NewPCG(30, 30))
	for i := range n {
		name := fmt.Sprintf("skill-%05d", i)
		dir := filepath.Join(out, fmt.Sprintf("g%04d", i/perGroup), ".claude", "skills", name)
		if err := os.MkdirAll(filepath.Join(dir, "references"), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skill(rng, name, i%2 == 1, size)), 0o644); err != nil {
			return err
		}
		ref := "# Guide\n\n" + sentence(rng, 60) + "\n"
		if err := os.WriteFile(filepath.Join(dir, "references", "guide.md"), []byte(ref), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// skill is one SKILL.md of about size bytes; broken adds a link to a
// reference that does not exist.
func skill(rng *rand.Rand, name string, broken bool, size int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\nname: %s\ndescription: %s. Use when the user asks to %s.\n---\n\n", name, sentence(rng, 14), sentence(rng, 6))
	fmt.Fprintf(&b, "# %s\n\n%s\n\nSee [the guide](references/guide.md) before you start.\n\n", name, sentence(rng, 40))
	if broken {
		b.WriteString("The checklist is in [the checklist](references/checklist.md).\n\n")
	}
	for sec := 1; b.Len() < size; sec++ {
		fmt.Fprintf(&b, "## Step %d: %s\n\n", sec, sentence(rng, 4))
		fmt.Fprintf(&b, "%s\n\n", sentence(rng, 50+rng.IntN(40)))
		for range 3 + rng.IntN(3) {
			fmt.Fprintf(&b, "- %s\n", sentence(rng, 8+rng.IntN(8)))
		}
		b.WriteString("\n")
		if sec%3 == 0 {
			fmt.Fprintf(&b, "```bash\n./scripts/run.sh --step %d --verbose\n```\n\n", sec)
		}
		if sec%4 == 0 {
			fmt.Fprintf(&b, "Details are in [step %d](references/guide.md#step-%d) and on [the site](https://example.com/docs/%d).\n\n", sec, sec, sec)
		}
	}
	return b.String()
}

func sentence(rng *rand.Rand, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = words[rng.IntN(len(words))]
	}
	s := strings.Join(ws, " ")
	return strings.ToUpper(s[:1]) + s[1:]
}
