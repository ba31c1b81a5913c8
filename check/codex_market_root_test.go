package check

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// Batch 3 of issue #38: cxmarket/source said Codex skips an entry whose
// local path is `./` alone (17 judged false on the corpus), but Codex
// resolves `./` and `.` to the marketplace root since openai/codex PR
// #28771 (Codex 0.142.0). Such an entry is now checked like any other local
// one: its folder's manifest and name (`.`'s entry is misnamed here), while
// a path leaving the root is still reported.
func TestCodexMarketplaceRootEntry(t *testing.T) {
	root := filepath.Join("..", "scripts", "agree", "testdata", "codex-root-market")
	found, err := Run([]string{root}, diagnostics.Options{Targets: []model.Target{model.TargetCodex}, NoImpliedTargets: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		if strings.HasPrefix(f.Rule, "cxmarket/") {
			got = append(got, f.Rule+":"+f.Message)
		}
	}
	sort.Strings(got)
	want := []string{
		"cxmarket/plugin:Codex cannot install this plugin: its .codex-plugin/plugin.json names it `root-market`, not `root-dot`.",
		"cxmarket/source:Codex skips this entry: a local path must stay within the marketplace root (`./..`).",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
