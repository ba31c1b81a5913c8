package main

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/ahpls-dev/ahpls/diagnostics"
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
	in := []byte("{\n  \"a\": 1,\n  \"x\": {\n    \"ahpls.rules\": {\"type\": \"object\", \"s\": \"}\\\"{\"},\n    \"z\": [1]\n  }\n}\n")
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
	if _, err := rewrite([]byte(`{"b": 1}`)); err == nil {
		t.Fatal("a package.json without ahpls.rules must be an error")
	}
}
