package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/ahpls-dev/ahpls/internal/jsonnum"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// This file interprets tools.schema.json itself, so that the published
// schema stays the one source of truth for the structure of a config while
// ahpls links no general JSON Schema library for it: the one it used
// compiled its meta-schemas at process start, in every ahpls process. Only
// the keywords the schema uses are understood; compiling refuses any other,
// so the schema cannot grow a keyword that is silently ignored. Unlike a
// general validator it reports every problem with the node it is about, so
// each one can be underlined where it is.

// schemaKeyword reports whether compileConfigSchema understands a keyword.
// Keywords that only annotate are accepted and ignored.
func schemaKeyword(k string) bool {
	switch k {
	case "$defs", "$id", "$ref", "$schema", "additionalProperties", "const",
		"description", "exclusiveMinimum", "items", "maximum", "minItems",
		"minLength", "minimum", "pattern", "prefixItems", "properties",
		"propertyNames", "required", "title", "type":
		return true
	}
	return false
}

// cschema is one compiled (sub)schema. A nil *cschema is the schema true.
type cschema struct {
	never bool // the schema false

	ref    string // "#/..." as written; target is set after compiling
	target *cschema
	at     string // where the schema is, for errors

	types      []string // JSON type names; empty means any
	hasConst   bool
	constVal   any // decoded with UseNumber
	constText  string
	properties map[string]*cschema
	// additional is the schema for members not in properties; additionalSet
	// says whether the keyword is present (nil then means true).
	additional    *cschema
	additionalSet bool
	propertyNames *cschema
	required      []string
	prefixItems   []*cschema
	items         *cschema
	itemsSet      bool
	minItems      int
	minLength     int
	pattern       *regexp.Regexp
	minimum       *bound
	maximum       *bound
	exclMinimum   *bound
}

// bound is a numeric limit as written in the schema and as a decimal.
type bound struct {
	text string
	dec  jsonnum.Decimal
}

// configSchema is compiled on first use, not at init: nothing of it is
// needed by an ahpls process that reads no tools config.
var configSchema = sync.OnceValues(func() (*cschema, error) {
	return compileConfigSchema(ConfigSchema)
})

// compileConfigSchema compiles a schema document that uses only
// schemaKeywords; $ref must be a local JSON pointer ("#/...").
func compileConfigSchema(doc []byte) (*cschema, error) {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var raw any
	if err := d.Decode(&raw); err != nil {
		return nil, err
	}
	c := schemaCompiler{root: raw, byPointer: map[string]*cschema{}}
	s, err := c.compile(raw, "")
	if err != nil {
		return nil, err
	}
	for _, r := range c.refs {
		t, err := c.resolve(r.ref)
		if err != nil {
			return nil, fmt.Errorf("%s: $ref %q: %v", pointerOrRoot(r.at), r.ref, err)
		}
		r.target = t
	}
	// A chain of $refs that comes back to where it started would apply
	// itself to the same value for ever.
	for _, r := range c.refs {
		seen := map[*cschema]bool{}
		for s := r; s != nil && s.ref != ""; s = s.target {
			if seen[s] {
				return nil, fmt.Errorf("%s: $ref %q: a cycle of references", pointerOrRoot(r.at), r.ref)
			}
			seen[s] = true
		}
	}
	return s, nil
}

type schemaCompiler struct {
	root      any
	byPointer map[string]*cschema
	refs      []*cschema // to resolve once every subschema is compiled
}

func pointerOrRoot(p string) string {
	if p == "" {
		return "schema root"
	}
	return p
}

func (c *schemaCompiler) compile(v any, at string) (*cschema, error) {
	if s, ok := c.byPointer[at]; ok {
		return s, nil
	}
	s := &cschema{}
	switch m := v.(type) {
	case bool:
		s.never = !m
		c.byPointer[at] = s
		return s, nil
	case map[string]any:
		c.byPointer[at] = s
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !schemaKeyword(k) {
				return nil, schemaError(at, "keyword %q is not supported by the tools config validator", k)
			}
		}
		for _, k := range keys {
			if err := c.keyword(s, at, k, m[k]); err != nil {
				return nil, err
			}
		}
		if s.ref != "" {
			s.at = at
			c.refs = append(c.refs, s)
		}
		return s, nil
	}
	return nil, schemaError(at, "a schema must be an object or a boolean")
}

