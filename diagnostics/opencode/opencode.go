package opencode

// OpenCode (issue #38): opencode.json / opencode.jsonc, agents in
// .opencode/{agent,agents}/**/*.md (legacy .opencode/{mode,modes}/*.md)
// and commands in .opencode/{command,commands}/**/*.md. The version
// modelled is opencode-ai 1.18.33, read from its platform package
// opencode-linux-x64@1.18.33 (a Bun-compiled binary whose minified
// JavaScript is embedded; docs/rules.md quotes the fragments and gives
// the package's integrity) and run offline as
// `opencode --pure debug config` / `debug skill` in isolated folders.
// Its config schema (Effect Schema, not a JSON Schema file: none is
// embedded, https://opencode.ai/config.json is not shipped) is followed
// for the fields checked here; other fields are left alone.
//
// What the runs show: a config file that is not JSONC, a known field of
// the wrong shape, and an agent or command whose header field has the
// wrong type all stop OpenCode ("Configuration is invalid at <file>",
// "is not valid JSON(C)"): Error. A header that is not closed or not
// YAML is not read at all: the whole file, header included, becomes the
// agent's prompt or the command's template (Error, the header dropped).
// Unknown agent fields go to the agent's `options`; unknown command
// fields and unknown top-level config keys are dropped.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// OpenCodeConfigRules, openCodeAgentRules and openCodeCommandRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var OpenCodeConfigRules = []*core.Rule{ocConfigSyntax, ocConfigType, ocConfigUnknownKey}
var OpenCodeAgentRules = []*core.Rule{ocAgentHeader, ocAgentField, ocAgentUnknownKey}
var OpenCodeCommandRules = []*core.Rule{ocCommandHeader, ocCommandField, ocCommandUnknownKey}

// ocPkg names the evidence every OpenCode rule cites.
const ocPkg = "opencode-ai 1.18.33 (npm opencode-linux-x64@1.18.33, embedded JS)"

var ocConfigSyntax = &core.Rule{
	ID:       "occonfig/syntax",
	Summary:  "The config file is not JSONC (JSON with comments and trailing commas); OpenCode does not start.",
	Kinds:    "occonfig",
	Severity: "OC REJ (Error).",
	Evidence: []core.Evidence{
		{Consumer: "OC", Reaction: "REJ", Source: ocPkg + ": `opencode debug config` on `{\"model\": \"x\",,}` prints \"Config file at …/opencode.json is not valid JSON(C)\" with the parser's errors (PropertyNameExpected) and exits; comments and trailing commas load (in opencode.json too)"},
	},
}

var ocConfigType = &core.Rule{
	ID:       "occonfig/field-type",
	Summary:  "A config field OpenCode's schema declares has the wrong type or value (model a string, instructions a list of strings, mcp servers local or remote, permission actions allow/ask/deny, agent fields); OpenCode does not start.",
	Kinds:    "occonfig",
	Severity: "OC REJ (Error).",
	Evidence: []core.Evidence{
		{Consumer: "OC", Reaction: "REJ", Source: ocPkg + ": the config Struct (`model:D.optional(D.String)`, `instructions:D.optional(D.mutable(D.Array(D.String)))`, `mcp:D.optional(D.Record(D.String,D.Union([F$.Info,D.Struct({enabled:D.Boolean})])))`, …); `opencode debug config` on `{\"instructions\":\"AGENTS.md\"}` prints \"Configuration is invalid at …/opencode.json ↳ Expected array | undefined, got \\\"AGENTS.md\\\" instructions\""},
	},
}

var ocConfigUnknownKey = &core.Rule{
	ID:       "occonfig/unknown-key",
	Summary:  "A top-level key OpenCode's config schema does not declare; OpenCode drops it.",
	Kinds:    "occonfig",
	Severity: "OC IGN (Hint).",
	Evidence: []core.Evidence{
		{Consumer: "OC", Reaction: "IGN", Source: ocPkg + ": `opencode debug config` on `{\"foo\":1}` loads and prints the resolved config without `foo`"},
	},
}

var ocAgentHeader = &core.Rule{
	ID:       "ocagent/header",
	Summary:  "The agent's `---` header is not closed or is not YAML; OpenCode reads no field of it and takes the whole file, header included, as the agent's prompt.",
	Kinds:    "ocagent",
	Severity: "OC NOHDR (Error).",
	Evidence: []core.Evidence{
		{Consumer: "OC", Reaction: "NOHDR", Source: ocPkg + ": `opencode debug config` on an agent whose header is `description: [unclosed` lists the agent with no description and `\"prompt\": \"---\\ndescription: [unclosed\\n---\\n…\"`; likewise a header never closed"},
	},
}

