// Package ahpschema validates Agent Host Protocol messages against the official
// JSON Schemas of AHP 0.8.0 (embedded from schema/, see schema/NOTICE).
//
// The room exists so that both sides of every AHP conversation ahpls takes part
// in can be checked against the published protocol: ahpclient's tests and the
// in-repo test host (package ahptest) run every frame they send or receive
// through ValidateMessage and treat a violation as a bug.
//
// Start with ValidateMessage (one whole JSON-RPC frame) and Pairing (the same,
// plus request/response pairing and result checking). Validate checks a bare
// payload against one `$defs` entry.
//
// The upstream schemas have known defects (docs/ahp.md §8.3). They are patched
// in memory when the schemas are first used; the embedded files stay identical
// to upstream:
//
//  1. actions.schema.json's StateAction starts with an unresolvable
//     `{"$ref":"#/$defs/"}`; it is redirected to commands.schema.json's copy.
//  2. SessionStatus is a closed enum although it is a bitset; it becomes
//     {"type":"integer","minimum":0} in every file.
//  4. `approved` in ChatToolCallApprovedAction/DeniedAction has no constraint;
//     it becomes `const true` / `const false`, which also makes the oneOf
//     discriminate.
//     -  commands.schema.json's StateAction oneOf becomes a binary
//     if/then/else tree on `type` whose leaves are the action definitions,
//     and an enum of all types where no leaf matches (same accepted values,
//     since every member requires its own `type` const; far faster, precise
//     errors).
//  5. ProtocolNotification cannot discriminate its members; notifications are
//     validated per method instead (see hostNotifications).
//
// Validation uses github.com/google/jsonschema-go (Draft 2020-12), whose
// package init is a few hundred allocations; nothing of the schemas is read
// before the first validation, and then only the files it needs (see
// schemaFile; convert.go for how schemas and numbers reach the library).
package ahpschema

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/internal/jsonnum"
	"github.com/google/jsonschema-go/jsonschema"
)

//go:embed schema/*.schema.json schema/NOTICE
var schemaFS embed.FS

// Notice is the upstream licence notice that must travel with the schemas
// (print it wherever the schemas are redistributed, e.g. `ahpls version`).
func Notice() string {
	b, _ := schemaFS.ReadFile("schema/NOTICE")
	return string(b)
}

// Files are the schema files by the short name Validate takes.
var Files = []string{"actions", "commands", "errors", "notifications", "state"}

const idPrefix = "https://microsoft.github.io/agent-host-protocol/schema/"

func fileID(file string) string { return idPrefix + file + ".schema.json" }

// schemaFile is one embedded schema file, read, patched and resolved on first
// use (nothing happens at package init: a process that never validates pays
// nothing). Each step runs once; the results are read-only afterwards and
// shared by concurrent validations.
type schemaFile struct {
	name string

	parseOnce sync.Once
	doc       *jsonschema.Schema // patched; root carries the dispatch properties
	defs      map[string]bool    // $defs names
	// actionDefs (commands only) maps an action's `type` to its $defs name,
	// so a single action is checked against its own definition (and a
	// violation reported against it) rather than the whole union.
	actionDefs map[string]string
	parseErr   error

	resolveOnce sync.Once
	resolved    *jsonschema.Resolved
	resolveErr  error
}

// files holds the five files in the order of Files; the zero values need no
// initialisation.
var files [5]schemaFile

func file(name string) (*schemaFile, bool) {
	i := slices.Index(Files, name)
	if i < 0 || i >= len(files) {
		return nil, false
	}
	f := &files[i]
	f.parseOnce.Do(func() { f.name = name; f.parseErr = f.parse() })
	return f, true
}

// The library validates against the root of a resolved schema only, and
// resolving costs a walk of the whole file, so each file is resolved once
// with a root that dispatches on the one property of its instance: the root
// has a property per $defs entry, `{"<def>": {"$ref": "#/$defs/<def>"}}`,
// and Validate wraps the value as `{"<def>": value}`. The price is one map
// look-up per definition per validation (~340 for commands).

func (f *schemaFile) parse() error {
	raw, err := schemaFS.ReadFile("schema/" + f.name + ".schema.json")
	if err != nil {
		return err
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return fmt.Errorf("ahpschema: %s: %w", f.name, err)
	}
	defs, err := patch(f.name, v)
	if err != nil {
		return err
	}
	f.defs = make(map[string]bool, len(defs))
	for k := range defs {
		f.defs[k] = true
	}
	if f.name == "commands" {
		f.actionDefs = map[string]string{}
		indexActions(defs, f.actionDefs)
		discriminate(defs, f.actionDefs)
	}
	doc, err := toSchema(v, f.name)
	if err != nil {
		return fmt.Errorf("ahpschema: %w", err)
	}
	if doc.ID != fileID(f.name) {
		return fmt.Errorf("ahpschema: %s: $id is %q, want %q", f.name, doc.ID, fileID(f.name))
	}
	doc.Properties = make(map[string]*jsonschema.Schema, len(f.defs))
	for d := range f.defs {
		doc.Properties[d] = &jsonschema.Schema{Ref: "#/$defs/" + escapePointer(d)}
	}
	f.doc = doc
	return nil
}

