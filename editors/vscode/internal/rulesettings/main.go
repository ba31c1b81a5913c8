// Command rulesettings writes the parts of the VS Code extension that come
// from Go tables: in package.json, the `ahpls.rules` setting (from
// diagnostics.Rules, so the Settings editor and settings.json offer every
// rule id with its summary and a link to its documentation), the
// `ahpls.targets` enum and default (from model.Consumers) and the
// activationEvents (from model.Kinds); and src/filekinds.ts, the document
// selector and activation patterns (from model.Kinds); and Neovim's
// lua/ahpls/filekinds.lua, the same patterns as Lua patterns and the
// filetypes. Tests keep the files in step with the tables; after a rule, kind or consumer change run
//
//	cd editors/vscode/internal/rulesettings && go generate
//
// In package.json only those members are replaced; the rest of the file
// keeps its text and key order.
package main

//go:generate go run . -o ../../package.json -filekinds ../../src/filekinds.ts -nvim-filekinds ../../../nvim/lua/ahpls/filekinds.lua

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// levels are the values a rule can be set to (server/settings.go parses them).
var levels = []string{"off", "error", "warning", "info", "hint"}

func main() {
	out := flag.String("o", "../../package.json", "package.json to update in place")
	kinds := flag.String("filekinds", "../../src/filekinds.ts", "filekinds.ts to write")
	nvimKinds := flag.String("nvim-filekinds", "../../../nvim/lua/ahpls/filekinds.lua", "Neovim's filekinds.lua to write")
	flag.Parse()
	old, err := os.ReadFile(*out)
	if err == nil {
		var updated []byte
		updated, err = rewrite(old)
		if err == nil && !bytes.Equal(old, updated) {
			err = os.WriteFile(*out, updated, 0o644)
		}
	}
	if err == nil {
		err = os.WriteFile(*kinds, fileKindsTS(), 0o644)
	}
	if err == nil {
		err = os.WriteFile(*nvimKinds, fileKindsLua(), 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rulesettings:", err)
		os.Exit(1)
	}
}

// ruleSetting is the JSON schema of `ahpls.rules`.
func ruleSetting() ([]byte, error) {
	type level struct {
		Type                string   `json:"type"`
		Enum                []string `json:"enum"`
		MarkdownDescription string   `json:"markdownDescription,omitempty"`
	}
	type orderedProps struct {
		ids  []string
		defs map[string]level
	}
	rules := diagnostics.Rules()
	props := orderedProps{defs: map[string]level{}}
	for _, r := range rules {
		if _, dup := props.defs[r.ID]; dup {
			continue
		}
		props.ids = append(props.ids, r.ID)
		props.defs[r.ID] = level{
			Type:                "string",
			Enum:                levels,
			MarkdownDescription: fmt.Sprintf("%s ([documentation](%s))", strings.TrimSpace(r.Summary), model.RuleHref(r.ID)),
		}
	}
	var b bytes.Buffer
	b.WriteString(`{"type":"object","default":{},"properties":{`)
	for i, id := range props.ids {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := marshal(id)
		v, err := marshal(props.defs[id])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteString(`},"additionalProperties":false,`)
	d, _ := marshal(fmt.Sprintf("Severity per rule id (`off`, `error`, `warning`, `info`, `hint`), e.g. `{ \"skill/name-dir\": \"off\" }`. %d rules; see [the rule reference](https://github.com/ahpls-dev/ahpls/blob/main/docs/rules.md).", len(props.ids)))
	b.WriteString(`"markdownDescription":`)
	b.Write(d)
	b.WriteString(`}`)
	return b.Bytes(), nil
}

// marshal is json.Marshal without HTML escaping (the file is read by
// people and by VS Code, not put in a web page).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// rewrite replaces the generated members of package.json.
func rewrite(pkg []byte) ([]byte, error) {
	rules, err := ruleSetting()
	if err != nil {
		return nil, err
	}
	members := []struct {
		key string
		raw []byte
	}{
		{"ahpls.rules", rules},
		{"ahpls.targets", targetSetting()},
		{"activationEvents", mustMarshal(activationEvents())},
	}
	for _, m := range members {
		if pkg, err = replaceMember(pkg, m.key, m.raw); err != nil {
			return nil, err
		}
	}
	return pkg, nil
}

// replaceMember replaces the value of the member key, an object or an
// array, indented as the member is.
func replaceMember(pkg []byte, key string, raw []byte) ([]byte, error) {
	k := []byte(`"` + key + `": `)
	at := bytes.Index(pkg, k)
	if at < 0 {
		return nil, fmt.Errorf("package.json has no %q member", key)
	}
	start := at + len(k)
	end, err := valueEnd(pkg, start)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", key, err)
	}
	lineStart := bytes.LastIndexByte(pkg[:at], '\n') + 1
	indent := string(pkg[lineStart:at])
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, raw, indent, "  "); err != nil {
		return nil, err
	}
	out := append([]byte(nil), pkg[:start]...)
	out = append(out, pretty.Bytes()...)
	return append(out, pkg[end:]...), nil
}

func mustMarshal(v any) []byte {
	b, err := marshal(v)
	if err != nil {
		panic(err) // only plain strings and slices are marshalled
	}
	return b
}

// targetSetting is the JSON schema of `ahpls.targets`: the known targets
// and the default ones. settings.ts forwards what the user wrote; the
// server warns about an unknown target.
func targetSetting() []byte {
	ids := func(ts []model.Target) []string {
		out := make([]string, len(ts))
		for i, t := range ts {
			out[i] = string(t)
		}
		return out
	}
	type items struct {
		Type string   `json:"type"`
		Enum []string `json:"enum"`
	}
	return mustMarshal(struct {
		Type                string   `json:"type"`
		Items               items    `json:"items"`
		UniqueItems         bool     `json:"uniqueItems"`
		Default             []string `json:"default"`
		MarkdownDescription string   `json:"markdownDescription"`
	}{"array", items{"string", ids(model.AllTargets)}, true, ids(model.DefaultTargets),
		"Consumers whose behaviour decides what is reported and how severely. An empty list means the default."})
}

// valueEnd finds the end of the JSON object that starts at pkg[start].
func valueEnd(pkg []byte, start int) (int, error) {
	if start >= len(pkg) || pkg[start] != '{' && pkg[start] != '[' {
		return 0, errors.New("not an object or array")
	}
	depth, inString := 0, false
	for i := start; i < len(pkg); i++ {
		c := pkg[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		}
	}
	return 0, errors.New("not closed")
}