var ocAgentField = &core.Rule{
	ID:       "ocagent/field-type",
	Summary:  "A header field of the agent has the wrong type or value (mode not subagent/primary/all, `tools` a list instead of a map, a `color` that is not #rrggbb or a theme color, `steps` not above 0, …); OpenCode does not start.",
	Kinds:    "ocagent",
	Severity: "OC REJ (Error).",
	Evidence: []core.Evidence{
		{Consumer: "OC", Reaction: "REJ", Source: ocPkg + ": the agent Struct `a5=D.StructWithRest(D.Struct({model:D.optional(D.String),…,temperature:D.optional(D.Finite),…,tools:D.optional(D.Record(D.String,D.Boolean)),…,mode:D.optional(D.Literals([\"subagent\",\"primary\",\"all\"])),…}))`; `opencode debug config` on `tools: [Read, Bash]` prints \"Configuration is invalid at …/.opencode/agents/a.md ↳ Expected object | undefined, got [\\\"Read\\\",\\\"Bash\\\"] tools\" and exits"},
	},
}

var ocAgentUnknownKey = &core.Rule{
	ID:       "ocagent/unknown-key",
	Summary:  "A header field OpenCode's agent schema does not name; OpenCode moves it into the agent's `options`, which it passes on with the model's options.",
	Kinds:    "ocagent",
	Severity: "OC ? (Info): the field is kept as an option, not refused; what a provider does with it is not known. OC LOSE (Warning) when the key is a near miss of a field OpenCode reads for the agent itself (`permissions` for `permission`, `tool` for `tools`): that field's setting is lost.",
	Evidence: []core.Evidence{
		{Consumer: "OC", Reaction: "?", Source: ocPkg + ": `dH=new Set([\"name\",\"model\",\"variant\",\"prompt\",\"description\",\"temperature\",\"top_p\",\"mode\",\"hidden\",\"color\",\"steps\",\"maxSteps\",\"options\",\"permission\",\"disable\",\"tools\"])`; `for(let[U,X]of Object.entries(_))if(!dH.has(U))Y[U]=X` into options"},
		{Consumer: "OC", Reaction: "LOSE (near miss)", Source: ocPkg + ": the same code: a misspelt `permissions` goes into the model's options and the agent's `permission` stays unset: `opencode --pure debug config` on an agent with `permissions: {edit: deny}` lists it with `\"options\": {\"permissions\": {\"edit\": \"deny\"}}` and `\"permission\": {}`"},
	},
	Fix:    core.FixUnsafe,
	FixWhy: "a rename changes what OpenCode reads: the value starts to apply (offered only when the value is valid under the new key and the key is not already there)",
}

// ocAgentOwnKeys are the agent fields OpenCode reads for the agent itself,
// not for the model: a near miss of one of them loses that setting. The
// sampling keys (temperature, top_p, variant, options) are left out: a
// near miss of them (top_k) is usually a real provider option.
var ocAgentOwnKeys = []string{"name", "model", "prompt", "description", "mode", "hidden", "color", "steps", "maxSteps", "permission", "disable", "tools"}

var ocCommandHeader = &core.Rule{
	ID:       "occmd/header",
	Summary:  "The command's `---` header is not closed or is not YAML; OpenCode reads no field of it and takes the whole file, header included, as the command's template.",
	Kinds:    "occmd",
	Severity: "OC NOHDR (Error).",
	Evidence: []core.Evidence{
		{Consumer: "OC", Reaction: "NOHDR", Source: ocPkg + ": `opencode debug config` on a command whose header is `description: [x` lists it as `{\"template\": \"---\\ndescription: [x\\n---\\nbody\"}`"},
	},
}

var ocCommandField = &core.Rule{
	ID:       "occmd/field-type",
	Summary:  "A header field of the command has the wrong type (`subtask` not a boolean; description, agent, model or variant not a string); OpenCode does not start.",
	Kinds:    "occmd",
	Severity: "OC REJ (Error).",
	Evidence: []core.Evidence{
		{Consumer: "OC", Reaction: "REJ", Source: ocPkg + ": the command Struct `tH=D.Struct({template:D.String,description:D.optional(D.String),agent:D.optional(D.String),model:D.optional(D.String),variant:D.optional(D.String),subtask:D.optional(D.Boolean)})`; `opencode debug config` on `subtask: \"yes\"` prints \"Configuration is invalid at …/.opencode/command/c.md: SchemaError: Expected boolean | undefined, got \\\"yes\\\"\""},
	},
}

