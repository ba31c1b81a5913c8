package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// EnablementShape is how a host spells enablement. A host announcing 0.8.0
// may speak either shape (docs/ahp.md §4.7, §9), so it is learnt from state.
type EnablementShape int

const (
	// EnablementUnknown: not observed yet. Publish both shapes (extra keys
	// are legal) and toggle with both.
	EnablementUnknown EnablementShape = iota
	// EnablementBoolean: the 0.8.0 snapshot — `enabled` booleans only.
	EnablementBoolean
	// EnablementScoped: released 0.8.0+ — `enablement` lists on plugins and
	// MCP servers, `childEnablement` on client plugins.
	EnablementScoped
)

func (s EnablementShape) String() string {
	switch s {
	case EnablementBoolean:
		return "boolean"
	case EnablementScoped:
		return "scoped"
	}
	return "unknown"
}

// PluginEnablement is ahpls's decision for one published plugin, before the
// dialect projects it onto the wire.
type PluginEnablement struct {
	// Global is the user's global decision (what a scoped host receives; the
	// host resolves workspace/session entries itself).
	Global bool
	// Effective is the resolved value for this session (what a boolean-only
	// host receives, since it has no scopes).
	Effective bool
	// Children holds global decisions for host-discovered children by name
	// (for MCP servers: the server name in the bundled .mcp.json). Only the
	// scoped shape can carry them.
	Children map[string]bool
}

// Dialect is the version seam: every shape that differs between protocol
// versions is encoded or decoded here. Obtain one with DialectFor after
// initialize; refine it with WithEnablement once state shows the host's
// enablement shape (DetectEnablement).
type Dialect interface {
	// Version is the negotiated protocol version.
	Version() string
	// Versions lists the protocol versions this dialect can speak, most
	// preferred first (contributes to ProtocolVersions).
	Versions() []string

	// Enablement is the enablement shape currently assumed.
	Enablement() EnablementShape
	// WithEnablement returns the dialect with the shape pinned.
	WithEnablement(EnablementShape) Dialect
	// ApplyPluginEnablement writes enabled / enablement / childEnablement.
	ApplyPluginEnablement(p *ClientPluginCustomization, e PluginEnablement)
	// CustomizationToggled builds the toggle for id from ahpls's scoped
	// decisions (sorted session, workspace, global; may be empty = default).
	CustomizationToggled(id string, decisions []CustomizationEnablement) CustomizationToggledAction
	// ToggleDecision reads a customizationToggled payload of either shape.
	ToggleDecision(a StateAction) (id string, effective bool, decisions []CustomizationEnablement, err error)
	// Outgoing returns the action as it must go on the wire in this
	// version: a 0.x action gets the fields its schema requires and the
	// caller may have left out (`enabled` beside `enablement`). The input
	// is not modified; an action needing nothing is returned as is.
	Outgoing(action map[string]any) map[string]any

	// WorkingDirectories reads a generic session/chat state (or summary) map.
	WorkingDirectories(state map[string]any) []string
	// SummaryWorkingDirectories reads a typed SessionSummary.
	SummaryWorkingDirectories(s SessionSummary) []string
	// Lifecycle normalises SessionState.lifecycle.
	Lifecycle(wire string) Lifecycle
	// ChatError reads chat/error in either shape.
	ChatError(a StateAction) (ChatErrorAction, error)
	// ClientExecutionRaisesInputNeeded is true before 0.8.0, where a
	// toolClientExecution entry put the session into InputNeeded.
	ClientExecutionRaisesInputNeeded() bool
}

// dialects is the registry, newest first: V1 (1.0.0, 0.9.0; v1.go), then
// V08 (0.8.0 … 0.5.1). A new dialect is one file implementing Dialect plus
// its entry here.
var dialects = []struct {
	versions []string
	make     func(version string) (Dialect, bool)
}{
	{v1Versions, newV1},
	{v08Versions, newV08},
}

// ErrUnsupportedVersion is returned by DialectFor for versions no dialect
// speaks.
var ErrUnsupportedVersion = errors.New("wire: unsupported protocol version")

// ProtocolVersions is initialize.protocolVersions: every dialect's
// versions, newest first.
func ProtocolVersions() []string {
	var out []string
	for _, d := range dialects {
		out = append(out, d.versions...)
	}
	return out
}

