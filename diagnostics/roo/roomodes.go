package roo

// Roo Code's project custom modes: the workspace root's .roomodes. Every
// reaction here is read from RooCodeInc/Roo-Code@cb836567 (2026-04-14):
//   - src/core/config/CustomModesManager.ts getWorkspaceRoomodes reads
//     <workspace root>/.roomodes only;
//   - parseYamlSafely strips a BOM, replaces non-breaking spaces,
//     zero-width characters, Unicode dashes and smart quotes, and parses
//     the result as YAML (npm yaml 2); when that throws it parses the
//     original text with JSON.parse; when both fail it shows an error and
//     the file yields no mode;
//   - loadModesFromFile returns no mode when the result is not an object
//     or has no truthy customModes, and none when
//     customModesSettingsSchema.safeParse fails (it shows the issues): one
//     wrong mode drops every mode of the file;
//   - packages/types/src/mode.ts modeConfigSchema (slug ^[a-zA-Z0-9-]+$,
//     name and roleDefinition non-empty strings, whenToUse, description and
//     customInstructions optional strings, groups, source global or
//     project; other keys stripped), groupEntryArraySchema (deprecated
//     groups stripped first, then each entry a tool group or a [group,
//     {fileRegex, description}] pair, no group twice; fileRegex must be a
//     JavaScript RegExp), customModesSettingsSchema (no slug twice);
//   - packages/types/src/tool.ts toolGroups (read, edit, command, mcp,
//     modes) and deprecatedToolGroups (browser);
//   - mode.ts DEFAULT_MODES are the built-in modes; src/shared/modes.ts
//     getAllModes puts a custom mode in the place of the built-in mode of
//     its slug.
//
// The file is parsed in Go as Roo does in Node: YAML first (yaml.v3, read
// with YAML 1.2's core schema for plain scalars), JSON (encoding/json) on
// the original text only when YAML fails.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"
	"github.com/ahpls-dev/ahpls/model"
)

// RooModesRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var RooModesRules = []*core.Rule{rmSyntax, rmNoModes, rmShape, rmSlug, rmField, rmGroups, rmGroup, rmGroupDup,
	rmSlugDup, rmFileRegex, rmDeprecated, rmUnknownKey, rmBuiltin}

const (
	rooModesManager = "RooCodeInc/Roo-Code@cb836567 src/core/config/CustomModesManager.ts"
	rooModeSchema   = "RooCodeInc/Roo-Code@cb836567 packages/types/src/mode.ts"
	rooToolGroups   = "RooCodeInc/Roo-Code@cb836567 packages/types/src/tool.ts"
	rooRefused      = "RO REJ (Error): loadModesFromFile shows the schema issues and returns no mode, so every mode of the file is dropped."
	rmSchemaFail    = rooModesManager + " loadModesFromFile: when customModesSettingsSchema.safeParse fails it shows the issues and returns []"
)

var rmSyntax = &core.Rule{
	ID:        "roomodes/syntax",
	WholeFile: true,
	Summary:   "The .roomodes file parses neither as YAML nor as JSON.",
	Kinds:     "roomodes",
	Severity:  "RO REJ (Error): Roo Code shows a parse error and loads no mode from the file.",
	Evidence: []core.Evidence{
		{Consumer: "RO", Reaction: "REJ", Source: rooModesManager + " parseYamlSafely: yaml.parse of the cleaned text, then JSON.parse of the original; when both throw it shows customModes.errors.yamlParseError and returns {}, which loadModesFromFile turns into no mode"},
	},
}

var rmNoModes = &core.Rule{
	ID:        "roomodes/no-modes",
	WholeFile: true,
	Summary:   "The .roomodes file has no `customModes` (or it is empty, false or 0, or the file is not a mapping): Roo Code loads no mode from it.",
	Kinds:     "roomodes",
	Severity:  "RO SKIP (Error): loadModesFromFile returns no mode, silently.",
	Evidence: []core.Evidence{
		{Consumer: "RO", Reaction: "SKIP", Source: rooModesManager + " loadModesFromFile: `if (!settings || typeof settings !== \"object\" || !settings.customModes) return []`"},
	},
}

var rmShape = &core.Rule{
	ID:        "roomodes/shape",
	WholeFile: true,
	Summary:   "`customModes` is not a list, or one of its entries is not a mapping.",
	Kinds:     "roomodes",
	Severity:  rooRefused,
	Evidence: []core.Evidence{
		{Consumer: "RO", Reaction: "REJ", Source: rooModeSchema + " customModesSettingsSchema: customModes is z.array(modeConfigSchema), a z.object; " + rmSchemaFail},
	},
}