// schemaError is a problem of the schema at pointer at.
func schemaError(at, format string, args ...any) error {
	return fmt.Errorf("%s: %s", pointerOrRoot(at), fmt.Sprintf(format, args...))
}

// schemaTypes reads a "type" keyword: a known JSON type or a list of them.
func schemaTypes(at string, val any) ([]string, error) {
	var types []string
	switch t := val.(type) {
	case string:
		types = []string{t}
	case []any:
		for _, e := range t {
			name, ok := e.(string)
			if !ok {
				return nil, schemaError(at, "type must be a string or an array of strings")
			}
			types = append(types, name)
		}
	default:
		return nil, schemaError(at, "type must be a string or an array of strings")
	}
	for _, t := range types {
		if !jsonType(t) {
			return nil, schemaError(at, "unknown type %q", t)
		}
	}
	return types, nil
}

// schemaRequired reads a "required" keyword: an array of strings.
func schemaRequired(at string, val any) ([]string, error) {
	list, ok := val.([]any)
	if !ok {
		return nil, schemaError(at, "required must be an array of strings")
	}
	var out []string
	for _, e := range list {
		name, ok := e.(string)
		if !ok {
			return nil, schemaError(at, "required must be an array of strings")
		}
		out = append(out, name)
	}
	return out, nil
}

// keyword compiles keyword k (value val) of the schema object at at into s.
func (c *schemaCompiler) keyword(s *cschema, at, k string, val any) error {
	fail := func(format string, args ...any) error { return schemaError(at, format, args...) }
	sub := func(key string, v any) (*cschema, error) {
		return c.compile(v, at+"/"+escapeToken(key))
	}
	var err error
	switch k {
	case "$ref":
		ref, ok := val.(string)
		if !ok || !strings.HasPrefix(ref, "#") {
			return fail("$ref must be a local reference starting with '#'")
		}
		s.ref = ref
	case "$defs":
		defs, ok := val.(map[string]any)
		if !ok {
			return fail("$defs must be an object")
		}
		for name, d := range defs {
			if _, err = c.compile(d, at+"/$defs/"+escapeToken(name)); err != nil {
				return err
			}
		}
	case "type":
		s.types, err = schemaTypes(at, val)
	case "const":
		s.hasConst, s.constVal = true, val
		b, _ := json.Marshal(val)
		s.constText = string(b)
	case "properties":
		props, ok := val.(map[string]any)
		if !ok {
			return fail("properties must be an object")
		}
		s.properties = map[string]*cschema{}
		for name, p := range props {
			if s.properties[name], err = c.compile(p, at+"/properties/"+escapeToken(name)); err != nil {
				return err
			}
		}
	case "additionalProperties":
		s.additionalSet = true
		s.additional, err = sub(k, val)
	case "propertyNames":
		s.propertyNames, err = sub(k, val)
	case "items":
		s.itemsSet = true
		s.items, err = sub(k, val)
	case "prefixItems":
		list, ok := val.([]any)
		if !ok {
			return fail("prefixItems must be an array")
		}
		for i, p := range list {
			ps, err := c.compile(p, fmt.Sprintf("%s/prefixItems/%d", at, i))
			if err != nil {
				return err
			}
			s.prefixItems = append(s.prefixItems, ps)
		}
	case "required":
		s.required, err = schemaRequired(at, val)
	case "minItems", "minLength":
		n, ok := val.(json.Number)
		i, err2 := strconv.Atoi(string(n))
		if !ok || err2 != nil || i < 0 {
			return fail("%s must be a non-negative integer", k)
		}
		if k == "minItems" {
			s.minItems = i
		} else {
			s.minLength = i
		}
	case "minimum", "maximum", "exclusiveMinimum":
		n, ok := val.(json.Number)
		if !ok {
			return fail("%s must be a number", k)
		}
		dec, ok := jsonnum.ParseDecimal(string(n))
		if !ok {
			return fail("%s must be a number", k)
		}
		b := &bound{text: string(n), dec: dec}
		switch k {
		case "minimum":
			s.minimum = b
		case "maximum":
			s.maximum = b
		default:
			s.exclMinimum = b
		}
	case "pattern":
		p, ok := val.(string)
		if !ok {
			return fail("pattern must be a string")
		}
		if s.pattern, err = regexp.Compile(p); err != nil {
			return fail("pattern: %v", err)
		}
	case "$id", "$schema", "title", "description":
		// annotations and identification only
	}
	return err
}

