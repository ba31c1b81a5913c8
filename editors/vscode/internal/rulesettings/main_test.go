package main

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// TestPackageJSONUpToDate fails when a rule was added, renamed or
// re-described without regenerating package.json (go generate here).
func TestPackageJSONUpToDate(t *testing.T) {
	pkg, err := os.ReadFile("../../package.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := rewrite(pkg)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pkg, want) {
		t.Fatal("editors/vscode/package.json's ahpls.rules is out of date: run `go generate` in editors/vscode/internal/rulesettings")
	}
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
	in := []byte("{\n  \"a\": 1,\n  \"activationEvents\": [\"x\"],\n  \"x\": {\n    \"ahpls.rules\": {\"type\": \"object\", \"s\": \"}\\\"{\"},\n    \"ahpls.targets\": {},\n    \"z\": [1]\n  }\n}\n")
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
	got, err := os.ReadFile("../../src/filekinds.ts")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, fileKindsTS()) {
		t.Fatal("editors/vscode/src/filekinds.ts is out of date with model.Kinds: run `go generate` in editors/vscode/internal/rulesettings")
	}
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
	got, err := os.ReadFile("../../../nvim/lua/ahpls/filekinds.lua")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, fileKindsLua()) {
		t.Fatal("editors/nvim/lua/ahpls/filekinds.lua is out of date with model.Kinds: run `go generate` in editors/vscode/internal/rulesettings")
	}
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
