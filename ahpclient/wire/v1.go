package wire

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ─── V1: protocol 1.x, 0.10.x and 0.9.x ─────────────────────────────────────────

// v1Versions is what ahpls offers of the 1.x dialect, newest first.
var v1Versions = []string{"1.1.0", "1.0.0", "0.10.0", "0.9.0"}

// V1 is the dialect of protocol 1.0.x and 0.9.x (docs/ahp.md §9).
//
// One type covers both. inferred (ahp.md §9): the sources date the 1.x
// actions (ACTION_INTRODUCED_IN) but not each state-shape change, so 0.9.0
// is read as speaking the same shapes as 1.0.0; decoding accepts both
// spellings everywhere, so a 0.9.0 host still on a 0.x shape is understood.
// Every difference ahpls touches (enablement lists,
// childEnablement, the {id, enablement} toggle, lifecycle "failed", chat/error
// with an ErrorResponsePart, workingDirectories) arrived by 0.9.0, and what
// 1.0.0 added on top (canvases at 0.10.0; channel/* and tcp/* only at 1.1.0)
// is outside ahpls's slice and arrives, if at all, as actions and keys that
// are ignored. The version field keeps the negotiated spelling for logs and
// for reduce.Options.Dialect. If 0.9 and 1.0 ever need to diverge for ahpls,
// branch on d.major here rather than adding a type.
//
// Unlike V08, the enablement shape is fixed by the version (verified: 1.x
// plugins and MCP servers carry `enablement`, not `enabled`), so
// WithEnablement is a no-op and Enablement is always EnablementScoped.
// The zero value speaks 1.0.0.
type V1 struct {
	version string
	major   int
	minor   int
}

// newV1 accepts 0.9.x and every 1.x: a host answers with a version it chose
// from our offer, but one answering a later 1.x minor is caret-compatible
// with 1.0.0 (same major) and is spoken leniently rather than refused.
func newV1(version string) (Dialect, bool) {
	major, minor, ok := parseVersion(version)
	if !ok || !isV1Version(major, minor) {
		return nil, false
	}
	return V1{version: version, major: major, minor: minor}, true
}

// Version is the negotiated protocol version.
func (d V1) Version() string {
	if d.version == "" {
		return "1.0.0"
	}
	return d.version
}

// Versions lists what ahpls offers of this dialect.
func (d V1) Versions() []string { return append([]string(nil), v1Versions...) }

// Enablement is always EnablementScoped in 1.x.
func (d V1) Enablement() EnablementShape { return EnablementScoped }

// WithEnablement returns d unchanged: the 1.x version fixes the shape, and
// a boolean observed in a 1.x host's state is read leniently, never echoed.
func (d V1) WithEnablement(EnablementShape) Dialect { return d }

// ApplyPluginEnablement publishes the client's global decision as a list,
// always (even true), with no `enabled` beside it (enablement.md §7.2), and
// one global entry per bundled child in childEnablement (never []).
func (d V1) ApplyPluginEnablement(p *ClientPluginCustomization, e PluginEnablement) {
	p.Enabled, p.Enablement, p.ChildEnablement = nil, nil, nil
	p.Enablement = []CustomizationEnablement{{Kind: ScopeGlobal, Enabled: e.Global}}
	if len(e.Children) > 0 {
		p.ChildEnablement = make(map[string][]CustomizationEnablement, len(e.Children))
		for name, on := range e.Children {
			p.ChildEnablement[name] = []CustomizationEnablement{{Kind: ScopeGlobal, Enabled: on}}
		}
	}
}

// CustomizationToggled builds {id, enablement}; both are required in 1.x,
// so no decisions is sent as [] (clear every explicit decision).
func (d V1) CustomizationToggled(id string, decisions []CustomizationEnablement) CustomizationToggledAction {
	return CustomizationToggledAction{Type: TypeCustomizationToggled, ID: id,
		Enablement: append([]CustomizationEnablement{}, decisions...)}
}

// Outgoing returns the action unchanged: 1.x actions are sent as built.
func (d V1) Outgoing(action map[string]any) map[string]any { return action }

// ErrToggleWithoutEnablement is returned by V1.ToggleDecision for a toggle
// that carries only `enabled`.
var ErrToggleWithoutEnablement = errors.New("wire: 1.x customizationToggled without enablement")

