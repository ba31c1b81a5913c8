package ahpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// The JSON-RPC engine is written here rather than carried by go.lsp.dev/jsonrpc2
// over a Stream adapter: AHP must survive garbage, binary and unknown frames
// without closing the socket, answer batches with -32600, run response hooks
// in wire order with the notifications around them (subscribe snapshots vs.
// buffered actions, reconnect replays), and expose every raw frame to a tap
// for schema validation. Bending a general engine to those rules would cost
// more code than the ~300 lines below.

// envelope is a decoded inbound frame. Presence matters (a `"result": null`
// is a result), so members are kept raw.
type envelope struct {
	ID        json.RawMessage // raw, echoed verbatim when answering a request
	HasID     bool
	Method    string
	Params    json.RawMessage
	Result    json.RawMessage
	HasResult bool
	Error     *RPCError
}

// errBatch marks a JSON array frame (AHP has no batches; answer -32600).
var errBatch = errors.New("jsonrpc: batch frames are not supported")

// decodeEnvelope parses one frame leniently: it accepts anything a conformant
// host sends and rejects only what cannot be routed.
func decodeEnvelope(data []byte) (*envelope, error) {
	t := bytes.TrimLeft(data, " \t\r\n")
	if len(t) > 0 && t[0] == '[' {
		return nil, errBatch
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("jsonrpc: parse: %w", err)
	}
	if m == nil {
		return nil, errors.New("jsonrpc: null message")
	}
	var v string
	if err := json.Unmarshal(m["jsonrpc"], &v); err != nil || v != "2.0" {
		return nil, errors.New(`jsonrpc: missing "jsonrpc":"2.0"`)
	}
	e := &envelope{}
	if id, ok := m["id"]; ok && string(bytes.TrimSpace(id)) != "null" {
		e.ID, e.HasID = id, true
	}
	if raw, ok := m["method"]; ok {
		if err := json.Unmarshal(raw, &e.Method); err != nil || e.Method == "" {
			return nil, errors.New("jsonrpc: method is not a non-empty string")
		}
	}
	e.Params = m["params"]
	e.Result, e.HasResult = m["result"]
	if raw, ok := m["error"]; ok {
		var re RPCError
		if err := json.Unmarshal(raw, &re); err != nil {
			return nil, fmt.Errorf("jsonrpc: bad error object: %w", err)
		}
		e.Error = &re
	}
	if e.Method == "" && !e.HasResult && e.Error == nil {
		return nil, errors.New("jsonrpc: neither a request, a notification nor a response")
	}
	if e.Method == "" && !e.HasID && e.Error == nil {
		return nil, errors.New("jsonrpc: response without id")
	}
	return e, nil
}

// responseID parses our own request ids (we only ever send integers).
func responseID(raw json.RawMessage) (int64, bool) {
	n, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	return n, err == nil
}

// FrameDirection says which way a traced frame went.
type FrameDirection int

const (
	// Sent frames went from this client to the host.
	Sent FrameDirection = iota
	// Received frames came from the host.
	Received
)

type call struct {
	method string
	done   chan struct{}
	result json.RawMessage
	err    error
	// hook runs on the read loop before the caller is woken, so state
	// derived from the result is in place before later frames are handled.
	hook func(result json.RawMessage, err error)
}

type rpcConn struct {
	ws      *websocket.Conn
	log     *slog.Logger
	trace   func(FrameDirection, []byte)
	writeMu sync.Mutex

	mu      sync.Mutex
	nextID  int64
	calls   map[int64]*call
	closed  bool
	doneErr error
	done    chan struct{}

	lastRecv time.Time // guarded by mu

	onNotify   func(method string, params json.RawMessage) // read loop
	onRequest  func(id json.RawMessage, method string, params json.RawMessage)
	onBadFrame func(err error)
}

const writeTimeout = 10 * time.Second

func newRPCConn(ws *websocket.Conn, log *slog.Logger, trace func(FrameDirection, []byte)) *rpcConn {
	return &rpcConn{ws: ws, log: log, trace: trace, calls: map[int64]*call{}, done: make(chan struct{}), lastRecv: time.Now()}
}

func (c *rpcConn) write(ctx context.Context, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("ahpclient: encode: %w", err)
	}
	select {
	case <-c.done:
		return ErrConnectionLost
	default:
	}
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if c.trace != nil {
		c.trace(Sent, b)
	}
	if err := c.ws.Write(ctx, websocket.MessageText, b); err != nil {
		return fmt.Errorf("%w: %v", ErrConnectionLost, err)
	}
	return nil
}

type wireRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

type wireNotification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

type wireResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// resultResponse always writes "result" (null included), which omitempty on
// an `any` field would drop.
type resultResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
}

