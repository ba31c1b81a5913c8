package ahpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	// limit, when positive, bounds the answer's frame: a longer one is
	// read past (never buffered whole) and the call fails with
	// *TooLargeError. Known only when the frame names its id before its
	// result (readHead); otherwise the caller checks after decoding.
	limit int64
}

type rpcConn struct {
	ws      *websocket.Conn
	log     *slog.Logger
	trace   func(FrameDirection, []byte)
	writeMu sync.Mutex
	// budget bounds the bytes of frames waiting for or in a write: a host
	// that stops reading makes writers wait for room, and one that never
	// makes room within writeTimeout loses the connection (the client
	// reconnects) instead of growing the queue (issue 16).
	budget       *byteBudget
	writeTimeout time.Duration

	// ctx is the connection's context, derived from Run's: every goroutine
	// working for this connection (keepalive, subscribes, host requests,
	// replies) derives from it, and it ends when the read loop does.
	ctx    context.Context
	cancel context.CancelFunc

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

// DefaultWriteBudget is the default Options.WriteBudget (16 MiB).
const DefaultWriteBudget = 16 << 20

func newRPCConn(parent context.Context, ws *websocket.Conn, log *slog.Logger, trace func(FrameDirection, []byte), budget int64) *rpcConn {
	if budget <= 0 {
		budget = DefaultWriteBudget
	}
	ctx, cancel := context.WithCancel(parent)
	return &rpcConn{ws: ws, log: log, trace: trace, budget: newByteBudget(budget), writeTimeout: writeTimeout, calls: map[int64]*call{}, done: make(chan struct{}), lastRecv: time.Now(), ctx: ctx, cancel: cancel}
}

func (c *rpcConn) write(ctx context.Context, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("ahpclient: encode: %w", err)
	}
	return c.send(ctx, b)
}

// send writes one encoded frame under the write budget.
func (c *rpcConn) send(ctx context.Context, b []byte) error {
	select {
	case <-c.done:
		return ErrConnectionLost
	default:
	}
	wctx, cancel := context.WithTimeout(ctx, c.writeTimeout)
	defer cancel()
	n, err := c.budget.acquire(wctx, int64(len(b)))
	if err != nil {
		if ctx.Err() == nil {
			// No room for the write timeout: the host stopped reading.
			// Dropping the socket frees everything queued for it; Run
			// reconnects.
			c.log.Warn("ahp: host is not reading; dropping the connection", "queuedBytes", c.budget.inUse(), "frame", len(b))
			c.ws.CloseNow()
			return fmt.Errorf("%w: write budget exhausted", ErrConnectionLost)
		}
		return ctx.Err()
	}
	defer c.budget.release(n)
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if c.trace != nil {
		c.trace(Sent, b)
	}
	if err := c.ws.Write(wctx, websocket.MessageText, b); err != nil {
		c.ws.CloseNow()
		return fmt.Errorf("%w: %v", ErrConnectionLost, err)
	}
	return nil
}

// byteBudget is a weighted semaphore over bytes. A frame larger than the
// whole budget takes all of it (it is written alone).
type byteBudget struct {
	mu    sync.Mutex
	used  int64
	peak  int64
	limit int64
	wake  chan struct{}
}

func newByteBudget(limit int64) *byteBudget {
	return &byteBudget{limit: limit, wake: make(chan struct{})}
}