var ocCommandUnknownKey = &core.Rule{
	ID:       "occmd/unknown-key",
	Summary:  "A header field other than description, agent, model, variant and subtask; OpenCode drops it.",
	Kinds:    "occmd",
	Severity: "OC IGN (Hint).",
	Evidence: []core.Evidence{
		{Consumer: "OC", Reaction: "IGN", Source: ocPkg + ": `opencode debug config` on a command with `foo: bar` and `allowed-tools: Bash` lists it with description and template only"},
	},
}

// ocv is one value of an OpenCode file, from JSON or from a YAML header,
// so the one schema below checks both (an agent in opencode.json's
// `agent` and one in .opencode/agent/*.md).
type ocv struct {
	kind    core.JSONKind
	str     string // a string's text
	num     float64
	isInt   bool
	span    model.Span
	members []ocMember
	items   []*ocv
}

type ocMember struct {
	key     string
	keySpan model.Span
	val     *ocv
}

func ocFromJSON(v *core.JSONValue) *ocv {
	if v == nil {
		return nil
	}
	o := &ocv{kind: v.Kind, str: v.Str, span: v.Span}
	switch v.Kind {
	case core.JSONNumber:
		fmt.Sscan(v.Str, &o.num)
		o.isInt = !strings.ContainsAny(v.Str, ".eE") || o.num == math.Trunc(o.num)
	case core.JSONObject:
		for _, m := range v.Members {
			o.members = append(o.members, ocMember{key: m.Key, keySpan: m.KeySpan, val: ocFromJSON(m.Value)})
		}
	case core.JSONArray:
		for _, it := range v.Items {
			o.items = append(o.items, ocFromJSON(it))
		}
	}
	return o
}

func ocFromYAML(d *syntax.YDoc, n *yaml.Node) *ocv {
	if n == nil {
		return nil
	}
	o := &ocv{span: d.Span(n)}
	if n.Kind == yaml.AliasNode {
		// An alias counts as its anchor's kind, without its contents:
		// following aliases into collections grows exponentially with
		// nested anchors (a "billion laughs" header).
		for n.Kind == yaml.AliasNode && n.Alias != nil && n.Alias != n {
			n = n.Alias
		}
		switch n.Kind {
		case yaml.MappingNode:
			o.kind = core.JSONObject
			return o
		case yaml.SequenceNode:
			o.kind = core.JSONArray
			return o
		case yaml.AliasNode:
			o.kind = core.JSONNull
			return o
		}
	}
	switch n.Kind {
	case yaml.MappingNode:
		o.kind = core.JSONObject
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, _ := core.Str(n.Content[i])
			if k == "" {
				k = n.Content[i].Value
			}
			o.members = append(o.members, ocMember{key: k, keySpan: d.KeySpan(n.Content[i]), val: ocFromYAML(d, n.Content[i+1])})
		}
	case yaml.SequenceNode:
		o.kind = core.JSONArray
		for _, c := range n.Content {
			o.items = append(o.items, ocFromYAML(d, c))
		}
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!str":
			o.kind, o.str = core.JSONString, n.Value
		case "!!bool":
			o.kind = core.JSONBool
		case "!!int", "!!float":
			o.kind = core.JSONNumber
			var f float64
			if err := n.Decode(&f); err == nil {
				o.num = f
			}
			o.isInt = n.Tag == "!!int" || o.num == math.Trunc(o.num)
		case "!!null":
			o.kind = core.JSONNull
		default:
			o.kind, o.str = core.JSONString, n.Value
		}
	}
	return o
}

func (o *ocv) get(key string) *ocMember {
	if o == nil {
		return nil
	}
	for i := len(o.members) - 1; i >= 0; i-- {
		if o.members[i].key == key {
			return &o.members[i]
		}
	}
	return nil
}

// ocProblem is one schema failure: where and what OpenCode expected.
type ocProblem struct {
	span model.Span
	path string
	want string
	got  *ocv
}