// Call sends a request and waits for its answer (or ctx, or connection loss).
func (c *rpcConn) Call(ctx context.Context, method string, params any, hook func(json.RawMessage, error)) (json.RawMessage, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrConnectionLost
	}
	c.nextID++
	id := c.nextID
	cl := &call{method: method, done: make(chan struct{}), hook: hook}
	c.calls[id] = cl
	c.mu.Unlock()
	if err := c.write(ctx, wireRequest{"2.0", id, method, params}); err != nil {
		c.finish(id, nil, err)
		<-cl.done
		return nil, err
	}
	select {
	case <-cl.done:
		return cl.result, cl.err
	case <-ctx.Done():
		// The late answer, if any, is dropped by the read loop; its hook
		// still runs there so derived state stays consistent.
		return nil, ctx.Err()
	}
}

func (c *rpcConn) Notify(ctx context.Context, method string, params any) error {
	return c.write(ctx, wireNotification{"2.0", method, params})
}

// finish resolves a call once; unknown ids are ignored.
func (c *rpcConn) finish(id int64, result json.RawMessage, err error) bool {
	c.mu.Lock()
	cl, ok := c.calls[id]
	delete(c.calls, id)
	c.mu.Unlock()
	if !ok {
		return false
	}
	if cl.hook != nil {
		cl.hook(result, err)
	}
	cl.result, cl.err = result, err
	close(cl.done)
	return true
}

func (c *rpcConn) reply(id json.RawMessage, result any, rerr *RPCError) {
	var v any = resultResponse{"2.0", id, result}
	if rerr != nil {
		v = wireResponse{JSONRPC: "2.0", ID: id, Error: rerr}
	}
	if err := c.write(context.Background(), v); err != nil {
		c.log.Debug("ahp: reply not sent", "err", err)
	}
}

func (c *rpcConn) idle() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Since(c.lastRecv)
}

// readLoop handles frames in wire order until the socket fails; then every
// outstanding call fails with ErrConnectionLost.
func (c *rpcConn) readLoop(ctx context.Context) error {
	defer c.shutdown(ErrConnectionLost)
	for {
		typ, data, err := c.ws.Read(ctx)
		if err != nil {
			c.setErr(err)
			return err
		}
		c.mu.Lock()
		c.lastRecv = time.Now()
		c.mu.Unlock()
		if c.trace != nil {
			c.trace(Received, data)
		}
		if typ != websocket.MessageText {
			c.bad(fmt.Errorf("ignored a %v frame of %d bytes (AHP uses text frames)", typ, len(data)))
			continue
		}
		c.handle(data)
	}
}

func (c *rpcConn) bad(err error) {
	c.log.Warn("ahp: bad frame from host", "err", err)
	if c.onBadFrame != nil {
		c.onBadFrame(err)
	}
}

func (c *rpcConn) handle(data []byte) {
	defer func() {
		// A bug in a state hook must not take the connection down with
		// it; the frame is logged and dropped.
		if r := recover(); r != nil {
			c.bad(fmt.Errorf("panic handling frame: %v", r))
		}
	}()
	e, err := decodeEnvelope(data)
	if err != nil {
		c.bad(err)
		code := int64(CodeParseError)
		if errors.Is(err, errBatch) {
			code = CodeInvalidRequest
		}
		if json.Valid(data) && !errors.Is(err, errBatch) {
			code = CodeInvalidRequest
		}
		c.reply(json.RawMessage("null"), nil, &RPCError{Code: code, Message: err.Error()})
		return
	}
	switch {
	case e.Method != "" && e.HasID:
		if c.onRequest != nil {
			c.onRequest(e.ID, e.Method, e.Params)
		}
	case e.Method != "":
		if c.onNotify != nil {
			c.onNotify(e.Method, e.Params)
		}
	default:
		id, ok := responseID(e.ID)
		if !ok {
			c.bad(fmt.Errorf("response with a non-integer id %s", e.ID))
			return
		}
		var rerr error
		if e.Error != nil {
			rerr = e.Error
		}
		if !c.finish(id, e.Result, rerr) {
			c.bad(fmt.Errorf("response to unknown request id %d", id))
		}
	}
}

func (c *rpcConn) setErr(err error) {
	c.mu.Lock()
	if c.doneErr == nil {
		c.doneErr = err
	}
	c.mu.Unlock()
}

func (c *rpcConn) shutdown(err error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	close(c.done)
	calls := c.calls
	c.calls = map[int64]*call{}
	c.mu.Unlock()
	for _, cl := range calls {
		if cl.hook != nil {
			cl.hook(nil, err)
		}
		cl.err = err
		close(cl.done)
	}
}

// Close closes the socket; the read loop then fails outstanding calls.
func (c *rpcConn) Close(code websocket.StatusCode, reason string) {
	_ = c.ws.Close(code, reason)
}