// resolve finds the compiled schema a local $ref points at.
func (c *schemaCompiler) resolve(ref string) (*cschema, error) {
	ptr := strings.TrimPrefix(ref, "#")
	if ptr != "" && !strings.HasPrefix(ptr, "/") {
		return nil, fmt.Errorf("only JSON pointers are supported")
	}
	// Normalise the pointer the way compile names subschemas.
	var b strings.Builder
	if ptr != "" {
		for _, tok := range strings.Split(ptr[1:], "/") {
			b.WriteString("/" + escapeToken(unescapeToken(tok)))
		}
	}
	if s, ok := c.byPointer[b.String()]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("points at no subschema")
}

// escapeToken writes a JSON pointer token (RFC 6901).
func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func unescapeToken(s string) string {
	if !strings.Contains(s, "~") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

func jsonType(t string) bool {
	switch t {
	case "array", "boolean", "integer", "null", "number", "object", "string":
		return true
	}
	return false
}

// schemaIssue is one way a value fails the schema. The node is the value
// concerned; path its location as JSON pointer tokens.
type schemaIssue struct {
	node    *jnode
	path    []string
	keyword string
	// names are the missing members of required.
	names []string
	// members are those concerned: for additionalProperties the unexpected
	// ones, for propertyNames the one whose name is not allowed.
	members []*jnode
	msg     string
}

// validate returns every issue of the value n against s, in document
// order. The walk is linear in the size of the value times the depth of
// the schema; there are no applicators that could make it backtrack.
func (s *cschema) validate(n *jnode) []schemaIssue {
	var v schemaValidator
	v.value(s, n, nil)
	return v.issues
}

type schemaValidator struct{ issues []schemaIssue }

func (v *schemaValidator) add(n *jnode, path []string, keyword, msg string) *schemaIssue {
	v.issues = append(v.issues, schemaIssue{node: n, path: path, keyword: keyword, msg: msg})
	return &v.issues[len(v.issues)-1]
}

func (v *schemaValidator) value(s *cschema, n *jnode, path []string) {
	if s == nil {
		return
	}
	if s.never {
		v.add(n, path, "false", "not allowed here")
		return
	}
	// type and const decide alone: once the kind of value is wrong, the
	// keywords about its content say nothing useful.
	if len(s.types) > 0 && !hasType(s.types, n) {
		got := typeName(n)
		if got == "integer" {
			got = "number" // "got integer, want string" reads oddly
		}
		v.add(n, path, "type", fmt.Sprintf("got %s, want %s", got, strings.Join(s.types, " or ")))
		return
	}
	if s.hasConst && !jsonEqual(n, s.constVal) {
		v.add(n, path, "const", "value must be "+s.constText)
		return
	}
	if s.target != nil {
		v.value(s.target, n, path)
	}
	switch n.kind {
	case '{':
		v.object(s, n, path)
	case '[':
		v.array(s, n, path)
	case '"':
		str, _ := n.str()
		if cnt := utf8.RuneCountInString(str); cnt < s.minLength {
			msg := fmt.Sprintf("must be at least %d characters long, got %d", s.minLength, cnt)
			if s.minLength == 1 {
				msg = "must not be empty"
			}
			v.add(n, path, "minLength", msg)
		}
		if s.pattern != nil && !s.pattern.MatchString(str) {
			v.add(n, path, "pattern", fmt.Sprintf("%q does not match the pattern %s", str, s.pattern))
		}
	case '0':
		d, ok := jsonnum.ParseDecimal(string(n.raw))
		if !ok {
			return
		}
		if s.minimum != nil && d.Cmp(s.minimum.dec) < 0 {
			v.add(n, path, "minimum", fmt.Sprintf("must be at least %s, got %s", s.minimum.text, n.raw))
		}
		if s.maximum != nil && d.Cmp(s.maximum.dec) > 0 {
			v.add(n, path, "maximum", fmt.Sprintf("must be at most %s, got %s", s.maximum.text, n.raw))
		}
		if s.exclMinimum != nil && d.Cmp(s.exclMinimum.dec) <= 0 {
			v.add(n, path, "exclusiveMinimum", fmt.Sprintf("must be greater than %s, got %s", s.exclMinimum.text, n.raw))
		}
	}
}

func (v *schemaValidator) object(s *cschema, n *jnode, path []string) {
	if len(s.required) > 0 {
		var missing []string
		for _, name := range s.required {
			if n.member(name) == nil {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			v.add(n, path, "required", "missing required "+plural("property", len(missing))+" "+quoteList(missing)).names = missing
		}
	}
	var unexpected []*jnode
	for _, m := range n.kids {
		mpath := append(path[:len(path):len(path)], m.key)
		if p, ok := s.properties[m.key]; ok {
			v.value(p, m, mpath)
			continue
		}
		if !s.additionalSet {
			continue
		}
		if s.additional != nil && s.additional.never {
			unexpected = append(unexpected, m)
			continue
		}
		v.value(s.additional, m, mpath)
	}
	if len(unexpected) > 0 {
		v.add(n, path, "additionalProperties", fmt.Sprintf("%d unknown %s", len(unexpected), plural("property", len(unexpected)))).members = unexpected
	}
	if s.propertyNames != nil {
		for _, m := range n.kids {
			// The name is a string instance of its own, without a place in
			// the document; its problems are reported on the member.
			name := &jnode{kind: '"', raw: []byte(strconv.Quote(m.key))}
			var sub schemaValidator
			sub.value(s.propertyNames, name, nil)
			if len(sub.issues) > 0 {
				v.add(n, path, "propertyNames", sub.issues[0].msg).members = []*jnode{m}
			}
		}
	}
}

func (v *schemaValidator) array(s *cschema, n *jnode, path []string) {
	if len(n.kids) < s.minItems {
		v.add(n, path, "minItems", fmt.Sprintf("must have at least %d %s, got %d", s.minItems, plural("item", s.minItems), len(n.kids)))
	}
	for i, kid := range n.kids {
		ipath := append(path[:len(path):len(path)], strconv.Itoa(i))
		switch {
		case i < len(s.prefixItems):
			v.value(s.prefixItems[i], kid, ipath)
		case s.itemsSet:
			v.value(s.items, kid, ipath)
		}
	}
}

func hasType(types []string, n *jnode) bool {
	got := typeName(n)
	for _, t := range types {
		if t == got || t == "number" && got == "integer" {
			return true
		}
	}
	return false
}

// typeName is the JSON Schema type of a value; a number with no fraction
// (1, 1.0, 1e3) is an integer.
func typeName(n *jnode) string {
	switch n.kind {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case '0':
		if d, ok := jsonnum.ParseDecimal(string(n.raw)); ok && d.IsInteger() {
			return "integer"
		}
		return "number"
	case 't', 'f':
		return "boolean"
	}
	return "null"
}

// jsonEqual compares a value with a constant decoded with UseNumber;
// numbers are equal when their values are (1 equals 1.0).
func jsonEqual(n *jnode, c any) bool {
	switch c := c.(type) {
	case nil:
		return n.kind == 'n'
	case bool:
		return c && n.kind == 't' || !c && n.kind == 'f'
	case string:
		s, ok := n.str()
		return ok && s == c
	case json.Number:
		a, ok1 := jsonnum.ParseDecimal(string(n.raw))
		b, ok2 := jsonnum.ParseDecimal(string(c))
		return n.kind == '0' && ok1 && ok2 && a.Cmp(b) == 0
	case []any:
		if n.kind != '[' || len(n.kids) != len(c) {
			return false
		}
		for i, k := range n.kids {
			if !jsonEqual(k, c[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		if n.kind != '{' || len(n.kids) != len(c) {
			return false
		}
		for _, k := range n.kids {
			cv, ok := c[k.key]
			if !ok || !jsonEqual(k, cv) {
				return false
			}
		}
		return true
	}
	return false
}
