package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strings"
)

// entry is one row of the corpus list (scripts/agree/corpus.tsv): a public
// repository, the commit checked out, its shape and the part it belongs to.
type entry struct {
	Repo, Commit, Shape, Part string
}

// readList reads a tab-separated list with the header
// "repo commit shape part"; blank lines and lines starting with '#' are
// skipped.
func readList(path string) ([]entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []entry
	sc := bufio.NewScanner(f)
	header := false
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if !header {
			header = true
			if strings.Join(cols, " ") != "repo commit shape part" {
				return nil, fmt.Errorf("%s:%d: the header must be repo, commit, shape, part (tab-separated)", path, n)
			}
			continue
		}
		if len(cols) != 4 {
			return nil, fmt.Errorf("%s:%d: want 4 tab-separated columns, have %d", path, n, len(cols))
		}
		out = append(out, entry{Repo: cols[0], Commit: cols[1], Shape: cols[2], Part: cols[3]})
	}
	return out, sc.Err()
}

// dirName is the corpus folder of a repository: owner+name.
func dirName(repo string) string { return strings.Replace(repo, "/", "+", 1) }

// assignParts is the rule that keeps a third aside, fixed before any tuning
// and balanced over shapes: within each shape, repositories are ordered by
// the SHA-256 of "owner/name", and every third one (ranks 1, 4, 7, …) is
// "holdout"; the rest are "tune". No one chooses which repository lands where.
func assignParts(es []entry) map[string]string {
	byShape := map[string][]string{}
	for _, e := range es {
		byShape[e.Shape] = append(byShape[e.Shape], e.Repo)
	}
	parts := map[string]string{}
	for _, repos := range byShape {
		sort.Slice(repos, func(i, j int) bool { return nameHash(repos[i]) < nameHash(repos[j]) })
		for i, r := range repos {
			parts[r] = "tune"
			if i%3 == 1 {
				parts[r] = "holdout"
			}
		}
	}
	return parts
}

func nameHash(repo string) string {
	h := sha256.Sum256([]byte(repo))
	return hex.EncodeToString(h[:])
}

// selectPart checks the list's parts against the rule (a list edited after
// the fact is refused) and returns the entries of one part ("all": every one).
func selectPart(es []entry, part string) ([]entry, error) {
	want := assignParts(es)
	var out []entry
	for _, e := range es {
		if e.Part != want[e.Repo] {
			return nil, fmt.Errorf("%s is %q in the list but the rule (assignParts) says %q", e.Repo, e.Part, want[e.Repo])
		}
		if part == "all" || e.Part == part {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no repository in part %q", part)
	}
	return out, nil
}
