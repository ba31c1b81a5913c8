package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// ─── Session status bitset ─────────────────────────────────────────────────

// SessionStatus is the session/chat status bitset (docs/ahp.md §2.6). Bits
// 0–4 are the activity, the rest are flags; bits this package does not name
// are kept on decode and encode.
type SessionStatus uint32

// Named status bits. InputNeeded includes the InProgress bit.
const (
	StatusIdle        SessionStatus = 1
	StatusError       SessionStatus = 2
	StatusInProgress  SessionStatus = 8
	StatusInputNeeded SessionStatus = 24
	StatusIsRead      SessionStatus = 32
	StatusIsArchived  SessionStatus = 64

	// ActivityMask covers the mutually exclusive activity bits.
	ActivityMask SessionStatus = 31
)

// Activity returns the activity bits alone.
func (s SessionStatus) Activity() SessionStatus { return s & ActivityMask }

// Has reports whether every bit of flag is set.
func (s SessionStatus) Has(flag SessionStatus) bool { return s&flag == flag }

// IsIdle reports an idle activity.
func (s SessionStatus) IsIdle() bool { return s.Activity() == StatusIdle }

// IsError reports an error activity.
func (s SessionStatus) IsError() bool { return s.Activity() == StatusError }

// IsInProgress is true while work runs, including when it waits for input.
func (s SessionStatus) IsInProgress() bool { return s&StatusInProgress != 0 }

// IsInputNeeded is true when the session waits for a person.
func (s SessionStatus) IsInputNeeded() bool { return s.Has(StatusInputNeeded) }

// IsRead reports the IsRead flag.
func (s SessionStatus) IsRead() bool { return s&StatusIsRead != 0 }

// IsArchived reports the IsArchived flag.
func (s SessionStatus) IsArchived() bool { return s&StatusIsArchived != 0 }

// WithActivity replaces the activity bits and keeps every flag.
func (s SessionStatus) WithActivity(a SessionStatus) SessionStatus {
	return s&^ActivityMask | a&ActivityMask
}

// With sets flag.
func (s SessionStatus) With(flag SessionStatus) SessionStatus { return s | flag }

// Without clears flag.
func (s SessionStatus) Without(flag SessionStatus) SessionStatus { return s &^ flag }

// UnmarshalJSON accepts any integer in uint32 range (a real bitset, not the
// schema's closed enum).
func (s *SessionStatus) UnmarshalJSON(b []byte) error {
	u, err := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 32)
	if err != nil {
		return fmt.Errorf("wire: session status %s is not a uint32 bitset", b)
	}
	*s = SessionStatus(u)
	return nil
}

// ─── Small shared shapes ───────────────────────────────────────────────────

