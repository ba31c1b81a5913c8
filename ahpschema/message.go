package ahpschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/ahpclient/wire"
)

// Direction says who sent a frame.
type Direction int

const (
	// ClientToHost frames are sent by the AHP client (ahpls).
	ClientToHost Direction = iota
	// HostToClient frames are sent by the agent host.
	HostToClient
)

func (d Direction) String() string {
	if d == HostToClient {
		return "host→client"
	}
	return "client→host"
}

func (d Direction) opposite() Direction { return 1 - d }

type def struct{ file, name string }

// The method tables come from package wire, the one place AHP method names
// are spelled (wire/methods.go).
var (
	// Requests a client may send (docs/ahp.md §1, §8.3): params are commands <M>Params.
	clientRequests = methodSet(wire.ClientRequests)
	// The resource* family and createResourceWatch go both ways (§6).
	resourceMethods     = methodSet(wire.ResourceMethods)
	clientNotifications = notificationDefs(wire.ClientNotifications)
	// hostNotifications is patch 5: one definition per method instead of
	// the undiscriminated ProtocolNotification union.
	hostNotifications = notificationDefs(wire.HostNotifications)
)

func methodSet(l []string) map[string]bool {
	m := make(map[string]bool, len(l))
	for _, s := range l {
		m[s] = true
	}
	return m
}

func notificationDefs(l []wire.Notification) map[string]def {
	m := make(map[string]def, len(l))
	for _, n := range l {
		m[n.Method] = def{n.SchemaFile, n.SchemaDef}
	}
	return m
}

// Error data definitions by code (§7).
var errorDataDefs = map[int64]def{
	-32005: {"errors", "UnsupportedProtocolVersionErrorData"},
	-32007: {"errors", "AuthRequiredErrorData"},
	-32009: {"errors", "PermissionDeniedErrorData"},
}

// Frame is a decoded JSON-RPC 2.0 envelope. Exactly one of the shapes holds:
// request (Method and ID), notification (Method, no ID), response (ID and
// Result or Error). NullID marks an error response with `"id": null`.
type Frame struct {
	ID     *int64
	NullID bool
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  *FrameError
}

// FrameError is a JSON-RPC error object.
type FrameError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// IsRequest, IsNotification and IsResponse classify the frame.
func (f *Frame) IsRequest() bool      { return f.Method != "" && f.ID != nil }
func (f *Frame) IsNotification() bool { return f.Method != "" && f.ID == nil }
func (f *Frame) IsResponse() bool     { return f.Method == "" }

// ParseFrame checks the JSON-RPC 2.0 envelope rules AHP relies on: a single
// object (no batches), "jsonrpc":"2.0", an integer id, no unknown members,
// and exactly one of the three message shapes. It does not look at params.
func ParseFrame(raw []byte) (*Frame, error) {
	trimmed := bytes.TrimLeft(raw, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return nil, errors.New("jsonrpc: batches are not supported")
	}
	var members map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&members); err != nil {
		return nil, fmt.Errorf("jsonrpc: not a JSON object: %w", err)
	}
	if dec.More() {
		return nil, errors.New("jsonrpc: trailing data after the message")
	}
	if members == nil {
		return nil, errors.New("jsonrpc: message is null")
	}
	f := &Frame{}
	var version string
	if err := json.Unmarshal(members["jsonrpc"], &version); err != nil || version != "2.0" {
		return nil, errors.New(`jsonrpc: "jsonrpc" must be "2.0"`)
	}
	for k := range members {
		switch k {
		case "jsonrpc", "id", "method", "params", "result", "error":
		default:
			return nil, fmt.Errorf("jsonrpc: unexpected member %q", k)
		}
	}
	if idRaw, ok := members["id"]; ok {
		if string(bytes.TrimSpace(idRaw)) == "null" {
			f.NullID = true
		} else {
			id, err := parseID(idRaw)
			if err != nil {
				return nil, err
			}
			f.ID = &id
		}
	}
	if m, ok := members["method"]; ok {
		if err := json.Unmarshal(m, &f.Method); err != nil || f.Method == "" {
			return nil, errors.New(`jsonrpc: "method" must be a non-empty string`)
		}
	}
	f.Params = members["params"]
	f.Result = members["result"]
	if e, ok := members["error"]; ok {
		var fe FrameError
		if err := strictErrorObject(e, &fe); err != nil {
			return nil, err
		}
		f.Error = &fe
	}
	_, hasResult := members["result"]
	switch {
	case f.Method != "":
		if hasResult || f.Error != nil {
			return nil, errors.New("jsonrpc: a request or notification carries result/error")
		}
		if f.NullID {
			return nil, errors.New("jsonrpc: request id must not be null")
		}
		if p := bytes.TrimSpace(f.Params); len(p) > 0 && p[0] != '{' {
			return nil, errors.New(`jsonrpc: "params" must be an object`)
		}
	default:
		if _, ok := members["params"]; ok {
			return nil, errors.New("jsonrpc: a response carries params")
		}
		if hasResult == (f.Error != nil) {
			return nil, errors.New("jsonrpc: a response needs exactly one of result and error")
		}
		if f.ID == nil && !(f.NullID && f.Error != nil) {
			return nil, errors.New("jsonrpc: a response needs an id (null only for errors)")
		}
	}
	return f, nil
}