// DialectFor returns the dialect for a negotiated protocol version.
func DialectFor(version string) (Dialect, error) {
	for _, d := range dialects {
		if dl, ok := d.make(version); ok {
			return dl, nil
		}
	}
	return nil, fmt.Errorf("%w %q", ErrUnsupportedVersion, version)
}

// DetectEnablement infers the enablement shape from customizations the host
// reported (session state or a customizationUpdated): any plugin or MCP
// server with `enablement`, or without `enabled`, means scoped; otherwise a
// plugin or MCP server with `enabled` means boolean; none at all, unknown.
// Children are inspected too.
func DetectEnablement(list []Customization) EnablementShape {
	shape := EnablementUnknown
	var walk func([]Customization) bool
	walk = func(cs []Customization) bool {
		for _, c := range cs {
			if c.Type == "plugin" || c.Type == "mcpServer" {
				if c.Enablement != nil || c.Enabled == nil {
					shape = EnablementScoped
					return true
				}
				shape = EnablementBoolean
			}
			if walk(c.Children) {
				return true
			}
		}
		return false
	}
	walk(list)
	return shape
}

// ─── V08: protocol 0.5.1 – 0.8.0 ───────────────────────────────────────────

var v08Versions = []string{"0.8.0", "0.7.0", "0.6.0", "0.5.2", "0.5.1"}

// V08 is the dialect of protocol 0.8.0 (snapshot and released), 0.7.0,
// 0.6.0 and 0.5.x. The zero value speaks 0.8.0 with unknown enablement.
type V08 struct {
	version string
	minor   int
	shape   EnablementShape
}

func newV08(version string) (Dialect, bool) {
	major, minor, ok := parseVersion(version)
	if !ok || major != 0 || minor < 5 || minor > 8 {
		return nil, false
	}
	return V08{version: version, minor: minor}, true
}

// parseVersion reads MAJOR.MINOR.PATCH[-pre] (initialize always names a
// full semver version).
func parseVersion(v string) (major, minor int, ok bool) {
	// strings.Cut rather than Split: this runs per reduced action via
	// IsV1, so it must not allocate.
	ma, rest, ok1 := strings.Cut(v, ".")
	mi, patch, ok2 := strings.Cut(rest, ".")
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(ma)
	minor, err2 := strconv.Atoi(mi)
	if err1 != nil || err2 != nil || major < 0 || minor < 0 {
		return 0, 0, false
	}
	patch, _, _ = strings.Cut(patch, "+") // build metadata
	patch, _, _ = strings.Cut(patch, "-")
	if p, err := strconv.Atoi(patch); err != nil || p < 0 {
		return 0, 0, false
	}
	return major, minor, true
}

func (d V08) Version() string {
	if d.version == "" {
		return "0.8.0"
	}
	return d.version
}

func (d V08) Versions() []string { return append([]string(nil), v08Versions...) }

func (d V08) Enablement() EnablementShape { return d.shape }

func (d V08) WithEnablement(s EnablementShape) Dialect {
	d.shape = s
	return d
}

// ApplyPluginEnablement always writes `enabled`: every 0.x schema requires
// it on a ClientPluginCustomization, whatever enablement shape the host was
// seen to speak (issue 15). The scoped shape adds `enablement` and
// `childEnablement` as the extra keys they are in 0.x.
func (d V08) ApplyPluginEnablement(p *ClientPluginCustomization, e PluginEnablement) {
	p.Enabled, p.Enablement, p.ChildEnablement = nil, nil, nil
	p.Enabled = Bool(e.Effective)
	if d.shape == EnablementBoolean {
		return
	}
	// A client always publishes its global decision, even when true.
	p.Enablement = []CustomizationEnablement{{Kind: ScopeGlobal, Enabled: e.Global}}
	if len(e.Children) > 0 {
		p.ChildEnablement = make(map[string][]CustomizationEnablement, len(e.Children))
		for name, on := range e.Children {
			p.ChildEnablement[name] = []CustomizationEnablement{{Kind: ScopeGlobal, Enabled: on}}
		}
	}
}