// FromGeneric converts a generic JSON value (as held by the reduce state
// mirror: map[string]any, []any, json.Number, …) into a typed value, e.g. a
// session's customizations into []Customization.
func FromGeneric(v any, out any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// StringOrMarkdown is a plain string or {markdown}.
type StringOrMarkdown struct {
	Text       string
	IsMarkdown bool
}

// Plain makes a plain-string StringOrMarkdown.
func Plain(s string) StringOrMarkdown { return StringOrMarkdown{Text: s} }

// Markdown makes a {markdown} StringOrMarkdown.
func Markdown(s string) StringOrMarkdown { return StringOrMarkdown{Text: s, IsMarkdown: true} }

// MarshalJSON writes a string, or {"markdown": …}.
func (m StringOrMarkdown) MarshalJSON() ([]byte, error) {
	if m.IsMarkdown {
		return json.Marshal(struct {
			Markdown string `json:"markdown"`
		}{m.Text})
	}
	return json.Marshal(m.Text)
}

// UnmarshalJSON reads either form.
func (m *StringOrMarkdown) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		*m = StringOrMarkdown{}
		return json.Unmarshal(b, &m.Text)
	}
	var o struct {
		Markdown *string `json:"markdown"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	if o.Markdown == nil {
		return errors.New("wire: StringOrMarkdown object without markdown")
	}
	*m = Markdown(*o.Markdown)
	return nil
}

// ErrorInfo is the host's error shape (session creation, chat/error).
type ErrorInfo struct {
	ErrorType string         `json:"errorType"`
	Message   string         `json:"message"`
	Stack     string         `json:"stack,omitempty"`
	Meta      map[string]any `json:"_meta,omitempty"`
}

// Implementation names a peer (clientInfo/serverInfo); for logs only.
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	Title   string `json:"title,omitempty"`
}

// ContentRef points at content stored outside the state tree.
type ContentRef struct {
	URI         string       `json:"uri"`
	SizeHint    *json.Number `json:"sizeHint,omitempty"`
	ContentType string       `json:"contentType,omitempty"`
	Nonce       string       `json:"nonce,omitempty"`
}

// ─── Tools ─────────────────────────────────────────────────────────────────

// ToolDefinition describes a tool ahpls provides (mirrors MCP Tool). Names
// share one namespace with the host's tools, so prefix them (ahpls_).
type ToolDefinition struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Meta         map[string]any   `json:"_meta,omitempty"`
}

// ToolAnnotations are advisory hints; nil means "not stated" (the MCP
// defaults then apply: readOnly false, destructive true, idempotent false,
// openWorld true).
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Bool returns a pointer to b, for the optional boolean fields.
func Bool(b bool) *bool { return &b }

// ─── Active client and plugins ─────────────────────────────────────────────

// SessionActiveClient is ahpls's full entry in SessionState.activeClients;
// activeClientSet always carries the whole entry.
type SessionActiveClient struct {
	ClientID       string                      `json:"clientId"`
	DisplayName    string                      `json:"displayName,omitempty"`
	Tools          []ToolDefinition            `json:"tools"`
	Customizations []ClientPluginCustomization `json:"customizations,omitzero"`
}

// MarshalJSON always writes `tools` as an array: it is required.
func (c SessionActiveClient) MarshalJSON() ([]byte, error) {
	type plain SessionActiveClient
	p := plain(c)
	if p.Tools == nil {
		p.Tools = []ToolDefinition{}
	}
	return json.Marshal(p)
}

// Enablement scope kinds (released 0.8.0+ / 1.x enablement lists).
const (
	ScopeGlobal    = "global"
	ScopeWorkspace = "workspace"
	ScopeSession   = "session"
)

// CustomizationEnablement is one scoped decision. URI is set for the
// workspace scope only.
type CustomizationEnablement struct {
	Kind    string `json:"kind"`
	URI     string `json:"uri,omitempty"`
	Enabled bool   `json:"enabled"`
}

// EffectiveEnabled is the value a list resolves to: the first entry
// (lists are sorted session, workspace, global), default on.
func EffectiveEnabled(list []CustomizationEnablement) bool {
	if len(list) == 0 {
		return true
	}
	return list[0].Enabled
}

// ClientPluginCustomization is a plugin as ahpls publishes it in its active
// client entry. Which of Enabled / Enablement / ChildEnablement are set is
// the dialect's business (Dialect.ApplyPluginEnablement). load, children and
// clientId are host-side and never sent.
type ClientPluginCustomization struct {
	Type            string                               `json:"type"`
	ID              string                               `json:"id"`
	URI             string                               `json:"uri"`
	Name            string                               `json:"name"`
	Enabled         *bool                                `json:"enabled,omitempty"`
	Nonce           string                               `json:"nonce,omitempty"`
	Enablement      []CustomizationEnablement            `json:"enablement,omitzero"`
	ChildEnablement map[string][]CustomizationEnablement `json:"childEnablement,omitempty"`
	Meta            map[string]any                       `json:"_meta,omitempty"`
}

// MarshalJSON fills in type "plugin".
func (p ClientPluginCustomization) MarshalJSON() ([]byte, error) {
	type plain ClientPluginCustomization
	q := plain(p)
	if q.Type == "" {
		q.Type = "plugin"
	}
	return json.Marshal(q)
}

// ─── Customizations as the host reports them ───────────────────────────────

// Customization load-state kinds (docs/ahp.md §4.3).
const (
	LoadLoading  = "loading"
	LoadLoaded   = "loaded"
	LoadDegraded = "degraded"
	LoadError    = "error"
)

// CustomizationLoadState is a container's load state; absent = not reported.
type CustomizationLoadState struct {
	Kind    string `json:"kind"`
	Message string `json:"message,omitempty"`
}

// McpServerState is read for its kind only; the raw value is kept.
type McpServerState struct {
	Kind string
	Raw  json.RawMessage
}

// UnmarshalJSON keeps the raw state and reads kind.
func (s *McpServerState) UnmarshalJSON(b []byte) error {
	var k struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(b, &k); err != nil {
		return err
	}
	*s = McpServerState{Kind: k.Kind, Raw: append(json.RawMessage(nil), b...)}
	return nil
}

// Blocking reads the 1.x McpServerStartingState.blocking (verified, docs/ahp.md
// §9): true when the host holds the session until this server is up. False
// for any other state or when absent.
func (s McpServerState) Blocking() bool {
	if s.Kind != "starting" || s.Raw == nil {
		return false
	}
	var b struct {
		Blocking bool `json:"blocking"`
	}
	_ = json.Unmarshal(s.Raw, &b) // a non-boolean blocking reads as false
	return b.Blocking
}

// MarshalJSON writes the raw state back, or {kind} for a built value.
func (s McpServerState) MarshalJSON() ([]byte, error) {
	if s.Raw != nil {
		return s.Raw, nil
	}
	return json.Marshal(struct {
		Kind string `json:"kind"`
	}{s.Kind})
}

// Customization is a read view over one entry of SessionState.customizations
// (top level or child) of any type, including types newer than this package.
// Raw is the exact wire form and is what MarshalJSON writes back, so a decoded
// entry round-trips verbatim; the typed fields are for reading.
type Customization struct {
	Type       string                    `json:"type"`
	ID         string                    `json:"id"`
	URI        string                    `json:"uri"`
	Name       string                    `json:"name"`
	Enabled    *bool                     `json:"enabled,omitempty"`
	Enablement []CustomizationEnablement `json:"enablement,omitzero"`
	ClientID   string                    `json:"clientId,omitempty"`
	Nonce      string                    `json:"nonce,omitempty"`
	Load       *CustomizationLoadState   `json:"load,omitempty"`
	Children   []Customization           `json:"children,omitzero"`
	State      *McpServerState           `json:"state,omitempty"`
	Channel    string                    `json:"channel,omitempty"`

	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON reads the typed view and keeps the raw entry. It is lenient
// on purpose: one entry with an odd field (a newer host's shape) must not
// fail a whole customization list, so when the full view does not decode it
// falls back to the string identity fields, keeping Raw either way. Only a
// non-object is an error.
func (c *Customization) UnmarshalJSON(b []byte) error {
	type plain Customization
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		var loose map[string]json.RawMessage
		if err2 := json.Unmarshal(b, &loose); err2 != nil || loose == nil {
			return err
		}
		p = plain{}
		for k, dst := range map[string]*string{"type": &p.Type, "id": &p.ID, "uri": &p.URI, "name": &p.Name, "clientId": &p.ClientID} {
			_ = json.Unmarshal(loose[k], dst) // a non-string stays ""
		}
	}
	*c = Customization(p)
	c.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// MarshalJSON writes Raw when the value was decoded, else the typed fields.
func (c Customization) MarshalJSON() ([]byte, error) {
	if c.Raw != nil {
		return c.Raw, nil
	}
	type plain Customization
	return json.Marshal(plain(c))
}

// IsContainer reports a plugin or directory.
func (c Customization) IsContainer() bool { return c.Type == "plugin" || c.Type == "directory" }

// ─── Sessions ──────────────────────────────────────────────────────────────

// ProjectInfo is SessionSummary.project.
type ProjectInfo struct {
	URI         string `json:"uri"`
	DisplayName string `json:"displayName"`
}

// SessionSummary is a listSessions item / root/sessionAdded summary.
// WorkingDirectory is the pre-0.7.0 singular field; read both through
// Dialect.SummaryWorkingDirectories.
type SessionSummary struct {
	Resource           string          `json:"resource"`
	Provider           string          `json:"provider"`
	Title              string          `json:"title"`
	Status             SessionStatus   `json:"status"`
	CreatedAt          string          `json:"createdAt"`
	ModifiedAt         string          `json:"modifiedAt"`
	Activity           string          `json:"activity,omitempty"`
	Project            *ProjectInfo    `json:"project,omitempty"`
	WorkingDirectories []string        `json:"workingDirectories,omitzero"`
	WorkingDirectory   string          `json:"workingDirectory,omitempty"`
	Annotations        json.RawMessage `json:"annotations,omitempty"`
	Changes            json.RawMessage `json:"changes,omitempty"`
	Meta               map[string]any  `json:"_meta,omitempty"`

	// 1.x additions (verified, docs/ahp.md §9), decoded so they survive a
	// round trip; ahpls does not act on them.
	Origin       json.RawMessage      `json:"origin,omitempty"`
	Repositories json.RawMessage      `json:"repositories,omitempty"`
	Chats        []SessionChatSummary `json:"chats,omitzero"`
	DefaultChat  string               `json:"defaultChat,omitempty"`
}

// SessionChatSummary is one entry of the 1.x SessionSummary.chats.
type SessionChatSummary struct {
	Resource      string          `json:"resource"`
	Title         string          `json:"title"`
	Origin        json.RawMessage `json:"origin,omitempty"`
	Interactivity string          `json:"interactivity,omitempty"`
}

// PartialSessionSummary is root/sessionSummaryChanged.changes: every field
// optional, identity fields never present.
type PartialSessionSummary struct {
	Provider           *string         `json:"provider,omitempty"`
	Title              *string         `json:"title,omitempty"`
	Status             *SessionStatus  `json:"status,omitempty"`
	CreatedAt          *string         `json:"createdAt,omitempty"`
	ModifiedAt         *string         `json:"modifiedAt,omitempty"`
	Activity           *string         `json:"activity,omitempty"`
	Project            *ProjectInfo    `json:"project,omitempty"`
	WorkingDirectories []string        `json:"workingDirectories,omitzero"`
	WorkingDirectory   *string         `json:"workingDirectory,omitempty"`
	Annotations        json.RawMessage `json:"annotations,omitempty"`
	Changes            json.RawMessage `json:"changes,omitempty"`
	Meta               map[string]any  `json:"_meta,omitempty"`

	// 1.x additions (see SessionSummary).
	Origin       json.RawMessage      `json:"origin,omitempty"`
	Repositories json.RawMessage      `json:"repositories,omitempty"`
	Chats        []SessionChatSummary `json:"chats,omitzero"`
	DefaultChat  *string              `json:"defaultChat,omitempty"`
}

// SessionAddedParams is root/sessionAdded.
type SessionAddedParams struct {
	Channel string         `json:"channel"`
	Summary SessionSummary `json:"summary"`
}

// SessionRemovedParams is root/sessionRemoved.
type SessionRemovedParams struct {
	Channel string `json:"channel"`
	Session string `json:"session"`
}

// SessionSummaryChangedParams is root/sessionSummaryChanged.
type SessionSummaryChangedParams struct {
	Channel string                `json:"channel"`
	Session string                `json:"session"`
	Changes PartialSessionSummary `json:"changes"`
}

// Lifecycle is SessionState.lifecycle normalised by Dialect.Lifecycle.
type Lifecycle string

// Normalised lifecycle values; unknown spellings pass through unchanged.
const (
	LifecycleCreating Lifecycle = "creating"
	LifecycleReady    Lifecycle = "ready"
	// LifecycleFailed covers 0.x "creationFailed" and 1.x "failed".
	LifecycleFailed Lifecycle = "failed"
)

// ─── Tool calls (read views) ───────────────────────────────────────────────

// Tool-call statuses.
const (
	ToolStreaming                 = "streaming"
	ToolPendingConfirmation       = "pending-confirmation"
	ToolRunning                   = "running"
	ToolAuthRequired              = "auth-required"
	ToolPendingResultConfirmation = "pending-result-confirmation"
	ToolCompleted                 = "completed"
	ToolCancelled                 = "cancelled"
)

// ToolCallContributor says who executes a call: {kind:"client", clientId}
// or {kind:"mcp", customizationId}. Absent = a plain host tool.
type ToolCallContributor struct {
	Kind            string `json:"kind"`
	ClientID        string `json:"clientId,omitempty"`
	CustomizationID string `json:"customizationId,omitempty"`
}

// OwnedBy reports client ownership by clientID.
func (c *ToolCallContributor) OwnedBy(clientID string) bool {
	return c != nil && c.Kind == "client" && c.ClientID == clientID
}

// ToolInput is a call's input: raw JSON text inline, or a ContentRef to fetch
// with resourceRead. Both nil = absent (treat as {}).
type ToolInput struct {
	Inline *string
	Ref    *ContentRef
}

// MarshalJSON writes the string or the reference.
func (t ToolInput) MarshalJSON() ([]byte, error) {
	if t.Ref != nil {
		return json.Marshal(t.Ref)
	}
	if t.Inline != nil {
		return json.Marshal(*t.Inline)
	}
	return []byte("null"), nil
}

// UnmarshalJSON reads a string or a ContentRef object.
func (t *ToolInput) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*t = ToolInput{}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		t.Inline = &s
		return nil
	}
	var r ContentRef
	if err := json.Unmarshal(b, &r); err != nil {
		return err
	}
	if r.URI == "" {
		return errors.New("wire: toolInput object without uri")
	}
	t.Ref = &r
	return nil
}

// ToolCallState is the subset of a tool-call state ahpls reads to decide
// whether to run, deny or complete a call. It is a read view: re-encoding it
// drops fields ahpls does not need.
type ToolCallState struct {
	Status            string               `json:"status"`
	ToolCallID        string               `json:"toolCallId"`
	ToolName          string               `json:"toolName"`
	DisplayName       string               `json:"displayName"`
	Intention         string               `json:"intention,omitempty"`
	Contributor       *ToolCallContributor `json:"contributor,omitempty"`
	InvocationMessage *StringOrMarkdown    `json:"invocationMessage,omitempty"`
	ToolInput         *ToolInput           `json:"toolInput,omitempty"`
	Confirmed         string               `json:"confirmed,omitempty"`
	Content           []ToolResultContent  `json:"content,omitzero"`
	Meta              map[string]any       `json:"_meta,omitempty"`
}

// SessionInputRequest is one entry of SessionState.inputNeeded. ahpls acts
// on kind toolClientExecution (ClientID, TurnID, ToolCall); the other kinds'
// payloads are kept raw.
type SessionInputRequest struct {
	Kind     string          `json:"kind"`
	ID       string          `json:"id"`
	Chat     string          `json:"chat"`
	TurnID   string          `json:"turnId,omitempty"`
	ClientID string          `json:"clientId,omitempty"`
	ToolCall *ToolCallState  `json:"toolCall,omitempty"`
	Request  json.RawMessage `json:"request,omitempty"`
}

// Input-request kinds.
const (
	InputChat                = "chatInput"
	InputToolConfirmation    = "toolConfirmation"
	InputToolClientExecution = "toolClientExecution"
	InputToolAuthentication  = "toolAuthentication"
)

// ─── Tool results ──────────────────────────────────────────────────────────

// ToolResultContent is one result block. ahpls builds text blocks (Text);
// every other type is kept raw so streamed terminal/resource blocks survive a
// round trip.
type ToolResultContent struct {
	Type string
	Text string
	Raw  json.RawMessage
}

// TextContent builds a {type:"text"} block.
func TextContent(s string) ToolResultContent { return ToolResultContent{Type: "text", Text: s} }

// MarshalJSON writes Raw when decoded, else a text block.
func (c ToolResultContent) MarshalJSON() ([]byte, error) {
	if c.Raw != nil {
		return c.Raw, nil
	}
	return json.Marshal(struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{"text", c.Text})
}

// UnmarshalJSON keeps the raw block and reads type and text.
func (c *ToolResultContent) UnmarshalJSON(b []byte) error {
	var h struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return err
	}
	*c = ToolResultContent{Type: h.Type, Text: h.Text, Raw: append(json.RawMessage(nil), b...)}
	return nil
}

// ToolCallError is ToolCallResult.error (not an ErrorInfo).
type ToolCallError struct {
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
}

// ToolCallResult finishes a call. Put all output to keep in Content: partial
// content streamed earlier is dropped at completion.
type ToolCallResult struct {
	Success           bool                `json:"success"`
	PastTenseMessage  StringOrMarkdown    `json:"pastTenseMessage"`
	Content           []ToolResultContent `json:"content,omitzero"`
	StructuredContent map[string]any      `json:"structuredContent,omitempty"`
	Error             *ToolCallError      `json:"error,omitempty"`
}

// With returns the summary with a root/sessionSummaryChanged's changes
// applied: every field the changes carry replaces the summary's, the
// identity (resource) never changes.
func (s SessionSummary) With(c PartialSessionSummary) SessionSummary {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&s.Provider, c.Provider)
	set(&s.Title, c.Title)
	set(&s.CreatedAt, c.CreatedAt)
	set(&s.ModifiedAt, c.ModifiedAt)
	set(&s.Activity, c.Activity)
	set(&s.WorkingDirectory, c.WorkingDirectory)
	set(&s.DefaultChat, c.DefaultChat)
	if c.Status != nil {
		s.Status = *c.Status
	}
	if c.Project != nil {
		s.Project = c.Project
	}
	if c.WorkingDirectories != nil {
		s.WorkingDirectories = c.WorkingDirectories
	}
	if c.Annotations != nil {
		s.Annotations = c.Annotations
	}
	if c.Changes != nil {
		s.Changes = c.Changes
	}
	if c.Meta != nil {
		s.Meta = c.Meta
	}
	if c.Origin != nil {
		s.Origin = c.Origin
	}
	if c.Repositories != nil {
		s.Repositories = c.Repositories
	}
	if c.Chats != nil {
		s.Chats = c.Chats
	}
	return s
}
