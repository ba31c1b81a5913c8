package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/internal/jsonnum"
	"github.com/google/jsonschema-go/jsonschema"
)

// inputSchemaURL is the base URI of every tool input schema: a relative
// $id or $ref resolves against it, and nothing is ever fetched from it.
const inputSchemaURL = "mem://ahpls/tool-input.json"

// inputSchemaDraft reports whether an input schema's $schema names a
// draft the library validates (none means draft 2020-12).
func inputSchemaDraft(s string) bool {
	switch s {
	case "", "https://json-schema.org/draft/2020-12/schema",
		"http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#":
		return true
	}
	return false
}

// compileInput compiles a tool's input schema. It never loads anything
// from the network or disk: a $ref must point inside the schema.
func compileInput(raw []byte) (_ *jsonschema.Resolved, err error) {
	// The library is not ours; a schema it cannot handle must not take
	// the server down.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("inputSchema cannot be used: %v", r)
		}
	}()
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var doc any
	if err := d.Decode(&doc); err != nil {
		return nil, fmt.Errorf("inputSchema is not valid JSON: %v", err)
	}
	if err := checkInputSchema(doc); err != nil {
		return nil, fmt.Errorf("inputSchema: %v", err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("inputSchema: %v", err)
	}
	// encoding/json matched keywords to fields ignoring case ("AnYOf" is
	// anyOf to the library): check again what the library actually read,
	// written back with its own spelling.
	canon, err := json.Marshal(&s)
	if err != nil {
		return nil, fmt.Errorf("inputSchema: %v", err)
	}
	d = json.NewDecoder(bytes.NewReader(canon))
	d.UseNumber()
	doc = nil
	if err := d.Decode(&doc); err != nil {
		return nil, fmt.Errorf("inputSchema: %v", err)
	}
	if err := checkInputSchema(doc); err != nil {
		return nil, fmt.Errorf("inputSchema: %v", err)
	}
	rs, err := s.Resolve(&jsonschema.ResolveOptions{BaseURI: inputSchemaURL, Loader: refuseLoad})
	if err != nil {
		return nil, fmt.Errorf("inputSchema: %v", err)
	}
	return rs, nil
}

// refuseLoad refuses every external schema: a workspace file must not make
// ahpls read other files or fetch URLs. (Without a Loader the library
// refuses too; being explicit keeps it so whatever its default becomes.)
func refuseLoad(*url.URL) (*jsonschema.Schema, error) {
	return nil, errors.New("not allowed: a $ref must point inside the input schema")
}

// checkInputSchema does what the library leaves to a meta-schema it does
// not apply: type names are known and the draft is one it validates. It
// also refuses references that would make validation apply schemas to
// the same value in a circle, which would recurse until the process dies.
func checkInputSchema(doc any) error {
	root, ok := doc.(map[string]any)
	if !ok {
		if _, isBool := doc.(bool); isBool {
			return nil
		}
		return errors.New("must be a JSON object")
	}
	var draft string
	if v, present := root["$schema"]; present {
		s, ok := v.(string)
		if !ok {
			return errors.New("$schema must be a string")
		}
		draft = s
	}
	if !inputSchemaDraft(draft) {
		return fmt.Errorf("$schema %q is not supported: use draft 2020-12 (%s) or draft-07 (%s)", draft,
			"https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#")
	}
	g := schemaGraph{
		draft7:  strings.Contains(draft, "draft-07"),
		byURI:   map[string]string{},
		anchors: map[string]string{},
		dyn:     map[string][]string{},
		nodes:   map[string]map[string]any{},
	}
	base, _ := url.Parse(inputSchemaURL)
	g.byURI[inputSchemaURL] = ""
	if err := g.walk(root, "", base); err != nil {
		return err
	}
	return g.findCycle()
}

// schemaGraph knows every subschema of an input schema by its JSON
// pointer, and which subschemas apply to the same value as which.
type schemaGraph struct {
	draft7  bool
	byURI   map[string]string   // base URI (no fragment) → pointer
	anchors map[string]string   // base URI#anchor → pointer
	dyn     map[string][]string // $dynamicAnchor name → pointers
	nodes   map[string]map[string]any
	bases   []nodeBase
}

type nodeBase struct {
	ptr  string
	base *url.URL
}