// escapePointer escapes a JSON pointer segment (RFC 6901).
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func (f *schemaFile) resolve() (*jsonschema.Resolved, error) {
	f.resolveOnce.Do(func() {
		f.resolved, f.resolveErr = f.doc.Resolve(&jsonschema.ResolveOptions{BaseURI: fileID(f.name), Loader: loadEmbedded})
		if f.resolveErr != nil {
			f.resolveErr = fmt.Errorf("ahpschema: resolve %s: %w", f.name, f.resolveErr)
		}
	})
	return f.resolved, f.resolveErr
}

// loadEmbedded serves a $ref into another schema file (patch 1 is the only
// one) from the embedded files, and refuses every other URI: validation
// never reaches the network or the file system.
func loadEmbedded(u *url.URL) (*jsonschema.Schema, error) {
	name, ok := strings.CutPrefix(u.String(), idPrefix)
	if ok {
		name, ok = strings.CutSuffix(name, ".schema.json")
	}
	if !ok {
		return nil, fmt.Errorf("ahpschema: %s is not one of the embedded schema files", u)
	}
	f, ok := file(name)
	if !ok {
		return nil, fmt.Errorf("ahpschema: %s is not one of the embedded schema files", u)
	}
	if f.parseErr != nil {
		return nil, f.parseErr
	}
	return f.doc, nil
}

// patch applies the §8.3 patches to one decoded schema file and returns its $defs.
func patch(file string, doc any) (map[string]any, error) {
	root, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("ahpschema: %s: not an object", file)
	}
	defs, ok := root["$defs"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("ahpschema: %s: no $defs", file)
	}
	// Patch 2.
	if _, ok := defs["SessionStatus"]; ok {
		defs["SessionStatus"] = map[string]any{
			"type":        "integer",
			"minimum":     json.Number("0"),
			"description": "Bitset of session status flags (patched: unknown bits are legal).",
		}
	}
	// Patch 1.
	if file == "actions" {
		defs["StateAction"] = map[string]any{"$ref": fileID("commands") + "#/$defs/StateAction"}
	}
	// Patch 4.
	for def, v := range map[string]bool{"ChatToolCallApprovedAction": true, "ChatToolCallDeniedAction": false} {
		d, ok := defs[def].(map[string]any)
		if !ok {
			continue
		}
		if props, ok := d["properties"].(map[string]any); ok {
			props["approved"] = map[string]any{"const": v}
		}
	}
	return defs, nil
}

// discriminate rewrites commands' StateAction from a oneOf over ~130
// actions (every branch evaluated for every message) into a binary decision
// tree of if/then/else on `type` whose leaves are the action definitions.
// Every branch of the oneOf requires its own `type` const, so exactly the
// same values validate; a value costs ~8 `if`s instead of ~130 branches (the
// library builds an error text for every failing branch), and its errors
// name the one definition that failed.
func discriminate(defs map[string]any, actionDefs map[string]string) {
	types := make([]string, 0, len(actionDefs))
	for t := range actionDefs {
		types = append(types, t)
	}
	sort.Strings(types)
	all := make([]any, len(types))
	for i, t := range types {
		all[i] = t
	}
	// A value whose type is none of them falls through every `if` to the
	// last leaf; that leaf is guarded so the error lists the known types
	// instead of blaming the last definition.
	unknown := map[string]any{
		"type":       "object",
		"required":   []any{"type"},
		"properties": map[string]any{"type": map[string]any{"enum": all}},
	}
	tree := actionTree(types, actionDefs, unknown)
	tree["description"] = "Patched: discriminated on type (see ahpschema package comment)."
	defs["StateAction"] = tree
}