func (p ocProblem) message() string {
	if p.got == nil {
		return fmt.Sprintf("`%s` is missing; it must be %s", core.JClip(p.path), p.want)
	}
	return fmt.Sprintf("`%s` must be %s, not %s", core.JClip(p.path), p.want, ocDescribe(p.got))
}

func ocDescribe(v *ocv) string {
	if v == nil {
		return "missing"
	}
	switch v.kind {
	case core.JSONString:
		return core.ClipQuote(v.str)
	case core.JSONNumber:
		return "the number " + strconv.FormatFloat(v.num, 'g', -1, 64)
	}
	return v.kind.String()
}

// ocSchema checks values against the shapes OpenCode 1.18.33 declares.
type ocSchema struct{ out []ocProblem }

func (s *ocSchema) bad(path, want string, v *ocv) {
	s.out = append(s.out, ocProblem{span: v.span, path: path, want: want, got: v})
}

func (s *ocSchema) str(path string, v *ocv) {
	if v.kind != core.JSONString {
		s.bad(path, "a string", v)
	}
}

func (s *ocSchema) boolean(path string, v *ocv) {
	if v.kind != core.JSONBool {
		s.bad(path, "true or false", v)
	}
}

func (s *ocSchema) strList(path string, v *ocv) {
	if v.kind != core.JSONArray {
		s.bad(path, "a list of strings", v)
		return
	}
	for i, it := range v.items {
		s.str(fmt.Sprintf("%s[%d]", path, i), it)
	}
}

func (s *ocSchema) oneOf(path string, v *ocv, values ...string) {
	if v.kind != core.JSONString || !slices.Contains(values, v.str) {
		s.bad(path, "one of "+strings.Join(values, ", "), v)
	}
}

func (s *ocSchema) strMap(path string, v *ocv) {
	if v.kind != core.JSONObject {
		s.bad(path, "an object of strings", v)
		return
	}
	for _, m := range v.members {
		s.str(path+"."+m.key, m.val)
	}
}

// ocActions are PermissionActionConfig's values.
var ocActions = []string{"allow", "ask", "deny"}

// ocFlatPermissions take an action only, not a pattern map (g5).
var ocFlatPermissions = []string{"todowrite", "question", "webfetch", "websearch", "doom_loop"}

func (s *ocSchema) permission(path string, v *ocv) {
	if v.kind == core.JSONString {
		s.oneOf(path, v, ocActions...)
		return
	}
	if v.kind != core.JSONObject {
		s.bad(path, "allow, ask, deny or an object of them", v)
		return
	}
	for _, m := range v.members {
		p := path + "." + m.key
		switch {
		case m.val.kind == core.JSONString:
			s.oneOf(p, m.val, ocActions...)
		case slices.Contains(ocFlatPermissions, m.key):
			s.bad(p, "allow, ask or deny", m.val)
		case m.val.kind == core.JSONObject:
			for _, pm := range m.val.members {
				s.oneOf(p+"."+pm.key, pm.val, ocActions...)
			}
		default:
			s.bad(p, "allow, ask, deny or an object of patterns", m.val)
		}
	}
}

// ocColorNames are the theme colors an agent's `color` may name (mH).
var ocColorNames = []string{"primary", "secondary", "accent", "success", "warning", "error", "info"}

// ocHexColor is mH's pattern, compiled on first use.
var ocHexColor = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#[0-9a-fA-F]{6}$`) })

// agent checks one agent (a5): its declared fields; the rest are options.
// unknown receives the other keys.
func (s *ocSchema) agent(path string, v *ocv, unknown func(ocMember)) {
	if v.kind != core.JSONObject {
		s.bad(path, "an object", v)
		return
	}
	pre := path
	if pre != "" {
		pre += "."
	}
	for _, m := range v.members {
		p := pre + m.key
		switch m.key {
		case "model", "variant", "prompt", "description":
			s.str(p, m.val)
		case "temperature", "top_p":
			if m.val.kind != core.JSONNumber {
				s.bad(p, "a number", m.val)
			}
		case "tools":
			if m.val.kind != core.JSONObject {
				s.bad(p, "an object of tool names to true or false", m.val)
				continue
			}
			for _, t := range m.val.members {
				s.boolean(p+"."+t.key, t.val)
			}
		case "disable", "hidden":
			s.boolean(p, m.val)
		case "mode":
			s.oneOf(p, m.val, "subagent", "primary", "all")
		case "options":
			if m.val.kind != core.JSONObject {
				s.bad(p, "an object", m.val)
			}
		case "color":
			if m.val.kind != core.JSONString || !ocHexColor().MatchString(m.val.str) && !slices.Contains(ocColorNames, m.val.str) {
				s.bad(p, "#rrggbb or one of "+strings.Join(ocColorNames, ", "), m.val)
			}
		case "steps", "maxSteps":
			if m.val.kind != core.JSONNumber || !m.val.isInt || m.val.num <= 0 {
				s.bad(p, "a whole number above 0", m.val)
			}
		case "permission":
			s.permission(p, m.val)
		case "name":
		default:
			if unknown != nil {
				unknown(m)
			}
		}
	}
}

