package diagnostics

// TestFixCorpus runs the fix guard and the independent verifier over
// checked-out repositories (scripts/agree/corpus.tsv), when
// AHPLS_FIX_CORPUS names the folder holding them (<owner>+<name> each):
//
//	AHPLS_FIX_CORPUS=/work/corpus go test ./diagnostics -run TestFixCorpus -v
//
// It counts, per rule, the fixes offered under a safe tier, those the guard
// demoted (and why), and checks every fix left safe with the verifier; with
// the guard off it counts the fixes the verifier rejects.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ahpls-dev/ahpls/model"
)

func TestFixCorpus(t *testing.T) {
	root := os.Getenv("AHPLS_FIX_CORPUS")
	if root == "" {
		t.Skip("set AHPLS_FIX_CORPUS to a folder of checked-out repositories")
	}
	repos, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	type tally struct{ offered, demoted, verified, unverifiable, rejected, offRejected int }
	byRule := map[string]*tally{}
	reasons := map[string]int{}
	at := func(rule string) *tally {
		if byRule[rule] == nil {
			byRule[rule] = &tally{}
		}
		return byRule[rule]
	}
	files := 0
	defer func() { fixGuardOff = false }()
	for _, repo := range repos {
		if !repo.IsDir() {
			continue
		}
		dir := filepath.Join(root, repo.Name())
		layout := dirLayout(dir)
		_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if e.IsDir() {
				if n := e.Name(); n == ".git" || n == "node_modules" {
					return filepath.SkipDir
				}
				return nil
			}
			if !e.Type().IsRegular() {
				return nil
			}
			rel := filepath.ToSlash(strings.TrimPrefix(p, dir+string(filepath.Separator)))
			kind := model.Classify(rel, layout)
			if kind == model.KindNone {
				return nil
			}
			text, err := os.ReadFile(p)
			if err != nil || len(text) > core.MaxFileSize {
				return nil
			}
			files++
			f := core.File{Path: rel, Kind: kind, Text: text, FS: dirFS(dir), Layout: layout}
			for _, d := range Check(f, core.Options{}) {
				if r, ok := LookupRule(d.Rule); !ok || r.Fix != core.FixSafe {
					continue
				}
				for _, fx := range d.Fixes {
					c := at(d.Rule)
					c.offered++
					if fx.Demoted != "" {
						c.demoted++
						reasons[d.Rule+": "+fx.Demoted]++
						continue
					}
					switch err := verifyFix(f, core.Options{}, d, fx); {
					case err == nil:
						c.verified++
					case errors.Is(err, errUnverifiable):
						c.unverifiable++
					default:
						c.rejected++
						t.Errorf("%s/%s: safe fix %q of %s rejected: %v", repo.Name(), rel, fx.Title, d.Rule, err)
					}
				}
			}
			fixGuardOff = true
			for _, d := range Check(f, core.Options{}) {
				if r, ok := LookupRule(d.Rule); !ok || r.Fix != core.FixSafe {
					continue
				}
				for _, fx := range d.Fixes {
					if fx.Demoted != "" {
						continue // demoted where it is made, not by the guard
					}
					if err := verifyFix(f, core.Options{}, d, fx); err != nil && !errors.Is(err, errUnverifiable) {
						at(d.Rule).offRejected++
						t.Logf("guard off: %s/%s %s %q: %v", repo.Name(), rel, d.Rule, fx.Title, err)
					}
				}
			}
			fixGuardOff = false
			return nil
		})
	}
	rules := make([]string, 0, len(byRule))
	for r := range byRule {
		rules = append(rules, r)
	}
	sort.Strings(rules)
	var sum tally
	t.Logf("%d customization files in %d repositories", files, len(repos))
	t.Logf("%-26s %8s %8s %8s %8s %8s %10s", "rule", "offered", "demoted", "verified", "unread", "rejected", "guard-off")
	for _, r := range rules {
		c := byRule[r]
		t.Logf("%-26s %8d %8d %8d %8d %8d %10d", r, c.offered, c.demoted, c.verified, c.unverifiable, c.rejected, c.offRejected)
		sum.offered += c.offered
		sum.demoted += c.demoted
		sum.verified += c.verified
		sum.unverifiable += c.unverifiable
		sum.rejected += c.rejected
		sum.offRejected += c.offRejected
	}
	t.Logf("%-26s %8d %8d %8d %8d %8d %10d", "total", sum.offered, sum.demoted, sum.verified, sum.unverifiable, sum.rejected, sum.offRejected)
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("demoted %4d  %s", reasons[k], k)
	}
}