func parseID(raw json.RawMessage) (int64, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return 0, errors.New(`jsonrpc: "id" must be an integer`)
	}
	var n json.Number
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&n); err != nil {
		return 0, errors.New(`jsonrpc: "id" must be an integer`)
	}
	id, err := n.Int64()
	if err != nil {
		return 0, errors.New(`jsonrpc: "id" must be an integer in int64 range`)
	}
	return id, nil
}

func strictErrorObject(raw json.RawMessage, fe *FrameError) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return errors.New(`jsonrpc: "error" must be an object`)
	}
	c, ok := m["code"]
	if !ok {
		return errors.New("jsonrpc: error without code")
	}
	code, err := parseID(c)
	if err != nil {
		return errors.New("jsonrpc: error code must be an integer")
	}
	fe.Code = code
	msg, ok := m["message"]
	if !ok || json.Unmarshal(msg, &fe.Message) != nil {
		return errors.New("jsonrpc: error message must be a string")
	}
	fe.Data = m["data"]
	return nil
}

// ValidateMessage checks one whole frame sent in direction dir: the envelope
// (ParseFrame), that the method may be sent that way, and the params against
// their definition (§8.3's table). For responses it checks the envelope and
// the error data of -32005/-32007/-32009; results need the request's method,
// which Pairing remembers.
func ValidateMessage(raw []byte, dir Direction) error {
	f, err := ParseFrame(raw)
	if err != nil {
		return err
	}
	return validateFrame(f, dir)
}

func validateFrame(f *Frame, dir Direction) error {
	switch {
	case f.IsRequest():
		legal := resourceMethods[f.Method] || (dir == ClientToHost && clientRequests[f.Method])
		if !legal {
			return fmt.Errorf("ahpschema: %s request %q is not part of AHP 0.8.0", dir, f.Method)
		}
		if f.Method == wire.MethodReconnect && wire.IsPerChannelReconnect(f.Params) {
			return validatePerChannelReconnect(f.Params)
		}
		return validateParams(f.Method, def{"commands", upperFirst(f.Method) + "Params"}, f.Params)
	case f.IsNotification():
		table := hostNotifications
		if dir == ClientToHost {
			table = clientNotifications
		}
		d, ok := table[f.Method]
		if !ok {
			return fmt.Errorf("ahpschema: %s notification %q is not part of AHP 0.8.0", dir, f.Method)
		}
		return validateParams(f.Method, d, f.Params)
	default:
		if f.Error != nil {
			if d, ok := errorDataDefs[f.Error.Code]; ok && len(f.Error.Data) > 0 {
				if err := Validate(d.file, d.name, f.Error.Data); err != nil {
					return fmt.Errorf("error %d data: %w", f.Error.Code, err)
				}
			}
		}
		return nil
	}
}

