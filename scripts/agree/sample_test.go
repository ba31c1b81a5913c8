package main

import (
	"fmt"
	"reflect"
	"testing"
)

func sampleClaims() []claim {
	var cs []claim
	add := func(consumer, status, install string, n int) {
		for i := 0; i < n; i++ {
			cs = append(cs, claim{Repo: "o/r", Consumer: consumer, Category: "skills",
				Name: fmt.Sprintf("%s-%s-%d", consumer, status, i), Source: fmt.Sprintf("s/%s/%s/%d/SKILL.md", consumer, status, i),
				Status: status, Install: install})
		}
	}
	add("codex", "loads", "", 40)
	add("codex", "not-scanned", "", 300)
	add("codex", "loads", "once plugin p from marketplace m is installed", 3)
	add("cursor", "fails", "", 2)
	add("cursor", "loads", "", 25)
	add("gemini-cli", "not-scanned", "", 90)
	return cs
}

func TestDrawClaimsIsDeterministicAndIgnoresInputOrder(t *testing.T) {
	cs := sampleClaims()
	a := drawClaims(cs, 50, 1)
	rev := append([]claim(nil), cs...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	if b := drawClaims(rev, 50, 1); !reflect.DeepEqual(a, b) {
		t.Fatal("the same claims in another order drew differently")
	}
	if c := drawClaims(cs, 50, 2); reflect.DeepEqual(a, c) {
		t.Fatal("seed 2 drew what seed 1 drew")
	}
}

func TestDrawClaimsStratifies(t *testing.T) {
	got := map[string]int{}
	drawn := drawClaims(sampleClaims(), 50, 1)
	seen := map[string]bool{}
	for _, c := range drawn {
		got[c.stratum()]++
		if seen[claimKey(c)] {
			t.Fatalf("%s drawn twice", c.Name)
		}
		seen[claimKey(c)] = true
	}
	if len(drawn) != 50 {
		t.Fatalf("drew %d, want 50", len(drawn))
	}
	// Six strata share 50: the two small ones give all they have (3 and 2),
	// the other four share the remaining 45 as 11/11/11/12.
	want := map[string]int{
		"codex/loads-once-installed": 3, "cursor/fails": 2,
		"cursor/loads": 11, "codex/loads": 11, "gemini-cli/not-scanned": 11, "codex/not-scanned": 12,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("per stratum %v, want %v", got, want)
	}
}

func TestDrawClaimsTakesAllWhenFewer(t *testing.T) {
	cs := sampleClaims()[:10]
	if got := drawClaims(cs, 50, 1); len(got) != 10 {
		t.Fatalf("drew %d of 10", len(got))
	}
}

func TestParseListReadsInstallAndReason(t *testing.T) {
	out := []byte(`{"consumers":[{"target":"codex","name":"Codex","items":[
	{"category":"skills","name":"a","source":"x/SKILL.md","status":"loads","install":"once plugin p is installed"},
	{"category":"skills","name":"b","source":"y/SKILL.md","status":"not-scanned","reason":"Codex reads project skills from .agents/skills"}]}]}`)
	cs, err := parseList("o/r", out)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].stratum() != "codex/loads-once-installed" || cs[1].stratum() != "codex/not-scanned" || cs[1].Reason == "" {
		t.Fatalf("parsed %+v", cs)
	}
}
