package main

// The claims sampler (issue #38): `ahpls list --format json` says, per
// consumer, what it loads from a folder and why it does not load the rest.
// -list-sample N draws N of those claims over the corpus, stratified by
// consumer and status, with a seeded generator, so that a person can check
// each against the consumer's source or documentation (list-claims.tsv).

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

var (
	listSample    = flag.Int("list-sample", 0, "draw this many `ahpls list` claims over the corpus, stratified by consumer and status, print them as TSV and exit")
	sampleSeed    = flag.Uint64("seed", 1, "with -list-sample: the generator's seed")
	sampleTargets = flag.String("sample-targets", "codex,cursor,gemini-cli", "with -list-sample: the consumers whose claims are drawn")
)

// claim is one item of `ahpls list --format json` for one consumer.
type claim struct {
	Repo, Consumer          string
	Category, Name, Source  string
	Status, Install, Reason string
	Rule, ShadowedBy, Scope string
}

// stratum is the class a claim is drawn in: the consumer and what it does
// with the item ("loads", "loads once installed", "not-scanned", "fails",
// "shadowed", "disabled").
func (c claim) stratum() string {
	s := c.Status
	if s == "loads" && c.Install != "" {
		s = "loads-once-installed"
	}
	return c.Consumer + "/" + s
}

// parseList reads `ahpls list --format json` into claims of one repository.
func parseList(repo string, out []byte) ([]claim, error) {
	var doc struct {
		Consumers []struct {
			Target string `json:"target"`
			Items  []struct {
				Category   string `json:"category"`
				Name       string `json:"name"`
				Source     string `json:"source"`
				Status     string `json:"status"`
				Install    string `json:"install"`
				Reason     string `json:"reason"`
				Rule       string `json:"rule"`
				ShadowedBy string `json:"shadowedBy"`
				Scope      string `json:"scope"`
			} `json:"items"`
		} `json:"consumers"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		return nil, err
	}
	var cs []claim
	for _, c := range doc.Consumers {
		for _, it := range c.Items {
			cs = append(cs, claim{Repo: repo, Consumer: c.Target, Category: it.Category, Name: it.Name,
				Source: it.Source, Status: it.Status, Install: it.Install, Reason: it.Reason,
				Rule: it.Rule, ShadowedBy: it.ShadowedBy, Scope: it.Scope})
		}
	}
	return cs, nil
}

// drawClaims draws n claims: the strata (consumer/status) share n as evenly
// as they can (a stratum with fewer claims than its share gives the rest to
// the others, in stratum order), and within a stratum the claims, first put
// in a fixed order, are shuffled by a PCG generator seeded with seed. The
// same claims and seed give the same draw whatever order they came in.
func drawClaims(all []claim, n int, seed uint64) []claim {
	by := map[string][]claim{}
	for _, c := range all {
		by[c.stratum()] = append(by[c.stratum()], c)
	}
	var strata []string
	for s, cs := range by {
		strata = append(strata, s)
		sort.Slice(cs, func(i, j int) bool { return claimKey(cs[i]) < claimKey(cs[j]) })
	}
	sort.Strings(strata)
	// Water-filling: smallest strata first, each takes min(size, even share of what is left).
	order := append([]string(nil), strata...)
	sort.SliceStable(order, func(i, j int) bool { return len(by[order[i]]) < len(by[order[j]]) })
	take := map[string]int{}
	left := n
	for i, s := range order {
		share := left / (len(order) - i)
		if r := left % (len(order) - i); r > 0 && i >= len(order)-r {
			share++
		}
		k := min(share, len(by[s]))
		take[s] = k
		left -= k
	}
	var out []claim
	for i, s := range strata {
		cs := append([]claim(nil), by[s]...)
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		r.Shuffle(len(cs), func(a, b int) { cs[a], cs[b] = cs[b], cs[a] })
		out = append(out, cs[:take[s]]...)
	}
	return out
}

func claimKey(c claim) string {
	return strings.Join([]string{c.Repo, c.Consumer, c.Source, c.Category, c.Name, c.Status}, "\x00")
}

// sampleMain runs `ahpls list` over the corpus and prints the draw as
// list-claims.tsv rows with the verdict and evidence columns empty.
func sampleMain(bin string) {
	dirs, repoName, err := corpusRepos()
	if err != nil {
		fatal(err)
	}
	var all []claim
	for _, d := range dirs {
		cmd := exec.Command(bin, "list", "--format", "json", "--targets", *sampleTargets, ".")
		cmd.Dir = filepath.Join(*corpus, d)
		cmd.Stderr = io.Discard
		out, err := cmd.Output()
		if err != nil {
			fatal(fmt.Errorf("%s: ahpls list: %v", d, err))
		}
		cs, err := parseList(repoName[d], out)
		if err != nil {
			fatal(fmt.Errorf("%s: ahpls list: %v", d, err))
		}
		all = append(all, cs...)
	}
	drawn := drawClaims(all, *listSample, *sampleSeed)
	counts := map[string][2]int{}
	for _, c := range all {
		v := counts[c.stratum()]
		v[0]++
		counts[c.stratum()] = v
	}
	for _, c := range drawn {
		v := counts[c.stratum()]
		v[1]++
		counts[c.stratum()] = v
	}
	var strata []string
	for s := range counts {
		strata = append(strata, s)
	}
	sort.Strings(strata)
	fmt.Printf("# ahpls list claims, %d drawn of %d (seed %d, targets %s), per stratum drawn/all:", len(drawn), len(all), *sampleSeed, *sampleTargets)
	for _, s := range strata {
		fmt.Printf(" %s %d/%d", s, counts[s][1], counts[s][0])
	}
	fmt.Println()
	writeClaims(os.Stdout, drawn)
}

func writeClaims(w io.Writer, cs []claim) {
	fmt.Fprintln(w, "stratum\trepo\tcategory\tname\tsource\tclaim\tverdict\tevidence")
	for _, c := range cs {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t\t\n", c.stratum(), c.Repo, c.Category, oneLine(c.Name), c.Source, oneLine(c.says()))
	}
}

// says is the claim in words: the status and its reason, rule, install
// condition or winner.
func (c claim) says() string {
	parts := []string{c.Status}
	for _, p := range []string{c.Install, c.Reason} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if c.Rule != "" {
		parts = append(parts, "rule "+c.Rule)
	}
	if c.ShadowedBy != "" {
		parts = append(parts, "shadowed by "+c.ShadowedBy)
	}
	if c.Scope != "" {
		parts = append(parts, "scope "+c.Scope)
	}
	return strings.Join(parts, "; ")
}