// Where subschemas are, and which of them apply to the same value as the
// schema holding them (constants: nothing runs at process start).
var (
	schemaKeys      = []string{"additionalProperties", "propertyNames", "additionalItems", "contains", "not", "if", "then", "else", "unevaluatedItems", "unevaluatedProperties", "contentSchema"}
	schemaListKeys  = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	schemaMapKeys   = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
	sameValueSingle = []string{"not", "if", "then", "else"}
	sameValueLists  = []string{"allOf", "anyOf", "oneOf"}
	sameValueMaps   = []string{"dependentSchemas", "dependencies"}
)

func (g *schemaGraph) walk(v any, ptr string, base *url.URL) error {
	s, ok := v.(map[string]any)
	if !ok {
		return nil // a boolean schema applies nothing further
	}
	g.nodes[ptr] = s
	if id, ok := s["$id"].(string); ok && id != "" && !(g.draft7 && s["$ref"] != nil) {
		u, err := url.Parse(id)
		if err != nil {
			return fmt.Errorf("%s: $id: %v", pointerOrRoot(ptr), err)
		}
		if g.draft7 && strings.HasPrefix(id, "#") {
			g.anchors[base.String()+"#"+u.Fragment] = ptr
		} else {
			base = base.ResolveReference(u)
			base.Fragment = ""
			g.byURI[base.String()] = ptr
		}
	}
	if !g.draft7 {
		if a, ok := s["$anchor"].(string); ok && a != "" {
			g.anchors[base.String()+"#"+a] = ptr
		}
		if a, ok := s["$dynamicAnchor"].(string); ok && a != "" {
			g.anchors[base.String()+"#"+a] = ptr
			g.dyn[a] = append(g.dyn[a], ptr)
		}
	}
	g.bases = append(g.bases, nodeBase{ptr, base})
	for _, k := range schemaKeys {
		if err := g.walk(s[k], ptr+"/"+escapeToken(k), base); err != nil {
			return err
		}
	}
	if items, ok := s["items"].([]any); ok {
		for i, it := range items {
			if err := g.walk(it, ptr+"/items/"+strconv.Itoa(i), base); err != nil {
				return err
			}
		}
	} else if err := g.walk(s["items"], ptr+"/items", base); err != nil {
		return err
	}
	for _, k := range schemaListKeys {
		list, _ := s[k].([]any)
		for i, it := range list {
			if err := g.walk(it, ptr+"/"+k+"/"+strconv.Itoa(i), base); err != nil {
				return err
			}
		}
	}
	for _, k := range schemaMapKeys {
		m, _ := s[k].(map[string]any)
		for name, it := range m {
			if err := g.walk(it, ptr+"/"+escapeToken(k)+"/"+escapeToken(name), base); err != nil {
				return err
			}
		}
	}
	{
		var names []any
		switch t := s["type"].(type) {
		case nil:
		case string:
			names = []any{t}
		case []any:
			names = t
		default:
			return fmt.Errorf("%s: type must be a string or an array of strings", pointerOrRoot(ptr))
		}
		for _, n := range names {
			name, _ := n.(string)
			if !jsonType(name) {
				text, _ := json.Marshal(n)
				return fmt.Errorf("%s: unknown type %s (one of array, boolean, integer, null, number, object, string)", pointerOrRoot(ptr), text)
			}
		}
	}
	return nil
}

// refTargets returns the pointers of the subschemas a $ref or $dynamicRef
// may apply, as far as they can be found inside the schema (the library
// refuses the others).
func (g *schemaGraph) refTargets(ref string, base *url.URL, dynamic bool) []string {
	u, err := url.Parse(ref)
	if err != nil {
		return nil
	}
	abs := base.ResolveReference(u)
	frag := abs.Fragment
	abs.Fragment = ""
	doc, ok := g.byURI[abs.String()]
	if !ok {
		return nil
	}
	var out []string
	switch {
	case frag == "":
		out = append(out, doc)
	case strings.HasPrefix(frag, "/"):
		p := doc
		for _, tok := range strings.Split(frag[1:], "/") {
			p += "/" + escapeToken(unescapeToken(tok))
		}
		if _, ok := g.nodes[p]; ok {
			out = append(out, p)
		}
	default:
		if p, ok := g.anchors[abs.String()+"#"+frag]; ok {
			out = append(out, p)
		}
		if dynamic {
			out = append(out, g.dyn[frag]...)
		}
	}
	return out
}

