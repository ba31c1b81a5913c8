package check

// `ahpls check --baseline FILE`: report only the findings a saved run
// (`--format json`) did not have, so a pipeline can adopt ahpls, or a new
// ahpls, without fixing every old finding first. A finding matches a saved
// one by path, rule and fingerprint (the rule, the path below the folder
// and the text of its line: lines added above it do not matter); a saved
// finding without a fingerprint (an older ahpls) matches by path, rule and
// message. Each saved finding matches at most one current one, so a second
// copy of an old problem is new.

import (
	"encoding/json"
	"fmt"
	"github.com/ahpls-dev/ahpls/wsfs"
	"path/filepath"
)

// maxBaselineSize bounds the file read: a saved run of a large monorepo
// is a few MiB.
const maxBaselineSize = 64 << 20

// baselineEntry is what a saved finding is matched on.
type baselineEntry struct {
	Path        string `json:"path"`
	Rule        string `json:"rule"`
	Message     string `json:"message"`
	Fingerprint string `json:"fingerprint"`
}

// Baseline is a saved run's findings, counted by match key.
type Baseline struct {
	byPrint map[[3]string]int
	byMsg   map[[3]string]int
}

// LoadBaseline reads a `--format json` output: the versioned object
// (version 1), or the object without a version, or the bare list of
// findings older releases printed.
func LoadBaseline(path string) (*Baseline, error) {
	// Through the safe reader: a baseline usually sits in the repository,
	// and a FIFO or a device named there must not hang the run.
	b, err := wsfs.ReadFile(path, maxBaselineSize)
	if err != nil {
		return nil, err
	}
	var rep struct {
		Version  *int            `json:"version"`
		Findings []baselineEntry `json:"findings"`
	}
	var entries []baselineEntry
	if err := json.Unmarshal(b, &rep); err == nil {
		if rep.Version != nil && *rep.Version > ReportVersion {
			return nil, fmt.Errorf("%s: JSON version %d is newer than this ahpls reads (%d)", path, *rep.Version, ReportVersion)
		}
		entries = rep.Findings
	} else if err := json.Unmarshal(b, &entries); err != nil {
		return nil, fmt.Errorf("%s: not the output of `ahpls check --format json`: %v", path, err)
	}
	bl := &Baseline{byPrint: map[[3]string]int{}, byMsg: map[[3]string]int{}}
	for _, e := range entries {
		p := baselinePath(e.Path)
		if e.Fingerprint != "" {
			bl.byPrint[[3]string{p, e.Rule, e.Fingerprint}]++
		} else {
			bl.byMsg[[3]string{p, e.Rule, e.Message}]++
		}
	}
	return bl, nil
}

func baselinePath(p string) string { return filepath.ToSlash(filepath.Clean(p)) }

// New returns the findings the baseline does not hold, in order, and how
// many it held back.
func (bl *Baseline) New(found []Finding) (out []Finding, known int) {
	byPrint := make(map[[3]string]int, len(bl.byPrint))
	for k, v := range bl.byPrint {
		byPrint[k] = v
	}
	byMsg := make(map[[3]string]int, len(bl.byMsg))
	for k, v := range bl.byMsg {
		byMsg[k] = v
	}
	out = []Finding{}
	for _, f := range found {
		p := baselinePath(f.Path)
		if k := [3]string{p, f.Rule, f.Fingerprint}; byPrint[k] > 0 {
			byPrint[k]--
			known++
			continue
		}
		if k := [3]string{p, f.Rule, f.Message}; byMsg[k] > 0 {
			byMsg[k]--
			known++
			continue
		}
		out = append(out, f)
	}
	return out, known
}
