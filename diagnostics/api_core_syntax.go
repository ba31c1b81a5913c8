package diagnostics

// The exported API that moved to core/syntax, kept here for the packages above.

import "github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

type Frontmatter = syntax.Frontmatter

func FrontmatterEntries(text []byte) (entries []FrontmatterEntry, ok bool) {
	return syntax.FrontmatterEntries(text)
}

type FrontmatterEntry = syntax.FrontmatterEntry

func SplitFrontmatter(text []byte) Frontmatter { return syntax.SplitFrontmatter(text) }
