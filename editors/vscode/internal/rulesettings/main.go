// Command rulesettings writes the parts of the VS Code extension that come
// from Go tables: in package.json, the `ahpls.rules` setting (from
// diagnostics.Rules, so the Settings editor and settings.json offer every
// rule id with its summary and a link to its documentation), the
// other `ahpls.*` settings (from settings.Specs, whose `ahpls.targets`
// enum and default come from model.Consumers) and the
// activationEvents (from model.Kinds); and src/filekinds.ts, the document
// selector and activation patterns (from model.Kinds), and
// src/settingkeys.ts, the server keys the extension forwards; Neovim's
// lua/ahpls/filekinds.lua, the same patterns as Lua patterns and the
// filetypes. Tests keep the files in step with the tables; after a rule, kind or consumer change run
//
//	cd editors/vscode/internal/rulesettings && go generate
//
// In package.json only those members are replaced; the rest of the file
// keeps its text and key order.
package main

//go:generate go run . -o ../../package.json -filekinds ../../src/filekinds.ts -nvim-filekinds ../../../nvim/lua/ahpls/filekinds.lua -readme ../../../../README.md

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/settings"
)

// levels are the values a rule can be set to (server/settings.go parses them).
var levels = []string{"off", "error", "warning", "info", "hint"}

func main() {
	out := flag.String("o", "../../package.json", "package.json to update in place")
	kinds := flag.String("filekinds", "../../src/filekinds.ts", "filekinds.ts to write")
	nvimKinds := flag.String("nvim-filekinds", "../../../nvim/lua/ahpls/filekinds.lua", "Neovim's filekinds.lua to write")
	readme := flag.String("readme", "../../../../README.md", "README.md whose settings tables to update in place")
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
		err = os.WriteFile(filepath.Join(filepath.Dir(*kinds), "settingkeys.ts"), settingKeysTS(), 0o644)
	}
	if err == nil {
		err = os.WriteFile(*nvimKinds, fileKindsLua(), 0o644)
	}
	if err == nil {
		var old, updated []byte
		if old, err = os.ReadFile(*readme); err == nil {
			if updated, err = rewriteReadme(old); err == nil && !bytes.Equal(old, updated) {
				err = os.WriteFile(*readme, updated, 0o644)
			}
		}
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

// rewrite replaces the generated members of package.json: every `ahpls.*`
// setting of settings.Specs (`ahpls.rules` from the rule table) and the
// activationEvents.
func rewrite(pkg []byte) ([]byte, error) {
	for i, spec := range settings.Specs() {
		raw, err := marshal(spec.Schema)
		if spec.Key == "rules" {
			raw, err = ruleSetting()
		}
		if err != nil {
			return nil, err
		}
		key := "ahpls." + spec.Key
		if i > 0 && !bytes.Contains(pkg, []byte(`"`+key+`": `)) {
			// A new setting: placed after the one before it in Specs.
			if pkg, err = insertMember(pkg, "ahpls."+settings.Specs()[i-1].Key, key); err != nil {
				return nil, err
			}
		}
		if pkg, err = replaceMember(pkg, key, raw); err != nil {
			return nil, err
		}
	}
	return replaceMember(pkg, "activationEvents", mustMarshal(activationEvents()))
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

// insertMember adds an empty member key after the member after, at its
// indentation; replaceMember then fills it.
func insertMember(pkg []byte, after, key string) ([]byte, error) {
	k := []byte(`"` + after + `": `)
	at := bytes.Index(pkg, k)
	if at < 0 {
		return nil, fmt.Errorf("package.json has no %q member", after)
	}
	end, err := valueEnd(pkg, at+len(k))
	if err != nil {
		return nil, fmt.Errorf("%q: %w", after, err)
	}
	lineStart := bytes.LastIndexByte(pkg[:at], '\n') + 1
	indent := string(pkg[lineStart:at])
	out := append([]byte(nil), pkg[:end]...)
	out = append(out, ",\n"+indent+`"`+key+`": {}`...)
	return append(out, pkg[end:]...), nil
}

func mustMarshal(v any) []byte {
	b, err := marshal(v)
	if err != nil {
		panic(err) // only plain strings and slices are marshalled
	}
	return b
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
