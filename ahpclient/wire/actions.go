package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Action type names ahpls dispatches or decodes.
const (
	TypeActiveClientSet        = "session/activeClientSet"
	TypeActiveClientRemoved    = "session/activeClientRemoved"
	TypeCustomizationToggled   = "session/customizationToggled"
	TypeMcpServerStartRequest  = "session/mcpServerStartRequested"
	TypeMcpServerStopRequest   = "session/mcpServerStopRequested"
	TypeToolCallContentChanged = "chat/toolCallContentChanged"
	TypeToolCallComplete       = "chat/toolCallComplete"
	TypeToolCallConfirmed      = "chat/toolCallConfirmed"
	// TypeToolCallProgress (AHP 1.1) reports where a running call is.
	TypeToolCallProgress = "chat/toolCallProgress"
	TypeChatError        = "chat/error"
)

// StateAction is any action in its exact wire form. Type is read from the
// payload; Raw is written back verbatim, so unknown variants survive. Use
// DecodeAction for a typed view and NewStateAction to wrap a typed action.
type StateAction struct {
	Type string
	Raw  json.RawMessage
}

// UnmarshalJSON requires a JSON object; a missing type reads as "".
func (a *StateAction) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return errors.New("wire: action is not a JSON object")
	}
	var h struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return err
	}
	t, _ := h.Type.(string)
	*a = StateAction{Type: t, Raw: append(json.RawMessage(nil), b...)}
	return nil
}

// MarshalJSON writes the raw action.
func (a StateAction) MarshalJSON() ([]byte, error) {
	if a.Raw == nil {
		return nil, errors.New("wire: empty StateAction")
	}
	return a.Raw, nil
}

// NewStateAction encodes a typed action (or any JSON object with a type).
func NewStateAction(v any) (StateAction, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return StateAction{}, err
	}
	var a StateAction
	if err := a.UnmarshalJSON(b); err != nil {
		return StateAction{}, err
	}
	if a.Type == "" {
		return StateAction{}, fmt.Errorf("wire: action %T has no type", v)
	}
	return a, nil
}

// Origin identifies the client dispatch an envelope echoes.
type Origin struct {
	ClientID  string `json:"clientId"`
	ClientSeq int64  `json:"clientSeq"`
}

// ActionEnvelope is the params of an `action` notification. Origin is absent
// (never null) on host actions; RejectionReason marks a rejected dispatch,
// which must not be applied.
type ActionEnvelope struct {
	Channel         string      `json:"channel"`
	Action          StateAction `json:"action"`
	ServerSeq       int64       `json:"serverSeq"`
	Origin          *Origin     `json:"origin,omitempty"`
	RejectionReason string      `json:"rejectionReason,omitempty"`
}

// DecodeEnvelope parses the params of an `action` notification. The action
// must be present and be a JSON object; unknown keys are ignored.
func DecodeEnvelope(b []byte) (ActionEnvelope, error) {
	var e ActionEnvelope
	if err := json.Unmarshal(b, &e); err != nil {
		return ActionEnvelope{}, err
	}
	if e.Action.Raw == nil {
		return ActionEnvelope{}, errors.New("wire: action envelope without action")
	}
	return e, nil
}

// IsOwn reports whether the envelope echoes a dispatch of clientID.
func (e ActionEnvelope) IsOwn(clientID string) bool {
	return e.Origin != nil && e.Origin.ClientID == clientID
}

// DispatchActionParams is the params of a `dispatchAction` notification.
type DispatchActionParams struct {
	Channel   string      `json:"channel"`
	ClientSeq int64       `json:"clientSeq"`
	Action    StateAction `json:"action"`
}

// ─── Typed actions ahpls dispatches ────────────────────────────────────────

// ActiveClientSetAction joins or refreshes ahpls's entry (always the full
// entry).
type ActiveClientSetAction struct {
	Type         string              `json:"type"`
	ActiveClient SessionActiveClient `json:"activeClient"`
}

// ActiveClientRemovedAction leaves a session's active-client role.
type ActiveClientRemovedAction struct {
	Type     string `json:"type"`
	ClientID string `json:"clientId"`
}

// CustomizationToggledAction is built by Dialect.CustomizationToggled, which
// chooses between `enabled` (0.8.0 snapshot) and `enablement` lists. A
// non-nil empty Enablement is sent as [] ("no explicit decisions").
type CustomizationToggledAction struct {
	Type       string                    `json:"type"`
	ID         string                    `json:"id"`
	Enabled    *bool                     `json:"enabled,omitempty"`
	Enablement []CustomizationEnablement `json:"enablement,omitzero"`
}

// McpServerRequestAction is session/mcpServerStartRequested or
// session/mcpServerStopRequested (Type says which).
type McpServerRequestAction struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// ToolCallContentChangedAction replaces a running call's partial content.
type ToolCallContentChangedAction struct {
	Type       string              `json:"type"`
	TurnID     string              `json:"turnId"`
	ToolCallID string              `json:"toolCallId"`
	Content    []ToolResultContent `json:"content"`
	Meta       map[string]any      `json:"_meta,omitempty"`
}

// ToolCallProgressAction (AHP 1.1) says a running call is alive and where it
// is, without touching its content: elapsed time and a one-line step.
//
// inferred (ahp.md §9): the change notes after 1.0 name the action and
// what it carries (elapsed time, the current step); the field names here
// (elapsedMs, step) are ours, as no generated client in the stored copies
// of the spec repository defines them yet. Hosts ignore actions and keys
// they do not know, and ahpls sends it only on 1.1 connections.
type ToolCallProgressAction struct {
	Type       string         `json:"type"`
	TurnID     string         `json:"turnId"`
	ToolCallID string         `json:"toolCallId"`
	ElapsedMs  int64          `json:"elapsedMs"`
	Step       string         `json:"step,omitempty"`
	Meta       map[string]any `json:"_meta,omitempty"`
}