func (s *ocSchema) command(path string, v *ocv, inFile bool, unknown func(ocMember)) {
	if v.kind != core.JSONObject {
		s.bad(path, "an object", v)
		return
	}
	pre := path
	if pre != "" {
		pre += "."
	}
	if !inFile {
		if t := v.get("template"); t == nil {
			s.out = append(s.out, ocProblem{span: v.span, path: pre + "template", want: "a string (the command's prompt)", got: nil})
		} else {
			s.str(pre+"template", t.val)
		}
	}
	for _, m := range v.members {
		p := pre + m.key
		switch m.key {
		case "subtask":
			s.boolean(p, m.val)
		case "description", "agent", "model", "variant":
			s.str(p, m.val)
		case "template":
		default:
			if unknown != nil {
				unknown(m)
			}
		}
	}
}

func (s *ocSchema) mcp(path string, v *ocv) {
	if v.kind != core.JSONObject {
		s.bad(path, "an object of servers", v)
		return
	}
	for _, m := range v.members {
		p := path + "." + m.key
		srv := m.val
		if srv.kind != core.JSONObject {
			s.bad(p, "an object", srv)
			continue
		}
		typ := srv.get("type")
		if typ == nil {
			// {enabled: boolean} alone toggles a server of another config.
			if e := srv.get("enabled"); e == nil || e.val.kind != core.JSONBool {
				s.out = append(s.out, ocProblem{span: m.keySpan, path: p + ".type", want: "local or remote", got: nil})
			}
			continue
		}
		switch {
		case typ.val.kind == core.JSONString && typ.val.str == "local":
			if c := srv.get("command"); c == nil {
				s.out = append(s.out, ocProblem{span: m.keySpan, path: p + ".command", want: "a list of strings", got: nil})
			} else {
				s.strList(p+".command", c.val)
			}
			if e := srv.get("environment"); e != nil {
				s.strMap(p+".environment", e.val)
			}
		case typ.val.kind == core.JSONString && typ.val.str == "remote":
			if u := srv.get("url"); u == nil {
				s.out = append(s.out, ocProblem{span: m.keySpan, path: p + ".url", want: "a string", got: nil})
			} else {
				s.str(p+".url", u.val)
			}
			if h := srv.get("headers"); h != nil {
				s.strMap(p+".headers", h.val)
			}
		default:
			s.oneOf(p+".type", typ.val, "local", "remote")
			continue
		}
		if e := srv.get("enabled"); e != nil {
			s.boolean(p+".enabled", e.val)
		}
	}
}

// ocConfigKeys are the config Struct's top-level keys (opencode-ai
// 1.18.33, the Struct that starts `$schema:D.optional(D.String)`).
var ocConfigKeys = []string{"$schema", "shell", "logLevel", "server", "command", "skills", "references", "reference",
	"watcher", "snapshot", "plugin", "share", "autoshare", "autoupdate", "disabled_providers", "enabled_providers",
	"model", "small_model", "default_agent", "subagent_depth", "username", "mode", "agent", "provider", "mcp",
	"formatter", "lsp", "instructions", "layout", "permission", "tools", "attachment", "enterprise", "tool_output",
	"compaction", "experimental"}

