// Command rulesettings writes the `ahpls.rules` setting of the VS Code
// extension's package.json from the rule table (diagnostics.Rules, which
// includes tools/config), so the Settings editor and settings.json
// offer every rule id with its summary and a link to its documentation. A
// test keeps package.json in step with the table; after a rule change run
//
//	cd editors/vscode/internal/rulesettings && go generate
//
// Only the `"ahpls.rules": {…}` member is replaced; the rest of the file
// keeps its text and key order.
package main

//go:generate go run . -o ../../package.json

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
	flag.Parse()
	old, err := os.ReadFile(*out)
	if err == nil {
		var updated []byte
		updated, err = rewrite(old)
		if err == nil && !bytes.Equal(old, updated) {
			err = os.WriteFile(*out, updated, 0o644)
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

// rewrite replaces the value of the "ahpls.rules" member in package.json.
func rewrite(pkg []byte) ([]byte, error) {
	key := []byte(`"ahpls.rules": `)
	at := bytes.Index(pkg, key)
	if at < 0 {
		return nil, errors.New(`package.json has no "ahpls.rules" setting`)
	}
	start := at + len(key)
	end, err := valueEnd(pkg, start)
	if err != nil {
		return nil, err
	}
	lineStart := bytes.LastIndexByte(pkg[:at], '\n') + 1
	indent := string(pkg[lineStart:at])
	raw, err := ruleSetting()
	if err != nil {
		return nil, err
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, raw, indent, "  "); err != nil {
		return nil, err
	}
	out := append([]byte(nil), pkg[:start]...)
	out = append(out, pretty.Bytes()...)
	return append(out, pkg[end:]...), nil
}

// valueEnd finds the end of the JSON object that starts at pkg[start].
func valueEnd(pkg []byte, start int) (int, error) {
	if start >= len(pkg) || pkg[start] != '{' {
		return 0, errors.New(`"ahpls.rules" is not an object`)
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
	return 0, errors.New(`"ahpls.rules" is not closed`)
}
