package wsfs

import (
	"bytes"
	"path"
	"strings"
)

// The walker honours .gitignore files (issue #25): users expect dist/,
// vendor/ and .venv/ left alone, and a repository's ignored files are
// nobody's customizations. This is the subset of gitignore(5) a walker
// needs, written here rather than taken from a dependency:
//
//   - blank lines and lines starting with '#' are skipped; trailing spaces
//     are dropped unless escaped with '\';
//   - '!' negates (a later match re-includes), '\!' and '\#' are literal;
//   - a trailing '/' matches folders only;
//   - a pattern with a '/' at its start or middle is anchored to the folder
//     of its .gitignore, one without matches a name at any depth below it;
//   - '*', '?' and '[…]' ('[!…]' negated) match within one segment, '**'
//     any number of segments, a trailing '/**' everything inside;
//   - a deeper .gitignore overrides its parents, and the last matching line
//     of a file wins;
//   - nothing below an ignored folder is re-included (git does not enter
//     it either).
//
// Not read: .git/info/exclude and core.excludesFile, which are one user's
// settings, not the repository's.

// GitIgnoreFile is the name of the ignore files the walker reads.
const GitIgnoreFile = ".gitignore"

// maxGitIgnoreSize bounds one .gitignore read; larger files are not read.
const maxGitIgnoreSize = 1 << 20

// Ignore is the .gitignore rules in force in one folder: its own file's
// rules over its parents'. It is immutable, so subfolders share it.
type Ignore struct {
	parent *Ignore
	base   string // folder of the .gitignore, slash-separated ("" = walk root)
	rules  []ignoreRule
}

type ignoreRule struct {
	negate   bool
	dirOnly  bool
	anchored bool     // matched against the whole path below base
	segs     []string // path.Match segments; "**" spans segments
}

// ParseGitIgnore compiles the text of the .gitignore in folder base
// (slash-separated, relative to the walk root) on top of parent (nil at the
// root). A file without rules returns parent itself.
func ParseGitIgnore(parent *Ignore, base string, text []byte) *Ignore {
	var rules []ignoreRule
	for _, line := range bytes.Split(text, []byte("\n")) {
		if r, ok := parseIgnoreLine(string(bytes.TrimSuffix(line, []byte("\r")))); ok {
			rules = append(rules, r)
		}
	}
	if len(rules) == 0 {
		return parent
	}
	return &Ignore{parent: parent, base: base, rules: rules}
}

func parseIgnoreLine(s string) (ignoreRule, bool) {
	if s == "" || s[0] == '#' {
		return ignoreRule{}, false
	}
	// Trailing spaces go unless the last one is escaped.
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	if s == "" {
		return ignoreRule{}, false // a line of spaces
	}
	var r ignoreRule
	if s[0] == '!' {
		r.negate = true
		s = s[1:]
	}
	if strings.HasSuffix(s, "/") {
		r.dirOnly = true
		s = strings.TrimRight(s, "/")
	}
	if strings.HasPrefix(s, "/") {
		r.anchored = true
		s = strings.TrimLeft(s, "/")
	}
	if s == "" {
		return ignoreRule{}, false
	}
	if strings.Contains(s, "/") {
		r.anchored = true
	}
	segs := strings.Split(s, "/")
	for i, g := range segs {
		if g == "**" {
			continue
		}
		g = strings.ReplaceAll(g, "[!", "[^")
		if _, err := path.Match(g, ""); err != nil {
			return ignoreRule{}, false // git skips what it cannot parse; so do we
		}
		segs[i] = g
	}
	if n := len(segs); n > 1 && segs[n-1] == "**" {
		// "a/**" is everything inside a, not a itself.
		segs = append(segs[:n-1], "*", "**")
	}
	r.segs = segs
	return r, true
}

// Match reports whether rel (slash-separated, relative to the walk root) is
// ignored by the rules in force in its folder; dir says it is a folder.
// Folders above rel are not consulted: the walker never enters an ignored
// folder (IgnoredPath checks them for a path found otherwise).
func (ig *Ignore) Match(rel string, dir bool) bool {
	var segs []string
	for g := ig; g != nil; g = g.parent {
		sub := rel
		if g.base != "" {
			var ok bool
			if sub, ok = strings.CutPrefix(rel, g.base+"/"); !ok {
				continue
			}
		}
		segs = nil // per level: sub differs
		for i := len(g.rules) - 1; i >= 0; i-- {
			r := &g.rules[i]
			if r.dirOnly && !dir {
				continue
			}
			var hit bool
			if r.anchored {
				if segs == nil {
					segs = strings.Split(sub, "/")
				}
				hit = matchSegs(r.segs, segs)
			} else {
				hit, _ = path.Match(r.segs[0], path.Base(sub))
			}
			if hit {
				return !r.negate
			}
		}
	}
	return false
}

// LoadIgnore reads the .gitignore files of root and of every folder on the
// way down to the folder dir (slash-separated, "" = root) and returns the
// rules in force in dir, and whether dir or a folder above it is itself
// ignored (keep and tracked exempt paths as the walker does).
func LoadIgnore(root, dir string, keep func(rel string) bool, tracked *Tracked) (ig *Ignore, ignored bool) {
	ig = readIgnore(root, "", nil)
	if dir == "" || dir == "." {
		return ig, false
	}
	segs := strings.Split(dir, "/")
	for i := range segs {
		rel := strings.Join(segs[:i+1], "/")
		if !ignored && ig.Match(rel, true) && (keep == nil || !keep(rel)) && !tracked.Has(rel, true) {
			ignored = true
		}
		ig = readIgnore(root, rel, ig)
	}
	return ig, ignored
}

// IgnoredPath reports whether the file rel below root is ignored by the
// .gitignore files of its folders (or sits in an ignored folder) and
// neither keep nor tracked exempts it: the server asks this for files it
// hears of outside a walk, so they are treated as the walk treats them.
// The caller decides whether root is in a git work tree (GitTracked).
func IgnoredPath(root, rel string, keep func(rel string) bool, tracked *Tracked) bool {
	if (keep != nil && keep(rel)) || tracked.Has(rel, false) {
		return false
	}
	dir := path.Dir(rel)
	if dir == "." {
		dir = ""
	}
	ig, ignored := LoadIgnore(root, dir, keep, tracked)
	return ignored || ig.Match(rel, false)
}

// readIgnore adds the .gitignore of folder rel below root, if it is a
// readable regular file inside root, to parent.
func readIgnore(root, rel string, parent *Ignore) *Ignore {
	b, err := ReadIn(root, path.Join(rel, GitIgnoreFile), maxGitIgnoreSize+1)
	if err != nil || len(b) > maxGitIgnoreSize {
		return parent
	}
	return ParseGitIgnore(parent, rel, b)
}