func (b *byteBudget) acquire(ctx context.Context, n int64) (int64, error) {
	if n > b.limit {
		n = b.limit
	}
	for {
		b.mu.Lock()
		if b.used+n <= b.limit {
			b.used += n
			b.peak = max(b.peak, b.used)
			b.mu.Unlock()
			return n, nil
		}
		w := b.wake
		b.mu.Unlock()
		select {
		case <-w:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

func (b *byteBudget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	close(b.wake)
	b.wake = make(chan struct{})
	b.mu.Unlock()
}

func (b *byteBudget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// highWater is the most bytes ever held at once.
func (b *byteBudget) highWater() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.peak
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
	return c.call(ctx, method, params, hook, 0)
}

// CallLimited is Call with the answer's frame bounded to limit bytes.
func (c *rpcConn) CallLimited(ctx context.Context, method string, params any, limit int64) (json.RawMessage, error) {
	return c.call(ctx, method, params, nil, limit)
}

func (c *rpcConn) call(ctx context.Context, method string, params any, hook func(json.RawMessage, error), limit int64) (json.RawMessage, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrConnectionLost
	}
	c.nextID++
	id := c.nextID
	cl := &call{method: method, done: make(chan struct{}), hook: hook, limit: limit}
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
	var err error
	if raw, ok := result.(json.RawMessage); ok && rerr == nil && len(raw) > 0 && json.Valid(id) {
		// A pre-encoded result (a cached file read) is framed as is: one
		// copy, no second encoding pass over megabytes.
		b := make([]byte, 0, len(raw)+len(id)+40)
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		b = append(b, id...)
		b = append(b, `,"result":`...)
		b = append(b, raw...)
		b = append(b, '}')
		err = c.send(c.ctx, b)
	} else {
		var v any = resultResponse{"2.0", id, result}
		if rerr != nil {
			v = wireResponse{JSONRPC: "2.0", ID: id, Error: rerr}
		}
		err = c.write(c.ctx, v)
	}
	if err != nil {
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
		typ, data, err := c.readFrame(ctx)
		if err != nil {
			c.setErr(err)
			return err
		}
		if data == nil {
			continue // an answer over its call's limit, read past
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
	c.cancel()
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

// headSize is how much of a frame is read before deciding whether it
// answers a call with a size limit.
const headSize = 256

// readFrame reads one frame whole (within the socket's read limit) but for
// the inline tool inputs over MaxToolInput it carries (inputFilter), except
// an answer to a call with a limit that is longer than it: that one is read
// past without being kept, its call fails with *TooLargeError, and data is
// nil. A referenced tool input of 57 MB then costs a small buffer, not 57
// MB plus its decoded copy (issue 28).
func (c *rpcConn) readFrame(ctx context.Context) (websocket.MessageType, []byte, error) {
	typ, r, err := c.ws.Reader(ctx)
	if err != nil {
		return typ, nil, err
	}
	head := make([]byte, headSize)
	n, err := io.ReadFull(r, head)
	head = head[:n]
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return typ, head, nil
	}
	if err != nil {
		return typ, nil, err
	}
	if id, ok := leadingID(head); ok {
		c.mu.Lock()
		cl := c.calls[id]
		c.mu.Unlock()
		if cl != nil && cl.limit > 0 {
			rest, err := io.ReadAll(io.LimitReader(r, cl.limit-int64(n)+1))
			if err != nil {
				return typ, nil, err
			}
			if int64(n+len(rest)) <= cl.limit {
				return typ, append(head, rest...), nil
			}
			skipped, err := io.Copy(io.Discard, r)
			if err != nil {
				return typ, nil, err
			}
			c.finish(id, nil, &TooLargeError{Method: cl.method, Limit: cl.limit, Size: int64(n+len(rest)) + skipped})
			return typ, nil, nil
		}
	}
	// Any other frame: an inline tool input over MaxToolInput is let go
	// as it arrives (inputFilter), never read whole and then refused.
	data, err := readFiltered(head, r)
	if err != nil {
		return typ, nil, err
	}
	return typ, data, nil
}

// leadingID reads the id of a frame that starts {"jsonrpc":"2.0","id":N
// or {"id":N (how hosts, this one's test host included, write answers).
func leadingID(head []byte) (int64, bool) {
	d := json.NewDecoder(bytes.NewReader(head))
	d.UseNumber()
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return 0, false
	}
	for i := 0; i < 2; i++ {
		k, err := d.Token()
		if err != nil {
			return 0, false
		}
		v, err := d.Token()
		if err != nil {
			return 0, false
		}
		switch k {
		case "jsonrpc":
			continue
		case "id":
			n, ok := v.(json.Number)
			if !ok {
				return 0, false
			}
			id, err := n.Int64()
			if len(bytes.TrimSpace(head[d.InputOffset():])) == 0 {
				return 0, false // the number may go on past the head
			}
			return id, err == nil
		}
		return 0, false
	}
	return 0, false
}

// TooLargeError is the failure of a call whose answer was longer than the
// caller allows (ResourceReadLimited).
type TooLargeError struct {
	Method      string
	Limit, Size int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s answer of %d bytes is over the %d allowed", e.Method, e.Size, e.Limit)
}
