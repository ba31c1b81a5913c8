package wsfs

import (
	"fmt"
	"path"
	"strings"
)

// DefaultExcludes are folders no walk enters: version control data and
// installed packages, which hold other people's files.
var DefaultExcludes = []string{".git", "node_modules"}

var defaultMatcher = mustMatcher(DefaultExcludes)

func mustMatcher(globs []string) *Matcher {
	m, err := NewMatcher(globs)
	if err != nil {
		panic(err)
	}
	return m
}

// Matcher decides which workspace paths are excluded. Globs use path.Match
// syntax per segment (`*`, `?`, `[a-z]`, `\` escapes) plus `**`, which
// matches any number of segments (zero included):
//
//   - a glob without a slash matches a file or folder name at any depth
//     (`fixtures`, `*.draft.md`);
//   - a glob with a slash matches the whole path from the workspace root
//     (`test/fixtures`, `**/testdata/**`, `docs/*/SKILL.md`); a leading `/`
//     or `./` and a trailing `/` are ignored;
//   - a matching folder excludes everything below it.
//
// The zero Matcher and nil exclude nothing.
type Matcher struct {
	globs []glob
}

type glob struct {
	src      string
	anywhere bool     // no slash: match any single segment
	literal  bool     // anywhere and free of glob syntax: compare by ==
	segs     []string // split on '/', "**" kept as a segment
}

// NewMatcher compiles DefaultExcludes followed by extra. A malformed glob is
// an error naming it.
func NewMatcher(extra []string) (*Matcher, error) {
	m := &Matcher{}
	for _, g := range append(append([]string(nil), DefaultExcludes...), extra...) {
		if err := m.add(g); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *Matcher) add(src string) error {
	g := strings.TrimSpace(src)
	g = strings.TrimPrefix(g, "./")
	g = strings.TrimLeft(g, "/")
	g = strings.TrimRight(g, "/")
	if g == "" {
		return fmt.Errorf("exclude glob %q is empty", src)
	}
	segs := strings.Split(g, "/")
	for _, s := range segs {
		if s == "**" {
			continue
		}
		if _, err := path.Match(s, ""); err != nil {
			return fmt.Errorf("exclude glob %q: %v", src, err)
		}
	}
	for _, e := range m.globs {
		if e.src == g {
			return nil
		}
	}
	anywhere := len(segs) == 1 && segs[0] != "**"
	m.globs = append(m.globs, glob{src: g, anywhere: anywhere, literal: anywhere && !strings.ContainsAny(g, `*?[\\`), segs: segs})
	return nil
}

// Globs returns the compiled globs (defaults first), cleaned.
func (m *Matcher) Globs() []string {
	if m == nil {
		return nil
	}
	out := make([]string, len(m.globs))
	for i, g := range m.globs {
		out[i] = g.src
	}
	return out
}

// Match reports whether rel (slash-separated, relative to the workspace
// root) or any folder above it is excluded.
func (m *Matcher) Match(rel string) bool {
	if m == nil || len(m.globs) == 0 || rel == "" || rel == "." {
		return false
	}
	// Segments are walked in place for the common single-segment globs
	// (.git, node_modules): the walk asks this for every entry.
	var segs []string
	for _, g := range m.globs {
		if g.anywhere {
			rest := rel
			for {
				s, after, more := strings.Cut(rest, "/")
				if g.literal {
					if s == g.segs[0] {
						return true
					}
				} else if ok, _ := path.Match(g.segs[0], s); ok {
					return true
				}
				if !more {
					break
				}
				rest = after
			}
			continue
		}
		if segs == nil {
			segs = strings.Split(rel, "/")
		}
		// A folder match excludes its contents: try every prefix.
		for n := 1; n <= len(segs); n++ {
			if matchSegs(g.segs, segs[:n]) {
				return true
			}
		}
	}
	return false
}

// matchSegs matches glob segments against path segments; "**" takes any
// number of path segments.
func matchSegs(g, p []string) bool {
	for len(g) > 0 {
		if g[0] == "**" {
			for len(g) > 0 && g[0] == "**" {
				g = g[1:]
			}
			if len(g) == 0 {
				return true
			}
			for i := 0; i <= len(p); i++ {
				if matchSegs(g, p[i:]) {
					return true
				}
			}
			return false
		}
		if len(p) == 0 {
			return false
		}
		if ok, _ := path.Match(g[0], p[0]); !ok {
			return false
		}
		g, p = g[1:], p[1:]
	}
	return len(p) == 0
}