// ToggleDecision reads {id, enablement}.
func (d V1) ToggleDecision(a StateAction) (string, bool, []CustomizationEnablement, error) {
	if a.Type != TypeCustomizationToggled {
		return "", false, nil, fmt.Errorf("wire: %q is not %s", a.Type, TypeCustomizationToggled)
	}
	var t CustomizationToggledAction
	if err := json.Unmarshal(a.Raw, &t); err != nil {
		return "", false, nil, err
	}
	if t.Enablement == nil {
		// inferred (ahp.md §9): an `enabled`-only toggle is malformed in 1.x
		// (the host reducer throws on it), so it carries no decision; the
		// mirror (reduce.ApplyWith) treats it as a no-op to match.
		return "", false, nil, ErrToggleWithoutEnablement
	}
	return t.ID, EffectiveEnabled(t.Enablement), t.Enablement, nil
}

// WorkingDirectories reads `workingDirectories`, falling back to a singular
// `workingDirectory` (decode leniently, ahp.md §9 rule 2).
func (d V1) WorkingDirectories(state map[string]any) []string {
	if plural, ok := state["workingDirectories"].([]any); ok {
		return stringList(plural)
	}
	if single, ok := state["workingDirectory"].(string); ok {
		return []string{single}
	}
	return nil
}

// SummaryWorkingDirectories reads a typed SessionSummary the same way.
func (d V1) SummaryWorkingDirectories(s SessionSummary) []string {
	if s.WorkingDirectories != nil {
		return append([]string(nil), s.WorkingDirectories...)
	}
	if s.WorkingDirectory != "" {
		return []string{s.WorkingDirectory}
	}
	return nil
}

// Lifecycle maps 1.x "failed" (and, leniently, 0.x "creationFailed") to
// LifecycleFailed.
func (d V1) Lifecycle(wire string) Lifecycle {
	switch wire {
	case "failed", "creationFailed":
		return LifecycleFailed
	}
	return Lifecycle(wire)
}

// ChatError reads the 1.x `part: ErrorResponsePart` ({kind:"error",
// error: ErrorInfo, resumable?}) first and the 0.x `error` as a fallback.
func (d V1) ChatError(a StateAction) (ChatErrorAction, error) {
	return decodeChatError(a, true)
}

// ClientExecutionRaisesInputNeeded is false: since 0.8.0 client executions
// keep the session InProgress.
func (d V1) ClientExecutionRaisesInputNeeded() bool { return false }

// decodeChatError reads chat/error in either shape. preferPart decides which
// wins when a host sends both (the negotiated dialect's own shape wins).
func decodeChatError(a StateAction, preferPart bool) (ChatErrorAction, error) {
	if a.Type != TypeChatError {
		return ChatErrorAction{}, fmt.Errorf("wire: %q is not %s", a.Type, TypeChatError)
	}
	var raw struct {
		TurnID   string          `json:"turnId"`
		Duration json.Number     `json:"duration"`
		Error    *ErrorInfo      `json:"error"`
		Part     json.RawMessage `json:"part"`
	}
	if err := json.Unmarshal(a.Raw, &raw); err != nil {
		return ChatErrorAction{}, err
	}
	out := ChatErrorAction{TurnID: raw.TurnID}
	if raw.Duration != "" {
		if f, err := raw.Duration.Float64(); err == nil && f > 0 {
			out.Duration = int64(f)
		}
	}
	hasPart := len(raw.Part) > 0 && string(raw.Part) != "null"
	fromPart := func() error {
		var p struct {
			Error     *ErrorInfo `json:"error"`
			ErrorType string     `json:"errorType"`
			Message   string     `json:"message"`
			Resumable bool       `json:"resumable"`
		}
		if err := json.Unmarshal(raw.Part, &p); err != nil {
			return err
		}
		if p.Error != nil {
			out.Error = *p.Error
		} else {
			// inferred (ahp.md §9): some hosts inline errorType/message in
			// the part instead of nesting an ErrorInfo; read both.
			out.Error = ErrorInfo{ErrorType: p.ErrorType, Message: p.Message}
		}
		out.Resumable = p.Resumable
		return nil
	}
	switch {
	case hasPart && (preferPart || raw.Error == nil):
		if err := fromPart(); err != nil {
			return ChatErrorAction{}, err
		}
	case raw.Error != nil:
		out.Error = *raw.Error
	}
	return out, nil
}
