package wire

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Message is one JSON-RPC 2.0 frame. ids are JSON numbers (int64); Params,
// Result and error Data stay raw for the caller to decode by method. A
// `result: null` (ping) is kept as the raw text null, so it re-encodes.
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      *int64          `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// RPCError is a JSON-RPC error object; any integer code is accepted.
type RPCError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return e.Message }

// MessageKind classifies a frame (docs/ahp.md §1).
type MessageKind int

// Frame kinds.
const (
	KindInvalid MessageKind = iota
	KindRequest
	KindNotification
	KindResponse
)

// Kind tells a request (method+id), notification (method, no id) and
// response (id + result or error) apart.
func (m Message) Kind() MessageKind {
	switch {
	case m.Method != "" && m.ID != nil:
		return KindRequest
	case m.Method != "":
		return KindNotification
	case m.ID != nil && (m.Result != nil || m.Error != nil):
		return KindResponse
	}
	return KindInvalid
}

// DecodeMessage parses one frame; arrays (batches) and non-2.0 frames are
// rejected so the caller can answer -32600.
func DecodeMessage(b []byte) (Message, error) {
	t := bytes.TrimSpace(b)
	if len(t) == 0 || t[0] != '{' {
		return Message{}, errors.New("wire: frame is not a JSON object")
	}
	var m Message
	if err := json.Unmarshal(t, &m); err != nil {
		return Message{}, err
	}
	if m.JSONRPC != "2.0" {
		return Message{}, errors.New(`wire: jsonrpc is not "2.0"`)
	}
	return m, nil
}

// Snapshot is a subscribed channel's state at fromSeq; State stays raw (the
// mirror decodes it generically).
type Snapshot struct {
	Resource string          `json:"resource"`
	State    json.RawMessage `json:"state"`
	FromSeq  int64           `json:"fromSeq"`
}

// InitializeResult is the host's answer to initialize. ProtocolVersion
// selects the Dialect (DialectFor).
type InitializeResult struct {
	ProtocolVersion             string          `json:"protocolVersion"`
	ServerSeq                   int64           `json:"serverSeq"`
	ServerInfo                  *Implementation `json:"serverInfo,omitempty"`
	Snapshots                   []Snapshot      `json:"snapshots"`
	DefaultDirectory            string          `json:"defaultDirectory,omitempty"`
	CompletionTriggerCharacters []string        `json:"completionTriggerCharacters,omitzero"`
	TerminalCommandPrefix       string          `json:"terminalCommandPrefix,omitempty"`
	Telemetry                   json.RawMessage `json:"telemetry,omitempty"`

	// 1.x additions (verified, docs/ahp.md §9); kept, not interpreted.
	Meta           map[string]any  `json:"_meta,omitempty"`
	Automations    json.RawMessage `json:"automations,omitempty"`
	TCPConnections json.RawMessage `json:"tcpConnections,omitempty"`
}

// MarshalJSON always writes snapshots as an array: it is required.
func (r InitializeResult) MarshalJSON() ([]byte, error) {
	type plain InitializeResult
	p := plain(r)
	if p.Snapshots == nil {
		p.Snapshots = []Snapshot{}
	}
	return json.Marshal(p)
}

// UnsupportedProtocolVersionData is the data of a -32005 error.
type UnsupportedProtocolVersionData struct {
	SupportedVersions []string `json:"supportedVersions,omitzero"`
}