// actionTree returns the decision tree for the sorted types: a $ref to the
// one definition, or an if on the first half of the types. unknown is the
// schema for a value that matches no type.
func actionTree(types []string, actionDefs map[string]string, unknown map[string]any) map[string]any {
	if len(types) == 1 {
		return map[string]any{
			"if":   map[string]any{"required": []any{"type"}, "properties": map[string]any{"type": map[string]any{"const": types[0]}}},
			"then": map[string]any{"$ref": "#/$defs/" + actionDefs[types[0]]},
			"else": unknown,
		}
	}
	half := len(types) / 2
	first := make([]any, half)
	for i, t := range types[:half] {
		first[i] = t
	}
	return map[string]any{
		"if":   map[string]any{"required": []any{"type"}, "properties": map[string]any{"type": map[string]any{"enum": first}}},
		"then": actionTree(types[:half], actionDefs, unknown),
		"else": actionTree(types[half:], actionDefs, unknown),
	}
}

// indexActions fills actionDefs from commands' StateAction union.
func indexActions(defs map[string]any, actionDefs map[string]string) {
	sa, _ := defs["StateAction"].(map[string]any)
	one, _ := sa["oneOf"].([]any)
	for _, m := range one {
		ref, _ := m.(map[string]any)["$ref"].(string)
		name := strings.TrimPrefix(ref, "#/$defs/")
		def, _ := defs[name].(map[string]any)
		types := actionTypesOf(defs, def)
		for _, t := range types {
			if _, dup := actionDefs[t]; !dup {
				actionDefs[t] = name
			}
		}
	}
}

// actionTypesOf finds the `type` const(s) of an action definition, following
// one level of oneOf (ChatToolCallConfirmedAction is approved|denied).
func actionTypesOf(defs, def map[string]any) []string {
	if def == nil {
		return nil
	}
	if props, ok := def["properties"].(map[string]any); ok {
		if tp, ok := props["type"].(map[string]any); ok {
			if c, ok := tp["const"].(string); ok {
				return []string{c}
			}
		}
	}
	var out []string
	if one, ok := def["oneOf"].([]any); ok {
		for _, m := range one {
			ref, _ := m.(map[string]any)["$ref"].(string)
			sub, _ := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
			out = append(out, actionTypesOf(defs, sub)...)
		}
	}
	return out
}

// Validate checks payload (one JSON value) against `$defs/<def>` of the named
// schema file ("commands", "actions", "notifications", "state", "errors").
func Validate(file, def string, payload []byte) error {
	v, err := decode(payload)
	if err != nil {
		return err
	}
	return validateValue(file, def, v)
}

// ActionDef returns the commands.schema.json definition name for an action
// `type`, and false for a type the 0.8.0 schema does not know.
func ActionDef(actionType string) (string, bool) {
	f, _ := file("commands")
	if f.parseErr != nil {
		return "", false
	}
	d, ok := f.actionDefs[actionType]
	return d, ok
}

// definition returns the parsed file that holds def, or why there is none.
func definition(name, def string) (*schemaFile, error) {
	f, ok := file(name)
	if !ok {
		return nil, fmt.Errorf("ahpschema: unknown schema file %q", name)
	}
	if f.parseErr != nil {
		return nil, f.parseErr
	}
	if !f.defs[def] {
		return nil, fmt.Errorf("ahpschema: %s has no definition %q", name, def)
	}
	return f, nil
}

func validateValue(file, def string, v any) error {
	if def == "StateAction" && (file == "commands" || file == "actions") {
		return validateAction(v)
	}
	f, err := definition(file, def)
	if err != nil {
		return err
	}
	if err := f.validate(def, v); err != nil {
		return err
	}
	return checkApproved(v)
}

// validate checks v against $defs/<def> through the dispatching root.
func (f *schemaFile) validate(def string, v any) error {
	rs, err := f.resolve()
	if err != nil {
		return err
	}
	if err := rs.Validate(map[string]any{def: v}); err != nil {
		return &Error{Def: f.name + "#" + def, Err: f.explainUnion(rs, def, v, unwrapDispatch(err))}
	}
	return nil
}

// explainUnion adds, for a definition that is a oneOf of other definitions
// (ChatToolCallConfirmedAction is approved|denied), why the value matched
// none of them: the library reports only that no branch matched.
func (f *schemaFile) explainUnion(rs *jsonschema.Resolved, def string, v any, err error) error {
	s := f.doc.Defs[def]
	if s == nil || len(s.OneOf) == 0 {
		return err
	}
	var why []error
	for _, b := range s.OneOf {
		name, ok := strings.CutPrefix(b.Ref, "#/$defs/")
		if !ok || !f.defs[name] {
			return err
		}
		if e := rs.Validate(map[string]any{name: v}); e != nil {
			why = append(why, fmt.Errorf("not %s: %w", name, unwrapDispatch(e)))
		}
	}
	if len(why) < len(s.OneOf) {
		return err // more than one branch matched: the library's text says so
	}
	return fmt.Errorf("%w:\n%w", err, errors.Join(why...))
}