func (s *ocSchema) config(root *ocv, unknown func(ocMember)) {
	if root.kind != core.JSONObject {
		s.bad("(root)", "an object", root)
		return
	}
	for _, m := range root.members {
		k, v := m.key, m.val
		switch k {
		case "$schema", "shell", "model", "small_model", "default_agent", "username":
			s.str(k, v)
		case "instructions", "disabled_providers", "enabled_providers":
			s.strList(k, v)
		case "snapshot", "autoshare":
			s.boolean(k, v)
		case "share":
			s.oneOf(k, v, "manual", "auto", "disabled")
		case "logLevel":
			s.oneOf(k, v, "DEBUG", "INFO", "WARN", "ERROR")
		case "autoupdate":
			if v.kind != core.JSONBool && (v.kind != core.JSONString || v.str != "notify") {
				s.bad(k, "true, false or \"notify\"", v)
			}
		case "agent", "mode":
			if v.kind != core.JSONObject {
				s.bad(k, "an object of agents by name", v)
				continue
			}
			for _, a := range v.members {
				s.agent(k+"."+a.key, a.val, nil)
			}
		case "command":
			if v.kind != core.JSONObject {
				s.bad(k, "an object of commands by name", v)
				continue
			}
			for _, c := range v.members {
				s.command(k+"."+c.key, c.val, false, nil)
			}
		case "mcp":
			s.mcp(k, v)
		case "permission":
			s.permission(k, v)
		case "tools":
			if v.kind != core.JSONObject {
				s.bad(k, "an object of tool names to true or false", v)
				continue
			}
			for _, t := range v.members {
				s.boolean(k+"."+t.key, t.val)
			}
		case "plugin":
			if v.kind != core.JSONArray {
				s.bad(k, "a list", v)
				continue
			}
			for i, it := range v.items {
				if it.kind == core.JSONString {
					continue
				}
				if it.kind != core.JSONArray || len(it.items) == 0 || it.items[0].kind != core.JSONString {
					s.bad(fmt.Sprintf("plugin[%d]", i), "a string or [name, options]", it)
				}
			}
		default:
			if !slices.Contains(ocConfigKeys, k) && unknown != nil {
				unknown(m)
			}
		}
	}
}

func ocReject() model.Verdicts { return model.Verdicts{model.TargetOpenCode: model.Reject} }

func CheckOpenCodeConfig(f core.File, r *core.Reporter) {
	v, findings := core.ParseJSONTree(f.Text)
	for _, fd := range findings {
		if fd.Rule == core.JSONSyntax {
			r.Verdict(ocConfigSyntax, fd.Span, ocReject(), "%s does not start with this config: it is not valid JSONC ("+fd.Message+").")
			return
		}
	}
	if v == nil {
		return
	}
	var s ocSchema
	s.config(ocFromJSON(v), func(m ocMember) {
		r.Verdict(ocConfigUnknownKey, m.keySpan, model.Verdicts{model.TargetOpenCode: model.Ignore},
			"OpenCode's config has no `"+core.JClip(m.key)+"`; it drops the key.")
	})
	ocReport(r, ocConfigType, s.out)
}

func ocReport(r *core.Reporter, rule *core.Rule, ps []ocProblem) {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].span.Start < ps[j].span.Start })
	for _, p := range ps {
		r.Verdict(rule, p.span, ocReject(), "%s does not start: "+p.message()+".")
	}
}

// ocHeader reads an agent's or command's header as OpenCode does; nil
// when there is none or OpenCode reads none of it (reported).
func ocHeader(f core.File, r *core.Reporter, rule *core.Rule, what string) (*ocv, bool) {
	fm := syntax.SplitFrontmatter(f.Text)
	if !fm.Present {
		return nil, true
	}
	if !fm.Closed {
		r.Verdict(rule, fm.Open, model.Verdicts{model.TargetOpenCode: model.NoHeader},
			"This header is never closed with `---`: %s reads none of its fields and takes the whole file as the "+what+".")
		return nil, false
	}
	base := fm.Body.Start
	doc, perr := syntax.ParseYAML(f.Text[fm.Body.Start:fm.Body.End], func(o int) int { return base + o })
	if perr != nil && ocQuotedRetry(f.Text[fm.Body.Start:fm.Body.End]) {
		// OpenCode reads this header after quoting its plain values that
		// hold ": " (opencode 1.18.33 `debug config` lists such an agent
		// with its description and mode); its fields are not checked here.
		return nil, true
	}
	if perr != nil {
		r.Verdict(rule, perr.Span, model.Verdicts{model.TargetOpenCode: model.NoHeader},
			"This header is not valid YAML ("+perr.Msg+"): %s reads none of its fields and takes the whole file as the "+what+".")
		return nil, false
	}
	if doc.Root == nil {
		return nil, true
	}
	return ocFromYAML(doc, doc.Root), true
}

