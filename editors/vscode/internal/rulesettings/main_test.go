package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/settings"
)

// TestPackageJSONUpToDate fails when a rule was added, renamed or
// re-described without regenerating package.json (go generate here).
func TestPackageJSONUpToDate(t *testing.T) {
	pkg := assertRewritten(t, "../../package.json", rewrite, "the rule table and settings.Specs")
	var doc struct {
		Contributes struct {
			Configuration struct {
				Properties map[string]struct {
					Properties map[string]struct {
						Enum []string `json:"enum"`
					} `json:"properties"`
				} `json:"properties"`
			} `json:"configuration"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(pkg, &doc); err != nil {
		t.Fatal(err)
	}
	props := doc.Contributes.Configuration.Properties["ahpls.rules"].Properties
	for _, r := range diagnostics.Rules() {
		if p, ok := props[r.ID]; !ok || len(p.Enum) != len(levels) {
			t.Errorf("rule %s: not a choice in ahpls.rules (%v)", r.ID, p.Enum)
		}
	}
}

func TestRewriteKeepsTheRestOfTheFile(t *testing.T) {
	var members strings.Builder
	for _, spec := range settings.Specs() {
		fmt.Fprintf(&members, "    \"ahpls.%s\": {\"type\": \"object\", \"s\": \"}\\\"{\"},\n", spec.Key)
	}
	in := []byte("{\n  \"a\": 1,\n  \"activationEvents\": [\"x\"],\n  \"x\": {\n" + members.String() + "    \"z\": [1]\n  }\n}\n")
	out, err := rewrite(in)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		A int `json:"a"`
		X map[string]json.RawMessage
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if v.A != 1 || string(v.X["z"]) != "[1]" || !bytes.Contains(v.X["ahpls.rules"], []byte(`"additionalProperties": false`)) {
		t.Fatalf("unexpected result:\n%s", out)
	}
	if !bytes.Contains(v.X["ahpls.targets"], []byte(`"claude-upload"`)) {
		t.Fatalf("ahpls.targets not written:\n%s", out)
	}
	if _, err := rewrite([]byte(`{"b": 1}`)); err == nil {
		t.Fatal("a package.json without ahpls.rules must be an error")
	}
}

// TestFileKindsUpToDate fails when src/filekinds.ts was edited by hand or
// model.Kinds changed without regenerating it (go generate here).
func TestFileKindsUpToDate(t *testing.T) {
	assertGenerated(t, "../../src/filekinds.ts", fileKindsTS(), "model.Kinds")
}

// TestTargetsEnumIsTheConsumers checks the generated enum against the
// consumer table itself, not against the generator.
func TestTargetsEnumIsTheConsumers(t *testing.T) {
	pkg, err := os.ReadFile("../../package.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		ActivationEvents []string `json:"activationEvents"`
		Contributes      struct {
			Configuration struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"configuration"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(pkg, &doc); err != nil {
		t.Fatal(err)
	}
	var p struct {
		Items   struct{ Enum []string } `json:"items"`
		Default []string                `json:"default"`
	}
	if err := json.Unmarshal(doc.Contributes.Configuration.Properties["ahpls.targets"], &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Items.Enum) != len(model.Consumers) {
		t.Fatalf("ahpls.targets enum %v, consumers %d", p.Items.Enum, len(model.Consumers))
	}
	for i, c := range model.Consumers {
		if p.Items.Enum[i] != string(c.Target) {
			t.Errorf("enum[%d] = %s, want %s", i, p.Items.Enum[i], c.Target)
		}
		if c.Default != slices.Contains(p.Default, string(c.Target)) {
			t.Errorf("%s: default %v in the table, not so in package.json", c.Target, c.Default)
		}
	}
	for _, k := range model.Kinds {
		for _, a := range k.Activation {
			if !slices.Contains(doc.ActivationEvents, "workspaceContains:"+a) {
				t.Errorf("kind %s: %s is not an activation event", k.Kind, a)
			}
		}
	}
}

// TestNvimFileKindsUpToDate is TestFileKindsUpToDate for Neovim's copy.
func TestNvimFileKindsUpToDate(t *testing.T) {
	assertGenerated(t, "../../../nvim/lua/ahpls/filekinds.lua", fileKindsLua(), "model.Kinds")
}

func TestLuaPatterns(t *testing.T) {
	for glob, want := range map[string][]string{
		"**/SKILL.md":                {"/SKILL%.md$"},
		"**/{mcp,.mcp}.json":         {"/mcp%.json$", "/%.mcp%.json$"},
		"**/.github/agents/**/*.md":  {"/%.github/agents/[^/]*%.md$", "/%.github/agents/.*/[^/]*%.md$"},
		"**/.github/hooks/*.json":    {"/%.github/hooks/[^/]*%.json$"},
		"**/CLAUDE.local.md":         {"/CLAUDE%.local%.md$"},
		"**/copilot-setup-steps.yml": {"/copilot%-setup%-steps%.yml$"},
	} {
		if got := luaPatterns(glob); !slices.Equal(got, want) {
			t.Errorf("%s: got %q, want %q", glob, got, want)
		}
	}
}

// TestReadmeUpToDate fails when a settings table or the consumer table of README.md was edited
// by hand or settings.Specs changed without regenerating it.
func TestReadmeUpToDate(t *testing.T) {
	assertRewritten(t, "../../../../README.md", rewriteReadme, "settings.Specs and model.Consumers")
}

// TestEverySettingIsASpec: package.json declares exactly the settings of
// settings.Specs, in their order (none is written by hand).
func TestEverySettingIsASpec(t *testing.T) {
	pkg, err := os.ReadFile("../../package.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Contributes struct {
			Configuration struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"configuration"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(pkg, &doc); err != nil {
		t.Fatal(err)
	}
	props := doc.Contributes.Configuration.Properties
	// In the order of Specs: each member's place in the file follows the
	// one before.
	var keys []string
	at := 0
	for _, s := range settings.Specs() {
		i := bytes.Index(pkg[at:], []byte(`"ahpls.`+s.Key+`": `))
		if i < 0 {
			t.Fatalf("ahpls.%s is missing or out of order", s.Key)
		}
		at += i
		keys = append(keys, "ahpls."+s.Key)
	}
	if len(props) != len(keys) {
		t.Errorf("package.json declares %d settings, settings.Specs %d", len(props), len(keys))
	}
	for _, k := range keys {
		if _, ok := props[k]; !ok {
			t.Errorf("%s is not a setting of package.json", k)
		}
	}
}

// TestSettingKeysUpToDate is TestFileKindsUpToDate for src/settingkeys.ts.
func TestSettingKeysUpToDate(t *testing.T) {
	assertGenerated(t, "../../src/settingkeys.ts", settingKeysTS(), "settings.Specs")
}

// TestRewriteAddsANewSetting: a Spec that package.json does not declare
// yet is inserted after the one before it.
func TestRewriteAddsANewSetting(t *testing.T) {
	pkg, err := os.ReadFile("../../package.json")
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(pkg, []byte(`        "ahpls.host": `))
	j := bytes.Index(pkg, []byte(`        "ahpls.hostHeaders": `))
	if i < 0 || j < i {
		t.Fatal("package.json: ahpls.host must precede ahpls.hostHeaders")
	}
	without := append(append([]byte(nil), pkg[:i]...), pkg[j:]...)
	got, err := rewrite(without)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, pkg) {
		t.Fatalf("re-adding ahpls.host did not restore package.json:\n%s", got[max(0, i-200):min(len(got), j+200)])
	}
}

// assertGenerated fails when the committed file at path differs from what
// the generator writes from table.
func assertGenerated(t *testing.T, path string, want []byte, table string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is out of date with %s (edited by hand?): run `go generate` in editors/vscode/internal/rulesettings", path, table)
	}
}

// assertRewritten is assertGenerated for a file the generator updates in
// place; it returns the file.
func assertRewritten(t *testing.T, path string, rewrite func([]byte) ([]byte, error), table string) []byte {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := rewrite(got)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is out of date with %s (edited by hand?): run `go generate` in editors/vscode/internal/rulesettings", path, table)
	}
	return got
}