func (d V08) CustomizationToggled(id string, decisions []CustomizationEnablement) CustomizationToggledAction {
	// `enabled` is required by every 0.x schema, so it is always sent.
	a := CustomizationToggledAction{Type: TypeCustomizationToggled, ID: id, Enabled: Bool(EffectiveEnabled(decisions))}
	if d.shape != EnablementBoolean {
		a.Enablement = append([]CustomizationEnablement{}, decisions...)
	}
	return a
}

func (d V08) ToggleDecision(a StateAction) (string, bool, []CustomizationEnablement, error) {
	if a.Type != TypeCustomizationToggled {
		return "", false, nil, fmt.Errorf("wire: %q is not %s", a.Type, TypeCustomizationToggled)
	}
	var t CustomizationToggledAction
	if err := json.Unmarshal(a.Raw, &t); err != nil {
		return "", false, nil, err
	}
	switch {
	case t.Enablement != nil:
		return t.ID, EffectiveEnabled(t.Enablement), t.Enablement, nil
	case t.Enabled != nil:
		return t.ID, *t.Enabled, nil, nil
	}
	return "", false, nil, errors.New("wire: customizationToggled without enabled or enablement")
}

func stringList(v any) []string {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// WorkingDirectories prefers the spelling of the negotiated version and
// falls back to the other (hosts mid-migration send either).
func (d V08) WorkingDirectories(state map[string]any) []string {
	plural, hasPlural := state["workingDirectories"].([]any)
	single, hasSingle := state["workingDirectory"].(string)
	if d.minor > 0 && d.minor < 7 && hasSingle {
		return []string{single}
	}
	if hasPlural {
		return stringList(plural)
	}
	if hasSingle {
		return []string{single}
	}
	return nil
}

func (d V08) SummaryWorkingDirectories(s SessionSummary) []string {
	if d.minor > 0 && d.minor < 7 && s.WorkingDirectory != "" {
		return []string{s.WorkingDirectory}
	}
	if s.WorkingDirectories != nil {
		return append([]string(nil), s.WorkingDirectories...)
	}
	if s.WorkingDirectory != "" {
		return []string{s.WorkingDirectory}
	}
	return nil
}

func (d V08) Lifecycle(wire string) Lifecycle {
	switch wire {
	case "creationFailed", "failed":
		return LifecycleFailed
	}
	return Lifecycle(wire)
}

// ChatError reads 0.x `error: ErrorInfo`, falling back to a 1.x-style
// `part` (ErrorResponsePart; see V1.ChatError).
func (d V08) ChatError(a StateAction) (ChatErrorAction, error) {
	return decodeChatError(a, false)
}

func (d V08) ClientExecutionRaisesInputNeeded() bool { return d.minor > 0 && d.minor < 8 }

// Outgoing adds `enabled` where a 0.x schema requires it and the action
// carries only an `enablement` list: on session/customizationToggled, and
// on the plugins and MCP servers of a session/activeClientSet entry (value:
// the list's effective value, as a boolean-only host would resolve it).
func (d V08) Outgoing(action map[string]any) map[string]any {
	switch action["type"] {
	case TypeCustomizationToggled:
		if _, ok := action["enabled"]; ok {
			return action
		}
		out := shallow(action)
		out["enabled"] = effectiveOf(action["enablement"])
		return out
	case "session/activeClientSet":
		ac, _ := action["activeClient"].(map[string]any)
		list, _ := ac["customizations"].([]any)
		var fixed []any
		for i, e := range list {
			m, _ := e.(map[string]any)
			if m == nil || (m["type"] != "plugin" && m["type"] != "mcpServer") {
				continue
			}
			if _, ok := m["enabled"]; ok {
				continue
			}
			if fixed == nil {
				fixed = append([]any(nil), list...)
			}
			nm := shallow(m)
			nm["enabled"] = effectiveOf(m["enablement"])
			fixed[i] = nm
		}
		if fixed == nil {
			return action
		}
		nac := shallow(ac)
		nac["customizations"] = fixed
		out := shallow(action)
		out["activeClient"] = nac
		return out
	}
	return action
}

func shallow(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// effectiveOf is EffectiveEnabled on a generic (decoded JSON) list.
func effectiveOf(v any) bool {
	l, _ := v.([]any)
	if len(l) == 0 {
		return true
	}
	first, _ := l[0].(map[string]any)
	on, ok := first["enabled"].(bool)
	return !ok || on
}
