package ahpclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ahpls-dev/ahpls/ahpclient/wire"
)

// AHP and JSON-RPC error codes (docs/ahp.md §7).
const (
	CodeParseError                 = -32700
	CodeInvalidRequest             = -32600
	CodeMethodNotFound             = -32601
	CodeInvalidParams              = -32602
	CodeInternalError              = -32603
	CodeSessionNotFound            = -32001
	CodeProviderNotFound           = -32002
	CodeSessionAlreadyExists       = -32003
	CodeTurnInProgress             = -32004
	CodeUnsupportedProtocolVersion = -32005
	CodeAuthRequired               = -32007
	CodeNotFound                   = -32008
	CodePermissionDenied           = -32009
	CodeAlreadyExists              = -32010
	CodeConflict                   = -32011
)

// RPCError is a JSON-RPC error object, received from the host or returned by a
// reverse-request Handler to be sent to it. Any integer code is accepted.
type RPCError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	if len(e.Data) > 0 {
		return fmt.Sprintf("ahp error %d: %s (data %s)", e.Code, e.Message, e.Data)
	}
	return fmt.Sprintf("ahp error %d: %s", e.Code, e.Message)
}

// NewError builds an RPCError; data (optional) is marshalled to JSON.
func NewError(code int64, message string, data any) *RPCError {
	e := &RPCError{Code: code, Message: message}
	if data != nil {
		if b, err := json.Marshal(data); err == nil {
			e.Data = b
		}
	}
	return e
}

// UnsupportedVersionError reports a handshake that cannot succeed with the
// offered protocol versions: the host refused every one (-32005), or it
// accepted initialize but chose a version ahpls does not speak (Chosen is
// set). It is fatal: Run returns it and does not reconnect, since the same
// offer would be refused the same way. Its Error() is the message for the
// user (which versions the host supports, what ahpls offered, and which side
// to upgrade when that is clear), built by package wire.
// errors.Is(err, wire.ErrUnsupportedVersion) holds.
type UnsupportedVersionError struct {
	Offered   []string
	Supported []string // from error data; may be empty (the data is optional before 1.x)
	Message   string   // the host's error message ("" when the host chose a version)
	// Chosen is the version a host picked although ahpls does not speak it
	// ("" for a -32005 refusal).
	Chosen string

	chose bool // the host answered initialize with a version (maybe "") we cannot speak
}

func (e *UnsupportedVersionError) Error() string {
	if e.Chosen != "" || e.chose {
		what := fmt.Sprintf("the agent host chose protocol %s, which ahpls does not speak", e.Chosen)
		if e.Chosen == "" {
			what = "the agent host accepted initialize without naming a protocol version"
		}
		return what + "; ahpls offered " + strings.Join(e.Offered, ", ")
	}
	return wire.DescribeVersionRefusal(e.Supported, e.Offered)
}

// Unwrap makes errors.Is(err, wire.ErrUnsupportedVersion) true.
func (e *UnsupportedVersionError) Unwrap() error { return wire.ErrUnsupportedVersion }

// newRefusal builds the error for a -32005 answer to initialize.
func newRefusal(offered []string, re *RPCError) *UnsupportedVersionError {
	return &UnsupportedVersionError{
		Offered:   append([]string(nil), offered...),
		Supported: wire.SupportedVersionsFromData(re.Data),
		Message:   re.Message,
	}
}

// InitializeError is any other refusal of initialize; it is fatal too, since
// retrying the same handshake would be refused the same way.
type InitializeError struct{ Err *RPCError }

func (e *InitializeError) Error() string { return "ahp initialize refused: " + e.Err.Error() }
func (e *InitializeError) Unwrap() error { return e.Err }

// Sentinel errors.
var (
	// ErrNotConnected: a request or dispatch was attempted while no session
	// with the host is established. Dispatches are not queued across outages.
	ErrNotConnected = errors.New("ahpclient: not connected")
	// ErrConnectionLost: the socket closed before the answer or echo arrived.
	ErrConnectionLost = errors.New("ahpclient: connection lost")
	// ErrActionTimeout: a dispatched action was never echoed within PendingTimeout.
	ErrActionTimeout = errors.New("ahpclient: action was not echoed in time")
	// ErrClosed: the client was closed.
	ErrClosed = errors.New("ahpclient: closed")
	// ErrReadOnly: the host's _meta gives this client a read-only role, so
	// it neither publishes an active-client entry nor toggles anything.
	ErrReadOnly = errors.New("ahpclient: the agent host made this client read-only")
)

// RejectedError is the outcome of a dispatched action the host echoed with a
// rejectionReason; the optimistic change has been rolled back.
type RejectedError struct {
	Channel   string
	ClientSeq int64
	Reason    string
}

func (e *RejectedError) Error() string {
	return fmt.Sprintf("ahp host rejected action %d on %s: %s", e.ClientSeq, e.Channel, e.Reason)
}