func validateParams(method string, d def, params json.RawMessage) error {
	if len(params) == 0 {
		return fmt.Errorf("ahpschema: %s: params missing (every AHP message carries a channel)", method)
	}
	if method == wire.MethodAction || method == wire.MethodDispatchAction {
		var err error
		if params, err = checkV11Action(method, params); err != nil {
			return err
		}
	}
	if err := Validate(d.file, d.name, params); err != nil {
		// An envelope failure inside `action` is better reported against the
		// action's own definition.
		if method == wire.MethodAction || method == wire.MethodDispatchAction {
			var p struct {
				Action json.RawMessage `json:"action"`
			}
			if json.Unmarshal(params, &p) == nil && len(p.Action) > 0 {
				if aerr := Validate("commands", "StateAction", p.Action); aerr != nil {
					return fmt.Errorf("%s: %w", method, aerr)
				}
			}
		}
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// ValidateResult checks the result of a request with the given method.
func ValidateResult(method string, result []byte) error {
	r := bytes.TrimSpace(result)
	switch method {
	case "ping":
		if string(r) != "null" {
			return errors.New("ahpschema: ping result must be null")
		}
		return nil
	case wire.MethodReconnect:
		var head struct {
			Type     string          `json:"type"`
			Channels json.RawMessage `json:"channels"`
		}
		if err := json.Unmarshal(r, &head); err != nil {
			return fmt.Errorf("ahpschema: reconnect result: %w", err)
		}
		if head.Channels != nil {
			return validatePerChannelRecoveries(head.Channels)
		}
		switch head.Type {
		case "replay":
			rr, err := replaceV11Actions(r)
			if err != nil {
				return fmt.Errorf("ahpschema: reconnect result: %w", err)
			}
			return Validate("commands", "ReconnectReplayResult", rr)
		case "snapshot":
			return Validate("commands", "ReconnectSnapshotResult", r)
		}
		return fmt.Errorf("ahpschema: reconnect result type %q is neither replay nor snapshot", head.Type)
	}
	name := upperFirst(method) + "Result"
	f, _ := file("commands")
	if f.parseErr != nil {
		return f.parseErr
	}
	if !f.defs[name] {
		// createSession, createChat, dispose* have no result definition;
		// their result carries nothing (null or an empty object).
		if string(r) == "null" || string(r) == "{}" {
			return nil
		}
		return fmt.Errorf("ahpschema: %s has no result definition; expected null, got %.80s", method, r)
	}
	return Validate("commands", name, r)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Pairing validates a conversation: every frame as ValidateMessage does, plus
// request/response pairing (each request answered exactly once, no answer to
// an id never asked) and results checked against the request's method. Use
// one Pairing per connection. It is safe for concurrent use.
type Pairing struct {
	mu      sync.Mutex
	pending map[pairKey]string
}

type pairKey struct {
	from Direction
	id   int64
}

// NewPairing returns an empty Pairing.
func NewPairing() *Pairing { return &Pairing{pending: map[pairKey]string{}} }

// Check validates raw as sent in direction dir and updates the pairing.
func (p *Pairing) Check(raw []byte, dir Direction) error {
	f, err := ParseFrame(raw)
	if err != nil {
		return err
	}
	if err := validateFrame(f, dir); err != nil {
		return err
	}
	switch {
	case f.IsRequest():
		k := pairKey{dir, *f.ID}
		p.mu.Lock()
		defer p.mu.Unlock()
		if m, dup := p.pending[k]; dup {
			return fmt.Errorf("ahpschema: %s request id %d reused while %q is unanswered", dir, *f.ID, m)
		}
		p.pending[k] = f.Method
	case f.IsResponse():
		if f.ID == nil {
			return nil // null-id error: answers a frame that had no usable id
		}
		k := pairKey{dir.opposite(), *f.ID}
		p.mu.Lock()
		m, ok := p.pending[k]
		delete(p.pending, k)
		p.mu.Unlock()
		if !ok {
			return fmt.Errorf("ahpschema: %s response to id %d, which has no unanswered request", dir, *f.ID)
		}
		if f.Error == nil {
			if err := ValidateResult(m, f.Result); err != nil {
				return fmt.Errorf("%s result: %w", m, err)
			}
		}
	}
	return nil
}

// Expect records a request sent in direction from without validating it
// (a deliberately malformed or unknown request in a fault-injection test),
// so its answer is paired like any other.
func (p *Pairing) Expect(from Direction, id int64, method string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pending[pairKey{from, id}] = method
}

// Outstanding lists the methods of requests sent in direction from that have
// not been answered yet.
func (p *Pairing) Outstanding(from Direction) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for k, m := range p.pending {
		if k.from == from {
			out = append(out, m)
		}
	}
	return out
}

// The per-channel reconnect (AHP 1.1, the 2026-10-02 change note) is not in
// the 0.8.0 schema files this package embeds, so its two shapes are checked
// here by code; the parts they carry (action envelopes, snapshots) still go
// through the schema.

// validatePerChannelReconnect checks per-channel reconnect params: channel
// and clientId strings, subscriptions a list of {channel, lastSeenServerSeq
// (integer ≥ 0)}.
func validatePerChannelReconnect(params json.RawMessage) error {
	var p struct {
		Channel       *string `json:"channel"`
		ClientID      *string `json:"clientId"`
		Subscriptions []struct {
			Channel *string      `json:"channel"`
			Last    *json.Number `json:"lastSeenServerSeq"`
		} `json:"subscriptions"`
	}
	d := json.NewDecoder(bytes.NewReader(params))
	d.UseNumber()
	if err := d.Decode(&p); err != nil {
		return fmt.Errorf("reconnect: %w", err)
	}
	if p.Channel == nil || p.ClientID == nil || p.Subscriptions == nil {
		return errors.New("reconnect: channel, clientId and subscriptions are required")
	}
	for i, s := range p.Subscriptions {
		if s.Channel == nil || *s.Channel == "" {
			return fmt.Errorf("reconnect: subscriptions[%d].channel is required", i)
		}
		if s.Last == nil {
			return fmt.Errorf("reconnect: subscriptions[%d].lastSeenServerSeq is required", i)
		}
		if n, err := s.Last.Int64(); err != nil || n < 0 {
			return fmt.Errorf("reconnect: subscriptions[%d].lastSeenServerSeq must be an integer ≥ 0", i)
		}
	}
	return nil
}

// validatePerChannelRecoveries checks a per-channel reconnect result: each
// entry names its channel and a kind; replay carries ActionEnvelopes of that
// channel, snapshot a Snapshot of it. Unknown kinds are legal (open enum).
func validatePerChannelRecoveries(raw json.RawMessage) error {
	var list []struct {
		Kind     string            `json:"kind"`
		Channel  string            `json:"channel"`
		Actions  []json.RawMessage `json:"actions"`
		Snapshot json.RawMessage   `json:"snapshot"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return fmt.Errorf("ahpschema: reconnect result channels: %w", err)
	}
	for i, r := range list {
		if r.Kind == "" || r.Channel == "" {
			return fmt.Errorf("ahpschema: reconnect result channels[%d]: kind and channel are required", i)
		}
		switch r.Kind {
		case "replay":
			if r.Actions == nil {
				return fmt.Errorf("ahpschema: reconnect result channels[%d]: replay without actions", i)
			}
			for j, a := range r.Actions {
				if err := validateEnvelope(a); err != nil {
					return fmt.Errorf("ahpschema: reconnect result channels[%d].actions[%d]: %w", i, j, err)
				}
				var env struct {
					Channel string `json:"channel"`
				}
				if json.Unmarshal(a, &env) == nil && env.Channel != r.Channel {
					return fmt.Errorf("ahpschema: reconnect result channels[%d].actions[%d] is for %q", i, j, env.Channel)
				}
			}
		case "snapshot":
			if len(r.Snapshot) == 0 {
				return fmt.Errorf("ahpschema: reconnect result channels[%d]: snapshot without snapshot", i)
			}
			// By code: the state may be of a channel kind newer than the
			// embedded schema (canvases at 0.10, tcp at 1.1).
			var sn struct {
				Resource string          `json:"resource"`
				State    json.RawMessage `json:"state"`
				FromSeq  *json.Number    `json:"fromSeq"`
			}
			if err := json.Unmarshal(r.Snapshot, &sn); err != nil {
				return fmt.Errorf("ahpschema: reconnect result channels[%d].snapshot: %w", i, err)
			}
			st := bytes.TrimSpace(sn.State)
			if sn.Resource != r.Channel || sn.FromSeq == nil || len(st) == 0 || st[0] != '{' {
				return fmt.Errorf("ahpschema: reconnect result channels[%d].snapshot needs resource %q, an object state and fromSeq", i, r.Channel)
			}
		}
	}
	return nil
}

// checkV11Action checks a 1.1 action the embedded 0.8.0 schema does not
// define (chat/toolCallProgress) by code, and returns the params with the
// action replaced by a placeholder the schema knows, so the envelope around
// it is still validated. Other params come back unchanged.
func checkV11Action(method string, params json.RawMessage) (json.RawMessage, error) {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return params, nil // the schema reports it
	}
	var a struct {
		Type       string       `json:"type"`
		TurnID     *string      `json:"turnId"`
		ToolCallID *string      `json:"toolCallId"`
		ElapsedMs  *json.Number `json:"elapsedMs"`
		Step       *string      `json:"step"`
	}
	if json.Unmarshal(p["action"], &a) != nil || a.Type != wire.TypeToolCallProgress {
		return params, nil
	}
	if a.TurnID == nil || a.ToolCallID == nil || a.ElapsedMs == nil {
		return nil, fmt.Errorf("%s: %s needs turnId, toolCallId and elapsedMs", method, a.Type)
	}
	if n, err := a.ElapsedMs.Int64(); err != nil || n < 0 {
		return nil, fmt.Errorf("%s: %s elapsedMs must be an integer ≥ 0", method, a.Type)
	}
	p["action"] = json.RawMessage(`{"type":"chat/toolCallContentChanged","turnId":"t","toolCallId":"c","content":[]}`)
	out, err := json.Marshal(p)
	if err != nil {
		return params, nil
	}
	return out, nil
}

// validateEnvelope checks one replayed ActionEnvelope the way the same action
// is checked when sent live: a 1.1 action the embedded schema does not define
// is checked by code (checkV11Action), the envelope around it by the schema.
// Without this a replay answer failed whenever it held a progress report.
func validateEnvelope(raw json.RawMessage) error {
	env, err := checkV11Action("envelope", raw)
	if err != nil {
		return err
	}
	return Validate("commands", "ActionEnvelope", env)
}

// replaceV11Actions returns a legacy replay result with every 1.1 action in
// its actions list checked by code and replaced by a placeholder the schema
// knows (as checkV11Action does for one envelope), so the rest of the result
// is still checked against ReconnectReplayResult.
func replaceV11Actions(result []byte) ([]byte, error) {
	var m map[string]json.RawMessage
	if json.Unmarshal(result, &m) != nil {
		return result, nil // the schema reports it
	}
	var actions []json.RawMessage
	if json.Unmarshal(m["actions"], &actions) != nil {
		return result, nil
	}
	changed := false
	for i, a := range actions {
		b, err := checkV11Action("replay", a)
		if err != nil {
			return nil, fmt.Errorf("actions[%d]: %w", i, err)
		}
		if !bytes.Equal(b, a) {
			actions[i], changed = b, true
		}
	}
	if !changed {
		return result, nil
	}
	b, err := json.Marshal(actions)
	if err != nil {
		return result, nil
	}
	m["actions"] = b
	out, err := json.Marshal(m)
	if err != nil {
		return result, nil
	}
	return out, nil
}