var rmSlug = &core.Rule{
	ID:        "roomodes/slug",
	WholeFile: true,
	Summary:   "A mode's `slug` is missing, not a string, or holds a character other than letters, digits and dashes.",
	Kinds:     "roomodes",
	Severity:  rooRefused,
	Evidence: []core.Evidence{
		{Consumer: "RO", Reaction: "REJ", Source: rooModeSchema + " modeConfigSchema: slug is z.string().regex(/^[a-zA-Z0-9-]+$/); " + rmSchemaFail},
	},
}

var rmField = &core.Rule{
	ID:        "roomodes/field",
	WholeFile: true,
	Summary:   "A mode's `name` or `roleDefinition` is missing, empty or not a string; or its `whenToUse`, `description` or `customInstructions` is not a string; or `source` is not global or project.",
	Kinds:     "roomodes",
	Severity:  rooRefused,
	Evidence: []core.Evidence{
		{Consumer: "RO", Reaction: "REJ", Source: rooModeSchema + " modeConfigSchema: name and roleDefinition z.string().min(1), whenToUse, description, customInstructions z.string().optional(), source z.enum([\"global\", \"project\"]).optional(); " + rmSchemaFail},
	},
}

var rmGroups = &core.Rule{
	ID:        "roomodes/groups",
	WholeFile: true,
	Summary:   "A mode has no `groups` list.",
	Kinds:     "roomodes",
	Severity:  rooRefused,
	Evidence: []core.Evidence{
		{Consumer: "RO", Reaction: "REJ", Source: rooModeSchema + " modeConfigSchema: groups is groupEntryArraySchema, a required z.array; " + rmSchemaFail},
	},
}

var rmGroup = &core.Rule{
	ID:        "roomodes/group",
	WholeFile: true,
	Summary:   "A `groups` entry is neither a tool group (read, edit, command, mcp, modes) nor a pair [group, {fileRegex, description}] of a tool group and a mapping of strings.",
	Kinds:     "roomodes",
	Severity:  rooRefused,
	Evidence: []core.Evidence{
		{Consumer: "RO", Reaction: "REJ", Source: rooModeSchema + " groupEntrySchema: z.union([toolGroupsSchema, z.tuple([toolGroupsSchema, groupOptionsSchema])]), groupOptionsSchema fileRegex and description z.string().optional(); " + rooToolGroups + " toolGroups; " + rmSchemaFail},
	},
}

var rmGroupDup = &core.Rule{
	ID:        "roomodes/group-duplicate",
	WholeFile: true,
	Summary:   "A mode names the same tool group twice in `groups`.",
	Kinds:     "roomodes",
	Severity:  rooRefused,
	Evidence: []core.Evidence{
		{Consumer: "RO", Reaction: "REJ", Source: rooModeSchema + " rawGroupEntryArraySchema: \"Duplicate groups are not allowed\"; " + rmSchemaFail},
	},
}

var rmSlugDup = &core.Rule{
	ID:        "roomodes/slug-duplicate",
	WholeFile: true,
	Summary:   "Two modes of the file have the same `slug`.",
	Kinds:     "roomodes",
	Severity:  rooRefused,
	Evidence: []core.Evidence{
		{Consumer: "RO", Reaction: "REJ", Source: rooModeSchema + " customModesSettingsSchema: \"Duplicate mode slugs are not allowed\"; " + rmSchemaFail},
	},
}

var rmFileRegex = &core.Rule{
	ID:        "roomodes/file-regex",
	WholeFile: true,
	Summary:   "A group's `fileRegex` is no JavaScript regular expression (an unclosed `(` or `[`, an unmatched `)`, a quantifier with nothing to repeat such as `*.ts`, a range or `{n,m}` out of order). Only what JavaScript surely refuses is reported: Go's regexp is not the judge.",
	Kinds:     "roomodes",
	Severity:  rooRefused,
	Evidence: []core.Evidence{
		{Consumer: "RO", Reaction: "REJ", Source: rooModeSchema + " groupOptionsSchema: fileRegex refined by `new RegExp(pattern)`, \"Invalid regular expression pattern\"; " + rmSchemaFail},
	},
}

var rmDeprecated = &core.Rule{
	ID:       "roomodes/group-deprecated",
	Summary:  "A `groups` entry names a deprecated tool group (browser): Roo Code drops it before checking the mode (not reported in a file Roo Code refuses, where no mode loads at all).",
	Kinds:    "roomodes",
	Severity: "RO LOSE (Info): the entry is removed; the group no longer exists, so the mode loses nothing Roo Code still has.",
	Evidence: []core.Evidence{
		{Consumer: "RO", Reaction: "LOSE", Source: rooModeSchema + " groupEntryArraySchema: z.preprocess filters isDeprecatedGroupEntry entries; " + rooToolGroups + " deprecatedToolGroups = [\"browser\"]"},
	},
}