// NewToolCallProgress builds chat/toolCallProgress.
func NewToolCallProgress(turnID, toolCallID string, elapsedMs int64, step string) ToolCallProgressAction {
	return ToolCallProgressAction{Type: TypeToolCallProgress, TurnID: turnID, ToolCallID: toolCallID, ElapsedMs: elapsedMs, Step: step}
}

// ToolCallCompleteAction finishes a call ahpls owns (exactly once).
type ToolCallCompleteAction struct {
	Type                       string         `json:"type"`
	TurnID                     string         `json:"turnId"`
	ToolCallID                 string         `json:"toolCallId"`
	Result                     ToolCallResult `json:"result"`
	RequiresResultConfirmation bool           `json:"requiresResultConfirmation,omitempty"`
	Meta                       map[string]any `json:"_meta,omitempty"`
}

// ToolCallConfirmedAction approves or denies a pending call. ahpls only
// denies its own unknown tools (Approved false, Reason "denied"). Approved is
// always written: the schema cannot tell a missing value from false.
type ToolCallConfirmedAction struct {
	Type             string            `json:"type"`
	TurnID           string            `json:"turnId"`
	ToolCallID       string            `json:"toolCallId"`
	Approved         bool              `json:"approved"`
	Confirmed        string            `json:"confirmed,omitempty"`
	Reason           string            `json:"reason,omitempty"`
	ReasonMessage    *StringOrMarkdown `json:"reasonMessage,omitempty"`
	SelectedOptionID string            `json:"selectedOptionId,omitempty"`
	Meta             map[string]any    `json:"_meta,omitempty"`
}

// NewActiveClientSet builds session/activeClientSet.
func NewActiveClientSet(c SessionActiveClient) ActiveClientSetAction {
	return ActiveClientSetAction{Type: TypeActiveClientSet, ActiveClient: c}
}

// NewActiveClientRemoved builds session/activeClientRemoved.
func NewActiveClientRemoved(clientID string) ActiveClientRemovedAction {
	return ActiveClientRemovedAction{Type: TypeActiveClientRemoved, ClientID: clientID}
}

// NewMcpServerStartRequested builds session/mcpServerStartRequested.
func NewMcpServerStartRequested(id string) McpServerRequestAction {
	return McpServerRequestAction{Type: TypeMcpServerStartRequest, ID: id}
}

// NewMcpServerStopRequested builds session/mcpServerStopRequested.
func NewMcpServerStopRequested(id string) McpServerRequestAction {
	return McpServerRequestAction{Type: TypeMcpServerStopRequest, ID: id}
}

// NewToolCallContentChanged builds chat/toolCallContentChanged; nil content
// is sent as [].
func NewToolCallContentChanged(turnID, toolCallID string, content []ToolResultContent) ToolCallContentChangedAction {
	if content == nil {
		content = []ToolResultContent{}
	}
	return ToolCallContentChangedAction{Type: TypeToolCallContentChanged, TurnID: turnID, ToolCallID: toolCallID, Content: content}
}

// NewToolCallComplete builds chat/toolCallComplete.
func NewToolCallComplete(turnID, toolCallID string, result ToolCallResult) ToolCallCompleteAction {
	return ToolCallCompleteAction{Type: TypeToolCallComplete, TurnID: turnID, ToolCallID: toolCallID, Result: result}
}

// NewToolCallDenied builds the denial ahpls sends for its own unknown tools
// awaiting confirmation (docs/ahp.md §5.5).
func NewToolCallDenied(turnID, toolCallID, message string) ToolCallConfirmedAction {
	a := ToolCallConfirmedAction{Type: TypeToolCallConfirmed, TurnID: turnID, ToolCallID: toolCallID, Approved: false, Reason: "denied"}
	if message != "" {
		m := Plain(message)
		a.ReasonMessage = &m
	}
	return a
}

// ChatErrorAction is chat/error as read through Dialect.ChatError.
type ChatErrorAction struct {
	TurnID   string
	Duration int64
	Error    ErrorInfo
	// Resumable is the 1.x ErrorResponsePart's `resumable` (a client may
	// then send chat/turnResume); always false for the 0.x shape.
	Resumable bool
}

// DecodeAction returns a typed value for the actions this package models
// (pointers to the structs above) and the StateAction itself for anything
// else. A modelled action whose fields have the wrong types is an error.
func DecodeAction(a StateAction) (any, error) {
	var v any
	switch a.Type {
	case TypeActiveClientSet:
		v = &ActiveClientSetAction{}
	case TypeActiveClientRemoved:
		v = &ActiveClientRemovedAction{}
	case TypeCustomizationToggled:
		v = &CustomizationToggledAction{}
	case TypeMcpServerStartRequest, TypeMcpServerStopRequest:
		v = &McpServerRequestAction{}
	case TypeToolCallContentChanged:
		v = &ToolCallContentChangedAction{}
	case TypeToolCallComplete:
		v = &ToolCallCompleteAction{}
	case TypeToolCallConfirmed:
		v = &ToolCallConfirmedAction{}
	case TypeToolCallProgress:
		v = &ToolCallProgressAction{}
	default:
		return a, nil
	}
	if err := json.Unmarshal(a.Raw, v); err != nil {
		return nil, fmt.Errorf("wire: decode %s: %w", a.Type, err)
	}
	return v, nil
}