func CheckOpenCodeAgent(f core.File, r *core.Reporter) {
	h, _ := ocHeader(f, r, ocAgentHeader, "agent's prompt")
	if h == nil || h.kind != core.JSONObject {
		return
	}
	var s ocSchema
	s.agent("", h, func(m ocMember) {
		if best := ocNearMiss(m.key); best != "" {
			r.Verdict(ocAgentUnknownKey, m.keySpan, model.Verdicts{model.TargetOpenCode: model.Lose},
				"OpenCode's agents have no `"+core.JClip(m.key)+"` field (did you mean `"+best+"`?): OpenCode passes it on in the model's options, and the agent's `"+best+"` stays unset.",
				ocRenameFix(f.Text, h, m, best)...)
			return
		}
		r.Verdict(ocAgentUnknownKey, m.keySpan, model.Verdicts{model.TargetOpenCode: model.Unknown},
			"OpenCode's agents have no `"+core.JClip(m.key)+"` field; OpenCode passes it on in the agent's options.")
	})
	ocReport(r, ocAgentField, s.out)
}

func CheckOpenCodeCommand(f core.File, r *core.Reporter) {
	h, _ := ocHeader(f, r, ocCommandHeader, "command's template")
	if h == nil || h.kind != core.JSONObject {
		return
	}
	var s ocSchema
	s.command("", h, true, func(m ocMember) {
		r.Verdict(ocCommandUnknownKey, m.keySpan, model.Verdicts{model.TargetOpenCode: model.Ignore},
			"OpenCode's commands read description, agent, model, variant and subtask; `"+core.JClip(m.key)+"` is dropped.")
	})
	ocReport(r, ocCommandField, s.out)
}

// ocNearMiss returns the agent field key misspells: one edit away
// (`permissions`, `tool`, `colour`) or the same but for case, `_` and `-`
// (`max_steps`). Two edits are too many for keys this short: `role` is
// two from `mode` and is a field of its own in other agents' formats.
func ocNearMiss(key string) string {
	if best := core.Closest(key, ocAgentOwnKeys, 1); best != "" {
		return best
	}
	norm := func(s string) string { return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s)) }
	for _, k := range ocAgentOwnKeys {
		if norm(k) == norm(key) {
			return k
		}
	}
	return ""
}

// ocRenameFix renames an agent's misspelt key to best, offered only where
// that cannot break the agent: the key is written bare (not quoted), best
// is not already a field, and the value is valid under best (a
// `permissions` map with a wrong action would stop OpenCode from starting
// once it is read).
func ocRenameFix(text []byte, h *ocv, m ocMember, best string) []model.Fix {
	if m.keySpan.End > len(text) || string(text[m.keySpan.Start:m.keySpan.End]) != m.key {
		return nil
	}
	for _, o := range h.members {
		if o.key == best {
			return nil
		}
	}
	var s ocSchema
	s.agent("", &ocv{kind: core.JSONObject, members: []ocMember{{key: best, keySpan: m.keySpan, val: m.val}}}, nil)
	if len(s.out) > 0 {
		return nil
	}
	return []model.Fix{{Title: "Rename `" + m.key + "` to `" + best + "`", Edits: []model.Edit{{Span: m.keySpan, NewText: best}}}}
}

// ocPlainColon is a `key: value` line whose plain value holds ": ".
var ocPlainColon = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([A-Za-z0-9_-]+):[ \t]+([^"'\[{|>&*!#\s][^\n]*: [^\n]*)$`)
})

// ocQuotedRetry reports a header that does not parse as YAML but does once
// each top-level plain value holding ": " is quoted, which OpenCode
// accepts: the description `Examples: user: "clean this up"` unquoted
// loads (an agent listed with its description by `opencode --pure debug
// config`), while a double-quoted value with bare inner quotes
// (ZeiZel/ai-config .opencode/agent/refactor-agent.md) or an unclosed
// flow sequence is still dropped.
func ocQuotedRetry(body []byte) bool {
	lines := strings.Split(string(body), "\n")
	changed := false
	for i, l := range lines {
		m := ocPlainColon().FindStringSubmatch(strings.TrimRight(l, "\r"))
		if m == nil {
			continue
		}
		lines[i] = m[1] + ": " + strconv.Quote(m[2])
		changed = true
	}
	if !changed {
		return false
	}
	var v any
	return yaml.Unmarshal([]byte(strings.Join(lines, "\n")), &v) == nil
}
