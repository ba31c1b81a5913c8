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
//     -  commands.schema.json's StateAction oneOf becomes an enum on `type`
//     plus one if/then per action type (same accepted values, since every
//     member requires its own `type` const; ~10× faster, precise errors).
//  5. ProtocolNotification cannot discriminate its members; notifications are
//     validated per method instead (see hostNotifications).
package ahpschema

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
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

type registry struct {
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	defs     map[string]map[string]bool // file → $defs names
	compiled map[string]*jsonschema.Schema
	// actionDefs maps an action's `type` to its commands.schema.json $defs
	// name, so a single action is checked against its own definition (and a
	// violation reported against it) rather than the 100-way oneOf.
	actionDefs map[string]string
}

var (
	regOnce sync.Once
	reg     *registry
	regErr  error
)

func load() (*registry, error) {
	regOnce.Do(func() { reg, regErr = newRegistry() })
	return reg, regErr
}

func newRegistry() (*registry, error) {
	r := &registry{
		compiler:   jsonschema.NewCompiler(),
		defs:       map[string]map[string]bool{},
		compiled:   map[string]*jsonschema.Schema{},
		actionDefs: map[string]string{},
	}
	r.compiler.DefaultDraft(jsonschema.Draft2020)
	for _, f := range Files {
		raw, err := schemaFS.ReadFile("schema/" + f + ".schema.json")
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("ahpschema: %s: %w", f, err)
		}
		defs, err := patch(f, doc)
		if err != nil {
			return nil, err
		}
		names := map[string]bool{}
		for k := range defs {
			names[k] = true
		}
		r.defs[f] = names
		if f == "commands" {
			r.indexActions(defs)
			discriminate(defs, r.actionDefs)
		}
		if err := r.compiler.AddResource(fileID(f), doc); err != nil {
			return nil, fmt.Errorf("ahpschema: add %s: %w", f, err)
		}
	}
	return r, nil
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
// actions (every branch evaluated for every message) into an enum on `type`
// plus one if/then per type. Every branch requires its own `type` const, so
// exactly the same values validate; it is just an order of magnitude faster
// and its errors name the one definition that failed.
func discriminate(defs map[string]any, actionDefs map[string]string) {
	types := make([]string, 0, len(actionDefs))
	for t := range actionDefs {
		types = append(types, t)
	}
	sort.Strings(types)
	enum := make([]any, len(types))
	var all []any
	for i, t := range types {
		enum[i] = t
		all = append(all, map[string]any{
			"if":   map[string]any{"properties": map[string]any{"type": map[string]any{"const": t}}},
			"then": map[string]any{"$ref": "#/$defs/" + actionDefs[t]},
		})
	}
	defs["StateAction"] = map[string]any{
		"type":        "object",
		"required":    []any{"type"},
		"properties":  map[string]any{"type": map[string]any{"enum": enum}},
		"allOf":       all,
		"description": "Patched: discriminated on type (see ahpschema package comment).",
	}
}

func (r *registry) indexActions(defs map[string]any) {
	sa, _ := defs["StateAction"].(map[string]any)
	one, _ := sa["oneOf"].([]any)
	for _, m := range one {
		ref, _ := m.(map[string]any)["$ref"].(string)
		name := strings.TrimPrefix(ref, "#/$defs/")
		def, _ := defs[name].(map[string]any)
		types := actionTypesOf(defs, def)
		for _, t := range types {
			if _, dup := r.actionDefs[t]; !dup {
				r.actionDefs[t] = name
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

func (r *registry) schema(file, def string) (*jsonschema.Schema, error) {
	names, ok := r.defs[file]
	if !ok {
		return nil, fmt.Errorf("ahpschema: unknown schema file %q", file)
	}
	if !names[def] {
		return nil, fmt.Errorf("ahpschema: %s has no definition %q", file, def)
	}
	key := file + "#" + def
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.compiled[key]; ok {
		return s, nil
	}
	s, err := r.compiler.Compile(fileID(file) + "#/$defs/" + def)
	if err != nil {
		return nil, fmt.Errorf("ahpschema: compile %s: %w", key, err)
	}
	r.compiled[key] = s
	return s, nil
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
	r, err := load()
	if err != nil {
		return "", false
	}
	d, ok := r.actionDefs[actionType]
	return d, ok
}

func validateValue(file, def string, v any) error {
	r, err := load()
	if err != nil {
		return err
	}
	if def == "StateAction" && (file == "commands" || file == "actions") {
		return validateAction(r, v)
	}
	s, err := r.schema(file, def)
	if err != nil {
		return err
	}
	if err := s.Validate(v); err != nil {
		return &Error{Def: file + "#" + def, Err: err}
	}
	if err := checkApproved(v); err != nil {
		return err
	}
	return nil
}

// validateAction checks one action against the definition its `type` names.
func validateAction(r *registry, v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return &Error{Def: "commands#StateAction", Err: errors.New("action is not an object")}
	}
	t, ok := m["type"].(string)
	if !ok {
		return &Error{Def: "commands#StateAction", Err: errors.New("action has no string type")}
	}
	def, ok := r.actionDefs[t]
	if !ok {
		return &Error{Def: "commands#StateAction", Err: fmt.Errorf("unknown action type %q", t)}
	}
	s, err := r.schema("commands", def)
	if err != nil {
		return err
	}
	if err := s.Validate(v); err != nil {
		return &Error{Def: "commands#" + def, Err: err}
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

func decode(b []byte) (any, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("ahpschema: invalid JSON: %w", err)
	}
	return v, nil
}