// findCycle reports a circle of subschemas that apply to the same value.
func (g *schemaGraph) findCycle() error {
	edges := map[string][]string{}
	for _, nb := range g.bases {
		s := g.nodes[nb.ptr]
		var out []string
		if r, ok := s["$ref"].(string); ok {
			out = append(out, g.refTargets(r, nb.base, false)...)
		}
		if r, ok := s["$dynamicRef"].(string); ok {
			out = append(out, g.refTargets(r, nb.base, true)...)
		}
		for _, k := range sameValueSingle {
			if _, ok := s[k].(map[string]any); ok {
				out = append(out, nb.ptr+"/"+k)
			}
		}
		for _, k := range sameValueLists {
			list, _ := s[k].([]any)
			for i := range list {
				out = append(out, nb.ptr+"/"+k+"/"+strconv.Itoa(i))
			}
		}
		for _, k := range sameValueMaps {
			m, _ := s[k].(map[string]any)
			for name := range m {
				out = append(out, nb.ptr+"/"+k+"/"+escapeToken(name))
			}
		}
		edges[nb.ptr] = out
	}
	const (
		unseen = iota
		active
		done
	)
	state := map[string]int{}
	var visit func(p string) error
	visit = func(p string) error {
		state[p] = active
		for _, q := range edges[p] {
			switch state[q] {
			case active:
				return fmt.Errorf("%s: its references lead back to %s without looking inside the value (a cycle)", pointerOrRoot(p), pointerOrRoot(q))
			case unseen:
				if err := visit(q); err != nil {
					return err
				}
			}
		}
		state[p] = done
		return nil
	}
	for _, nb := range g.bases {
		if state[nb.ptr] == unseen {
			if err := visit(nb.ptr); err != nil {
				return err
			}
		}
	}
	return nil
}

// validateWith checks a parsed tool input (numbers as json.Number) against
// a compiled input schema.
func validateWith(rs *jsonschema.Resolved, input map[string]any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the input schema cannot be applied: %v", r)
		}
	}()
	err = rs.Validate(jsonnum.Copy(input))
	if err == nil {
		return nil
	}
	// The library nests "validating <schema>: " prefixes; the innermost
	// message says what is wrong, the pointers where.
	msg := err.Error()
	var where []string
	for strings.HasPrefix(msg, "validating ") {
		i := strings.Index(msg, ": ")
		if i < 0 {
			break
		}
		if w := msg[len("validating "):i]; w != "root" {
			where = append(where, w)
		}
		msg = msg[i+2:]
	}
	msg = tidyNumbers(msg)
	if len(where) > 0 {
		msg = fmt.Sprintf("%s (schema %s)", msg, where[len(where)-1])
	}
	return errors.New(msg)
}

// numberRenderings are compiled on first use: nothing at process start.
var numberRenderings = sync.OnceValue(func() (r struct{ keyword, ratioOne, zeroFraction, trailingZeros *regexp.Regexp }) {
	r.keyword = regexp.MustCompile(`^(minimum|maximum|exclusiveMinimum|exclusiveMaximum|multipleOf): `)
	r.ratioOne = regexp.MustCompile(`(^|[ (])(-?[0-9]+)/1\b`)
	r.zeroFraction = regexp.MustCompile(`\b([0-9]+)\.0+\b`)
	r.trailingZeros = regexp.MustCompile(`\b([0-9]+\.[0-9]*[1-9])0+\b`)
	return r
})

// tidyNumbers rewrites the library's number renderings in a message about
// a numeric limit ("0/1 is less than 1.000000") as written in JSON ("0 is
// less than 1"). Messages about other keywords quote instance strings,
// which must not be touched.
func tidyNumbers(msg string) string {
	r := numberRenderings()
	if !r.keyword.MatchString(msg) {
		return msg
	}
	msg = r.ratioOne.ReplaceAllString(msg, "$1$2")
	msg = r.zeroFraction.ReplaceAllString(msg, "$1")
	return r.trailingZeros.ReplaceAllString(msg, "$1")
}
