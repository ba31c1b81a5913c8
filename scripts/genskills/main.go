// Command genskills writes a synthetic workspace of skills shaped like real
// ones, for measuring the scan and `ahpls check` on big trees (#30): each
// skill is a folder under .github/skills with a SKILL.md of about 12 KB
// (frontmatter, sections, lists, a code block, links to its own
// references/ file and to two other skills) and that reference file. Every
// other skill has a finding (a name with upper-case letters and an
// underscore). Nothing is committed: generate, measure, delete.
//
//	go run ./scripts/genskills -n 10000 -out /tmp/ws10k
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	n := flag.Int("n", 10000, "number of skills")
	out := flag.String("out", "", "folder to create (must not exist)")
	size := flag.Int("size", 12*1024, "approximate SKILL.md size in bytes")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "genskills: -out is required")
		os.Exit(2)
	}
	if _, err := os.Stat(*out); err == nil {
		fmt.Fprintf(os.Stderr, "genskills: %s exists\n", *out)
		os.Exit(2)
	}
	for i := range *n {
		if err := writeSkill(*out, i, *n, *size); err != nil {
			fmt.Fprintln(os.Stderr, "genskills:", err)
			os.Exit(1)
		}
	}
}

func writeSkill(root string, i, n, size int) error {
	dir := filepath.Join(root, ".github", "skills", folderName(i))
	if err := os.MkdirAll(filepath.Join(dir, "references"), 0o755); err != nil {
		return err
	}
	name := folderName(i)
	if i%2 == 1 {
		name = fmt.Sprintf("Skill_%05d", i) // skill/name-charset (and the folder no longer matches)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "---\nname: %s\ndescription: Works with generated documents of kind %d. Use when the user asks about batch %d reports, summaries or exports.\nlicense: MIT\n---\n\n", name, i, i%97)
	fmt.Fprintf(&b, "# Skill %d\n\nThis skill handles generated reports. Read [the guide](references/guide.md) first, then see [a sibling](../%s/SKILL.md) and [another](../%s/SKILL.md).\n\n", i, folderName((i+1)%n), folderName((i+7)%n))
	for sec := 0; b.Len() < size; sec++ {
		fmt.Fprintf(&b, "## Step %d\n\n", sec+1)
		b.WriteString("When the input holds tables, keep their column order and units; when it holds prose, keep the headings and the order of the paragraphs. ")
		b.WriteString("Never drop a footnote: move it to the end of its section and number it again. Check each figure against the source before writing it.\n\n")
		fmt.Fprintf(&b, "- Open the file and read its first %d lines.\n- Write the summary to `out/%d.md`.\n- Run the checker and fix what it reports.\n\n", 10+sec, sec)
		if sec%3 == 0 {
			fmt.Fprintf(&b, "```bash\npython scripts/run.py --batch %d --step %d --out out/\n```\n\n", i, sec)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "references", "guide.md"), []byte("# Guide\n\nHow the reports are laid out.\n"), 0o644)
}

func folderName(i int) string { return fmt.Sprintf("skill-%05d", i) }