// unwrapDispatch drops the two outer layers of a validation error, the file
// root and its dispatch property ("validating <file id>: validating
// /properties/<def>: "), which say nothing Error.Def does not, and shortens
// the rest (see compact).
func unwrapDispatch(err error) error {
	for range 2 {
		u := errors.Unwrap(err)
		if u == nil {
			break
		}
		err = u
	}
	return compact(err)
}

// compactError is a validation error in short form; it unwraps to the
// library's error.
type compactError struct {
	text string
	err  error
}

func (e *compactError) Error() string { return e.text }
func (e *compactError) Unwrap() error { return e.err }

// compact shortens the library's error chain, one "validating <schema
// path>: " per schema entered (a nested action passes ~20), to the
// definitions passed through, each with the schema path taken inside it
// (the if/then/else/allOf steps left out: they are no place in the value),
// and the reason:
//
//	ActionEnvelope/properties/action > StateAction >
//	SessionTitleChangedAction/properties/title: type: 7 has type "integer", want "string"
func compact(err error) error {
	type hop struct{ def, path string }
	var hops []hop
	e := err
	for {
		u := errors.Unwrap(e)
		if u == nil {
			break
		}
		p, ok := strings.CutPrefix(e.Error(), "validating /$defs/")
		if !ok {
			break
		}
		p, ok = strings.CutSuffix(p, ": "+u.Error())
		if !ok {
			break
		}
		def, rest, _ := strings.Cut(p, "/")
		if len(hops) == 0 || hops[len(hops)-1].def != def {
			hops = append(hops, hop{def: def})
		}
		hops[len(hops)-1].path = placeOnly(rest)
		e = u
	}
	if len(hops) == 0 {
		return err
	}
	parts := make([]string, len(hops))
	for i, h := range hops {
		parts[i] = h.def
		if h.path != "" {
			parts[i] += "/" + h.path
		}
	}
	return &compactError{text: strings.Join(parts, " > ") + ": " + e.Error(), err: err}
}

// placeOnly drops the combinator steps (allOf/N, anyOf/N, oneOf/N, if,
// then, else) from a schema path.
func placeOnly(path string) string {
	if path == "" {
		return ""
	}
	segs := strings.Split(path, "/")
	out := segs[:0]
	for i := 0; i < len(segs); i++ {
		if i > 0 && segs[i-1] == "properties" {
			out = append(out, segs[i]) // a property named like a keyword
			continue
		}
		switch segs[i] {
		case "allOf", "anyOf", "oneOf":
			i++ // and its index
		case "if", "then", "else":
		default:
			out = append(out, segs[i])
		}
	}
	return strings.Join(out, "/")
}

// validateAction checks one action against the definition its `type` names.
func validateAction(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return &Error{Def: "commands#StateAction", Err: errors.New("action is not an object")}
	}
	t, ok := m["type"].(string)
	if !ok {
		return &Error{Def: "commands#StateAction", Err: errors.New("action has no string type")}
	}
	f, err := definition("commands", "StateAction")
	if err != nil {
		return err
	}
	def, ok := f.actionDefs[t]
	if !ok {
		return &Error{Def: "commands#StateAction", Err: fmt.Errorf("unknown action type %q", t)}
	}
	if err := f.validate(def, v); err != nil {
		return err
	}
	return checkApproved(v)
}

// checkApproved backs patch 4 for payloads that reach a confirmation action
// through a path the patch cannot see (it is cheap and explicit).
func checkApproved(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if a, ok := m["action"].(map[string]any); ok {
		m = a
	}
	switch m["type"] {
	case "chat/toolCallConfirmed", "chat/toolCallResultConfirmed":
		if _, ok := m["approved"].(bool); !ok {
			return &Error{Def: "commands#StateAction", Err: fmt.Errorf("%v: approved must be a boolean", m["type"])}
		}
	}
	return nil
}

// Error is a schema violation: which definition rejected the value, and why.
type Error struct {
	Def string
	Err error
}

// maxDetail caps error text: a oneOf failure over every action can run to
// hundreds of kilobytes.
const maxDetail = 4000

func (e *Error) Error() string {
	s := e.Err.Error()
	if len(s) > maxDetail {
		s = s[:maxDetail] + "…"
	}
	return "ahpschema: " + e.Def + ": " + s
}

func (e *Error) Unwrap() error { return e.Err }

// decode reads one JSON value as the validator takes it (see convert.go).
func decode(b []byte) (any, error) {
	v, err := decodeJSON(b)
	if err != nil {
		return nil, fmt.Errorf("ahpschema: invalid JSON: %w", err)
	}
	return jsonnum.Copy(v), nil
}