var rmUnknownKey = &core.Rule{
	ID:       "roomodes/unknown-key",
	Summary:  "A key Roo Code's mode schema does not know (in a mode, a group's options or the file's top level).",
	Kinds:    "roomodes",
	Severity: "RO IGN (Hint): zod's object schemas strip unknown keys.",
	Evidence: []core.Evidence{
		{Consumer: "RO", Reaction: "IGN", Source: rooModeSchema + " modeConfigSchema, groupOptionsSchema and customModesSettingsSchema are z.object (unknown keys stripped); CustomModesManager.ts loadModesFromFile keeps result.data"},
	},
}

var rmBuiltin = &core.Rule{
	ID:       "roomodes/builtin-slug",
	Summary:  "A mode's slug is a built-in mode's (architect, code, ask, debug, orchestrator): the project mode replaces the built-in one (not reported when the file does not load).",
	Kinds:    "roomodes",
	Severity: "RO WINS (Info).",
	Evidence: []core.Evidence{
		{Consumer: "RO", Reaction: "WINS", Source: rooModeSchema + " DEFAULT_MODES slugs; src/shared/modes.ts getAllModes: a custom mode with a built-in slug replaces it"},
	},
}

// rooToolGroupNames and rooDeprecatedGroups are tool.ts's lists.
var (
	rooToolGroupNames   = []string{"read", "edit", "command", "mcp", "modes"}
	rooDeprecatedGroups = []string{"browser"}
	rooBuiltinSlugs     = []string{"architect", "code", "ask", "debug", "orchestrator"}
	rooModeKeys         = []string{"slug", "name", "roleDefinition", "whenToUse", "description", "customInstructions", "groups", "source"}
	rooSlugRe           = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9-]+$`) })
)

// CheckRooModes checks the workspace root's .roomodes.
func CheckRooModes(f core.File, r *core.Reporter) {
	c := &rmCheck{r: r}
	root, perr := ParseRooModes(f.Text)
	if perr != nil {
		c.refuse(rmSyntax, perr.Span, "Roo Code reads .roomodes as YAML, then as JSON, and this is neither ("+perr.Msg+"): it shows an error and loads no mode from the file.")
		return
	}
	if root == nil {
		return // an empty document: there is no mode to lose
	}
	var modes *RMNode
	if root.Kind == RMObject {
		modes = root.Get("customModes")
		for _, k := range root.Keys {
			if k.Name != "customModes" {
				c.unknown(k, "it reads only customModes at the top of .roomodes")
			}
		}
	}
	if modes == nil || !modes.truthy() {
		span := head(root.Span, f.Text)
		msg := "Roo Code loads no mode from a .roomodes without customModes."
		if root.Kind != RMObject {
			msg = "The file is " + root.Kind.String() + ", not a mapping with customModes: Roo Code loads no mode from it."
		} else if modes != nil {
			span = modes.Span
			msg = "customModes is " + modes.Kind.String() + ": Roo Code loads no mode from a .roomodes whose customModes is empty, false or 0."
		}
		c.verdict(rmNoModes, span, model.Skip, msg)
		return
	}
	if modes.Kind != RMArray {
		c.refuse(rmShape, modes.Span, "customModes is "+modes.Kind.String()+", not a list of modes.")
		return
	}
	slugs := map[string]*RMNode{}
	var builtins []*RMNode
	for _, m := range modes.Items {
		slug := c.mode(m, f.Text)
		if slug == nil {
			continue
		}
		if first, ok := slugs[slug.Str]; ok {
			c.refuse(rmSlugDup, slug.Span, fmt.Sprintf("Slug %s is taken by an earlier mode (line %d).", syntax.Quote(slug.Str), lineOf(f.Text, first.Span.Start)))
			continue
		}
		slugs[slug.Str] = slug
		if slices.Contains(rooBuiltinSlugs, slug.Str) {
			builtins = append(builtins, slug)
		}
	}
	if c.refused {
		// No mode of the file loads: none replaces a built-in one, and
		// what Roo Code would drop from a mode is moot.
		return
	}
	for _, report := range c.ifLoaded {
		report()
	}
	for _, slug := range builtins {
		c.verdict(rmBuiltin, slug.Span, model.Wins, "This project mode replaces Roo Code's built-in "+syntax.Quote(slug.Str)+" mode.")
	}
}

type rmCheck struct {
	r       *core.Reporter
	refused bool // a finding says Roo Code loads no mode of the file
	// ifLoaded are findings about what Roo Code drops from a mode it
	// loads (a deprecated group), reported only when no finding refuses
	// the whole file.
	ifLoaded []func()
}

// refuse reports a schema issue: Roo Code drops every mode of the file.
func (c *rmCheck) refuse(rule *core.Rule, span model.Span, msg string) {
	if rule != rmSyntax {
		msg += " Roo Code's schema check fails, so it loads no mode from this .roomodes."
	}
	c.refused = true
	c.verdict(rule, span, model.Reject, msg)
}

func (c *rmCheck) verdict(rule *core.Rule, span model.Span, re model.Reaction, msg string) {
	c.r.Verdict(rule, span, model.Verdicts{model.TargetRoo: re}, msg)
}

// unusedLoss reports a loss of something the consumer no longer acts on
// (a deprecated group): Info, not the Warning of a used field.
func (c *rmCheck) unusedLoss(rule *core.Rule, span model.Span, msg string) {
	c.ifLoaded = append(c.ifLoaded, func() { c.reportUnusedLoss(rule, span, msg) })
}

func (c *rmCheck) reportUnusedLoss(rule *core.Rule, span model.Span, msg string) {
	v := core.GateEvidence(rule, model.Verdicts{model.TargetRoo: model.Lose})
	sev, by, ok := v.DecideUsing(c.r.Effective, func(model.Target) bool { return false })
	if !ok {
		return
	}
	d := model.Diagnostic{Rule: rule.ID, Severity: sev, Message: msg, Span: span, Verdicts: v}
	d.Consequence, _ = v[by[0]].Consequence()
	c.r.Add(d)
}

func (c *rmCheck) unknown(k RMKey, what string) {
	// Reported even in a file Roo Code refuses: a misspelt `group` or
	// `modes` is often why it refuses it.
	c.verdict(rmUnknownKey, k.Span, model.Ignore, "Roo Code ignores "+syntax.Quote(k.Name)+": "+what+".")
}

// mode checks one entry of customModes and returns its slug when it is a
// valid one (for the duplicate and built-in checks).
func (c *rmCheck) mode(m *RMNode, text []byte) *RMNode {
	if m.Kind != RMObject {
		c.refuse(rmShape, m.Span, "This mode is "+m.Kind.String()+", not a mapping.")
		return nil
	}
	at := head(m.Span, text)
	for _, k := range m.Keys {
		if !slices.Contains(rooModeKeys, k.Name) {
			c.unknown(k, "its mode schema has no such key")
		}
	}
	slug := m.Get("slug")
	switch {
	case slug == nil:
		c.refuse(rmSlug, at, "This mode has no slug.")
		slug = nil
	case slug.Kind != RMString:
		c.refuse(rmSlug, slug.Span, "The slug is "+slug.Kind.String()+", not a string.")
		slug = nil
	case !rooSlugRe().MatchString(slug.Str):
		c.refuse(rmSlug, slug.Span, "Slug "+syntax.Quote(slug.Str)+" may hold only letters, digits and dashes.")
		slug = nil
	}
	for _, name := range []string{"name", "roleDefinition"} {
		switch v := m.Get(name); {
		case v == nil:
			c.refuse(rmField, at, "This mode has no "+name+".")
		case v.Kind != RMString:
			c.refuse(rmField, v.Span, name+" is "+v.Kind.String()+", not a string.")
		case v.Str == "":
			c.refuse(rmField, v.Span, name+" is empty.")
		}
	}
	for _, name := range []string{"whenToUse", "description", "customInstructions"} {
		if v := m.Get(name); v != nil && v.Kind != RMString {
			c.refuse(rmField, v.Span, name+" is "+v.Kind.String()+", not a string.")
		}
	}
	if v := m.Get("source"); v != nil && (v.Kind != RMString || v.Str != "global" && v.Str != "project") {
		c.refuse(rmField, v.Span, "source is "+v.describe()+"; Roo Code accepts only global or project.")
	}
	groups := m.Get("groups")
	switch {
	case groups == nil:
		c.refuse(rmGroups, at, "This mode has no groups list (an empty list gives it no tools).")
	case groups.Kind != RMArray:
		c.refuse(rmGroups, groups.Span, "groups is "+groups.Kind.String()+", not a list.")
	default:
		c.groups(groups)
	}
	return slug
}

func (c *rmCheck) groups(groups *RMNode) {
	seen := map[string]bool{}
	for _, g := range groups.Items {
		name := g
		if g.Kind == RMArray && len(g.Items) > 0 {
			name = g.Items[0]
		}
		if name.Kind == RMString && slices.Contains(rooDeprecatedGroups, name.Str) {
			c.unusedLoss(rmDeprecated, g.Span, "Roo Code drops the deprecated "+syntax.Quote(name.Str)+" group from this mode; it no longer has such tools.")
			continue
		}
		if !c.groupEntry(g) {
			continue
		}
		if seen[name.Str] {
			c.refuse(rmGroupDup, name.Span, "Group "+syntax.Quote(name.Str)+" is listed twice in this mode.")
		}
		seen[name.Str] = true
	}
}

// groupEntry checks one entry of groups; it reports whether the entry is
// valid.
func (c *rmCheck) groupEntry(g *RMNode) bool {
	const want = "a tool group (read, edit, command, mcp, modes) or [group, {fileRegex, description}]"
	switch g.Kind {
	case RMString:
		if !slices.Contains(rooToolGroupNames, g.Str) {
			c.refuse(rmGroup, g.Span, "Group "+syntax.Quote(g.Str)+" is not one of Roo Code's tool groups (read, edit, command, mcp, modes).")
			return false
		}
		return true
	case RMArray:
	default:
		c.refuse(rmGroup, g.Span, "This group entry is "+g.Kind.String()+", not "+want+".")
		return false
	}
	if len(g.Items) != 2 {
		c.refuse(rmGroup, g.Span, fmt.Sprintf("This group entry is a list of %d, not %s.", len(g.Items), want))
		return false
	}
	ok := true
	if n := g.Items[0]; n.Kind != RMString || !slices.Contains(rooToolGroupNames, n.Str) {
		c.refuse(rmGroup, n.Span, n.describe()+" is not one of Roo Code's tool groups (read, edit, command, mcp, modes).")
		ok = false
	}
	opts := g.Items[1]
	if opts.Kind != RMObject {
		c.refuse(rmGroup, opts.Span, "A group's options are "+opts.Kind.String()+", not a mapping of fileRegex and description.")
		return false
	}
	for _, k := range opts.Keys {
		if k.Name != "fileRegex" && k.Name != "description" {
			c.unknown(k, "a group's options hold only fileRegex and description")
		}
	}
	if d := opts.Get("description"); d != nil && d.Kind != RMString {
		c.refuse(rmGroup, d.Span, "description is "+d.Kind.String()+", not a string.")
		ok = false
	}
	re := opts.Get("fileRegex")
	switch {
	case re == nil:
	case re.Kind != RMString:
		c.refuse(rmGroup, re.Span, "fileRegex is "+re.Kind.String()+", not a string.")
		ok = false
	case re.Str != "":
		if why := JSRegexRefusal(re.Str); why != "" {
			c.refuse(rmFileRegex, re.Span, "fileRegex "+syntax.Quote(re.Str)+" is no JavaScript regular expression: "+why+".")
			ok = false
		}
	}
	return ok
}

// head is the first line of span (a mode's or the file's), for a finding
// about something missing in it.
func head(s model.Span, text []byte) model.Span {
	if s.Start >= len(text) {
		return model.Span{Start: s.Start, End: s.Start}
	}
	end := s.Start + core.FirstLineEnd(text[s.Start:])
	if end > s.End && s.End >= s.Start {
		end = s.End
	}
	return model.Span{Start: s.Start, End: end}
}

func lineOf(text []byte, off int) int {
	return bytes.Count(text[:off], []byte("\n")) + 1
}

// RMKind is a value's JavaScript type after Roo Code's parse.
type RMKind uint8

// The value kinds of a parsed .roomodes.
const (
	RMNull RMKind = iota
	RMBool
	RMNumber
	RMString
	RMObject
	RMArray
)

// String is the word used in messages.
func (k RMKind) String() string {
	switch k {
	case RMNull:
		return "null"
	case RMBool:
		return "a boolean"
	case RMNumber:
		return "a number"
	case RMString:
		return "a string"
	case RMObject:
		return "a mapping"
	}
	return "a list"
}

// RMNode is one value of a parsed .roomodes with the bytes it occupies in
// the file, whether it came from YAML or JSON.
type RMNode struct {
	Kind  RMKind
	Str   string // a string's text, a number's or boolean's source
	Span  model.Span
	Keys  []RMKey
	Items []*RMNode
}

// RMKey is one key of a mapping.
type RMKey struct {
	Name  string
	Span  model.Span
	Value *RMNode
}

// Get is the value of the last key named name, or nil.
func (n *RMNode) Get(name string) *RMNode {
	for i := len(n.Keys) - 1; i >= 0; i-- {
		if n.Keys[i].Name == name {
			return n.Keys[i].Value
		}
	}
	return nil
}

func (n *RMNode) describe() string {
	if n.Kind == RMString {
		return syntax.Quote(n.Str)
	}
	return n.Kind.String()
}

// truthy is JavaScript's truthiness of the value.
func (n *RMNode) truthy() bool {
	switch n.Kind {
	case RMNull:
		return false
	case RMBool:
		return n.Str == "true" || n.Str == "True" || n.Str == "TRUE"
	case RMString:
		return n.Str != ""
	case RMNumber:
		f, ok := jsNumber(n.Str)
		return !ok || f != 0 && !math.IsNaN(f)
	}
	return true
}

// jsNumber reads a YAML 1.2 core or JSON number.
func jsNumber(s string) (float64, bool) {
	t := strings.TrimLeft(s, "+-")
	switch {
	case strings.HasPrefix(t, "0x"):
		u, err := strconv.ParseUint(t[2:], 16, 64)
		return float64(u), err == nil
	case strings.HasPrefix(t, "0o"):
		u, err := strconv.ParseUint(t[2:], 8, 64)
		return float64(u), err == nil
	case strings.EqualFold(t, ".nan"):
		return math.NaN(), true
	case strings.EqualFold(t, ".inf"):
		return math.Inf(1), true
	}
	f, err := strconv.ParseFloat(t, 64)
	return f, err == nil
}

// RMParseError is why neither YAML nor JSON read the file.
type RMParseError struct {
	Msg  string
	Span model.Span
}

// ParseRooModes reads a .roomodes as Roo Code's parseYamlSafely does: the
// cleaned text as YAML, else the original text as JSON. A nil node and
// nil error is an empty YAML document (Roo Code reads it as {}).
func ParseRooModes(text []byte) (*RMNode, *RMParseError) {
	clean, toFile := rooClean(text)
	d := syntax.NewYDoc(clean, toFile)
	doc, yerr := rooYAML(d, clean, toFile)
	if yerr == nil {
		if doc == nil {
			return nil, nil
		}
		d.Root = doc
		return fromYAML(d, doc, nil, 0), nil
	}
	if json.Valid(text) {
		if v, _ := core.ParseJSONTree(text); v != nil {
			return fromJSON(v, 0), nil
		}
	}
	return nil, yerr
}

// rooYAML decodes the one document of clean as npm yaml's parse would
// take it: a second document or a key twice in a mapping is an error.
func rooYAML(d *syntax.YDoc, clean []byte, toFile func(int) int) (*yaml.Node, *RMParseError) {
	dec := yaml.NewDecoder(bytes.NewReader(yaml11Directive(clean)))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		if _, e := syntax.ParseYAML(clean, toFile); e != nil {
			return nil, &RMParseError{Msg: e.Msg, Span: e.Span}
		}
		return nil, &RMParseError{Msg: strings.TrimPrefix(err.Error(), "yaml: "), Span: model.Span{Start: toFile(0), End: toFile(0)}}
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		off := 0
		if i := bytes.Index(clean, []byte("\n---")); i >= 0 {
			off = i + 1
		}
		return nil, &RMParseError{Msg: "more than one YAML document", Span: model.Span{Start: toFile(off), End: toFile(off + min(3, len(clean)-off))}}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, nil
	}
	if dups := syntax.DuplicateKeys(doc.Content[0], nil); len(dups) > 0 {
		return nil, &RMParseError{Msg: "key " + syntax.Quote(dups[0].Second.Value) + " twice in one mapping", Span: d.KeySpan(dups[0].Second)}
	}
	return doc.Content[0], nil
}

// yaml11Directive returns src with a leading `%YAML 1.2` directive
// (which npm yaml takes and yaml.v3 refuses as an incompatible version)
// read as 1.1, in a copy of the same length so that offsets hold.
func yaml11Directive(src []byte) []byte {
	const dir = "%YAML 1."
	for pos := 0; pos < len(src); {
		end := len(src)
		if i := bytes.IndexByte(src[pos:], '\n'); i >= 0 {
			end = pos + i
		}
		line := src[pos:end]
		t := bytes.TrimSpace(line)
		switch {
		case len(t) == 0 || t[0] == '#':
		case bytes.HasPrefix(t, []byte(dir)) && len(t) > len(dir) && t[len(dir)] != '1':
			out := bytes.Clone(src)
			out[pos+bytes.Index(line, []byte(dir))+len(dir)] = '1'
			return out
		case t[0] == '%':
		default:
			return src
		}
		pos = end + 1
	}
	return src
}

// rooClean is parseYamlSafely's clean-up (stripBom, then
// cleanInvisibleCharacters) with a map from offsets in the cleaned text
// back to the file.
func rooClean(text []byte) ([]byte, func(int) int) {
	type mark struct{ clean, file int }
	var marks []mark
	start := 0
	if bytes.HasPrefix(text, []byte("\uFEFF")) {
		start = 3
	}
	marks = append(marks, mark{0, start})
	var out []byte
	last := start
	for i := start; i < len(text); {
		r, size := utf8.DecodeRune(text[i:])
		var rep string
		switch r {
		case '\u00A0':
			rep = " "
		case '\u200B', '\u200C', '\u200D':
			rep = ""
		case '\u2018', '\u2019':
			rep = "'"
		case '\u201C', '\u201D':
			rep = "\""
		case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
			rep = "-"
		default:
			i += size
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(text))
		}
		out = append(out, text[last:i]...)
		out = append(out, rep...)
		i += size
		last = i
		marks = append(marks, mark{len(out), i})
	}
	if out == nil {
		return text[start:], func(o int) int { return o + start }
	}
	out = append(out, text[last:]...)
	return out, func(o int) int {
		k := sort.Search(len(marks), func(j int) bool { return marks[j].clean > o }) - 1
		if k < 0 {
			k = 0
		}
		return min(marks[k].file+o-marks[k].clean, len(text))
	}
}

const rmMaxDepth = 256

// fromYAML turns a yaml.v3 node into the tree, typing plain scalars by
// YAML 1.2's core schema (npm yaml's default), not yaml.v3's.
func fromYAML(d *syntax.YDoc, n, parent *yaml.Node, depth int) *RMNode {
	span := d.SpanIn(n, parent)
	for hops := 0; n.Kind == yaml.AliasNode && n.Alias != nil && hops < 64; hops++ {
		n = n.Alias
	}
	out := &RMNode{Span: span}
	if depth > rmMaxDepth {
		out.Kind = RMNull
		return out
	}
	switch n.Kind {
	case yaml.MappingNode:
		out.Kind = RMObject
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			for hops := 0; k.Kind == yaml.AliasNode && k.Alias != nil && hops < 64; hops++ {
				k = k.Alias
			}
			out.Keys = append(out.Keys, RMKey{Name: k.Value, Span: d.KeySpan(n.Content[i]), Value: fromYAML(d, v, n, depth+1)})
		}
	case yaml.SequenceNode:
		out.Kind = RMArray
		for _, it := range n.Content {
			out.Items = append(out.Items, fromYAML(d, it, n, depth+1))
		}
	case yaml.ScalarNode:
		out.Kind, out.Str = yamlScalar(n), n.Value
	default:
		out.Kind = RMNull
	}
	return out
}

var (
	core12Int = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$`)
	})
	core12Float = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$`)
	})
)

func yamlScalar(n *yaml.Node) RMKind {
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return RMString
	}
	if n.Style&yaml.TaggedStyle != 0 {
		switch n.Tag {
		case "!!null":
			return RMNull
		case "!!bool":
			return RMBool
		case "!!int", "!!float":
			return RMNumber
		}
		return RMString
	}
	switch v := n.Value; {
	case v == "" || v == "~" || v == "null" || v == "Null" || v == "NULL":
		return RMNull
	case v == "true" || v == "True" || v == "TRUE" || v == "false" || v == "False" || v == "FALSE":
		return RMBool
	case core12Int().MatchString(v) || core12Float().MatchString(v):
		return RMNumber
	}
	return RMString
}

func fromJSON(v *core.JSONValue, depth int) *RMNode {
	out := &RMNode{Span: v.Span, Str: v.Str}
	if depth > rmMaxDepth {
		return out
	}
	switch v.Kind {
	case core.JSONNull:
		out.Kind = RMNull
	case core.JSONBool:
		out.Kind = RMBool
	case core.JSONNumber:
		out.Kind = RMNumber
	case core.JSONString:
		out.Kind = RMString
	case core.JSONObject:
		out.Kind = RMObject
		for _, m := range v.Members {
			out.Keys = append(out.Keys, RMKey{Name: m.Key, Span: m.KeySpan, Value: fromJSON(m.Value, depth+1)})
		}
	case core.JSONArray:
		out.Kind = RMArray
		for _, it := range v.Items {
			out.Items = append(out.Items, fromJSON(it, depth+1))
		}
	}
	return out
}

// JSRegexRefusal says why JavaScript's RegExp (no flags) surely refuses
// pattern, or "". It is conservative: only an unclosed group or class, an
// unmatched ')', a trailing '\' and a quantifier with nothing to repeat
// are reported, with a range or a {n,m} out of order; everything Go's
// regexp refuses but JavaScript takes
// (lookarounds, backreferences, identity escapes) passes.
func JSRegexRefusal(p string) string {
	depth := 0
	// canRepeat: the last token is an atom a quantifier may follow;
	// afterQuant: the last token is a quantifier (a '?' there makes it lazy
	// once).
	canRepeat, afterQuant, lazy := false, false, false
	for i := 0; i < len(p); i++ {
		ch := p[i]
		switch ch {
		case '\\':
			if i+1 >= len(p) {
				return "it ends with a lone \\"
			}
			_, size := utf8.DecodeRuneInString(p[i+1:])
			i += size
			canRepeat, afterQuant, lazy = true, false, false
		case '[':
			end := classEnd(p, i+1)
			if end < 0 {
				return "a [ is never closed"
			}
			if lo, hi, ok := reversedRange(p[i+1 : end]); ok {
				return "the range " + lo + "-" + hi + " is out of order"
			}
			i = end
			canRepeat, afterQuant, lazy = true, false, false
		case '(':
			depth++
			canRepeat, afterQuant, lazy = false, false, false
			if i+1 < len(p) && p[i+1] == '?' {
				switch {
				case strings.HasPrefix(p[i+1:], "?:"), strings.HasPrefix(p[i+1:], "?="), strings.HasPrefix(p[i+1:], "?!"):
					i += 2
				case strings.HasPrefix(p[i+1:], "?<=") || strings.HasPrefix(p[i+1:], "?<!"):
					i += 3
				case strings.HasPrefix(p[i+1:], "?<"):
					if j := strings.IndexByte(p[i+1:], '>'); j > 0 {
						i += j + 1
					} else {
						canRepeat = true // not a form this reads: say nothing
					}
				default:
					canRepeat = true // (?i:…) and other forms newer engines take
				}
			}
		case ')':
			if depth == 0 {
				return "a ) matches no ("
			}
			depth--
			canRepeat, afterQuant, lazy = true, false, false
		case '|', '^', '$':
			canRepeat, afterQuant, lazy = false, false, false
		case '{':
			n, m, end, ok := braceQuantifier(p, i)
			if !ok { // a literal '{' (Annex B)
				canRepeat, afterQuant, lazy = true, false, false
				continue
			}
			switch {
			case n > m:
				return "the numbers of " + p[i:end+1] + " are out of order"
			case !canRepeat && afterQuant:
				return "a quantifier follows another"
			case !canRepeat:
				return "the quantifier " + p[i:end+1] + " has nothing to repeat"
			}
			i = end
			canRepeat, afterQuant, lazy = false, true, false
		case '*', '+', '?':
			switch {
			case ch == '?' && afterQuant && !lazy:
				lazy = true
			case !canRepeat:
				if afterQuant {
					return "a quantifier follows another"
				}
				return "the quantifier " + string(ch) + " has nothing to repeat"
			default:
				canRepeat, afterQuant, lazy = false, true, false
			}
		default:
			_, size := utf8.DecodeRuneInString(p[i:])
			i += size - 1
			canRepeat, afterQuant, lazy = true, false, false
		}
	}
	if depth > 0 {
		return "a ( is never closed"
	}
	return ""
}

// braceQuantifier reads {n}, {n,} or {n,m} at p[i] (m is n or max for
// the open form); ok is false when the brace is a literal.
func braceQuantifier(p string, i int) (n, m, end int, ok bool) {
	j := i + 1
	digits := func() (int, bool) {
		k := j
		for j < len(p) && '0' <= p[j] && p[j] <= '9' {
			j++
		}
		if j == k || j-k > 9 {
			return 0, false
		}
		v, _ := strconv.Atoi(p[k:j])
		return v, true
	}
	n, ok = digits()
	if !ok || j >= len(p) {
		return 0, 0, 0, false
	}
	m = n
	if p[j] == ',' {
		j++
		m = math.MaxInt32
		if j < len(p) && p[j] != '}' {
			if m, ok = digits(); !ok {
				return 0, 0, 0, false
			}
		}
	}
	if j >= len(p) || p[j] != '}' {
		return 0, 0, 0, false
	}
	return n, m, j, true
}

// reversedRange finds a range of two plain characters out of order in a
// class body ("z-a"); escapes and class escapes are left alone.
func reversedRange(body string) (lo, hi string, ok bool) {
	rs := []rune(body)
	if len(rs) > 0 && rs[0] == '^' {
		rs = rs[1:]
	}
	for k := 0; k < len(rs); k++ {
		if rs[k] == '\\' {
			k++
			continue
		}
		if k+2 < len(rs) && rs[k+1] == '-' && rs[k+2] != '\\' && rs[k] > rs[k+2] {
			return string(rs[k]), string(rs[k+2]), true
		}
		if k+2 < len(rs) && rs[k+1] == '-' {
			k += 2 // the range is whole: its end starts nothing
		}
	}
	return "", "", false
}

// classEnd is the index of the ']' closing a class whose body starts at
// i, or -1.
func classEnd(p string, i int) int {
	for ; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case ']':
			return i
		}
	}
	return -1
}
