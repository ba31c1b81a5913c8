package mcpserver

// The stdio transport. The SDK's IOTransport ends the session on the
// first line it cannot decode (a parse error, "jsonrpc":"1.0", an object
// id, `[]`, a frame over its limit), without a reply (issue 39). This one
// reads newline-delimited JSON-RPC itself: a malformed line gets a
// JSON-RPC error reply (-32700 parse error, -32600 invalid request) and
// the session goes on; a line over MaxFrame is read past as it arrives,
// never held whole, and answered the same way.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxFrame bounds one inbound message: tool arguments are paths and
// ids, a few KiB; 4 MiB leaves room and keeps what a client can make the
// server hold small.
const DefaultMaxFrame = 4 << 20

// maxNesting bounds how deep a message's JSON may nest; an MCP message
// nests a handful of levels.
const maxNesting = 128

// Transport is MCP over newline-delimited JSON-RPC on a reader and a
// writer (stdin and stdout) that survives bad input.
type Transport struct {
	Reader io.Reader
	Writer io.Writer
	// MaxFrame bounds one inbound line in bytes; 0 means DefaultMaxFrame.
	MaxFrame int
	// Warn hears of every malformed line (nil: dropped); stdout is the
	// channel, so cmd/ahpls-mcp writes these to stderr.
	Warn func(string)
}

// Connect implements mcp.Transport.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	limit := t.MaxFrame
	if limit <= 0 {
		limit = DefaultMaxFrame
	}
	c := &conn{
		lines:  &lineReader{r: bufio.NewReaderSize(t.Reader, 64<<10), max: limit},
		w:      t.Writer,
		warn:   t.Warn,
		in:     make(chan inbound),
		closed: make(chan struct{}),
		closer: []any{t.Reader, t.Writer},
	}
	go c.readLoop()
	return c, nil
}

// inbound is one well-formed message, or the error that ended the input.
type inbound struct {
	msg jsonrpc.Message
	err error
}

type conn struct {
	lines *lineReader
	wmu   sync.Mutex
	w     io.Writer
	warn  func(string)

	in        chan inbound
	closeOnce sync.Once
	closed    chan struct{}
	closer    []any
}

// readLoop reads lines until the input ends, answering malformed ones
// itself and handing the rest to Read. It runs in its own goroutine so
// that Close unblocks Read (a read of stdin cannot be interrupted).
func (c *conn) readLoop() {
	for {
		line, err := c.lines.next()
		var msg jsonrpc.Message
		switch {
		case errors.Is(err, errFrameTooLarge):
			c.refuse(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message of %d bytes or more is over the %d allowed; skipped", c.lines.skipped, c.lines.max))
			continue
		case err != nil && len(line) == 0:
			select {
			case c.in <- inbound{err: err}:
			case <-c.closed:
			}
			return
		}
		if len(bytes.TrimSpace(line)) > 0 {
			msg = c.decode(line)
		}
		if msg != nil {
			select {
			case c.in <- inbound{msg: msg}:
			case <-c.closed:
				return
			}
		}
		if err != nil { // the last line had no newline
			select {
			case c.in <- inbound{err: err}:
			case <-c.closed:
			}
			return
		}
	}
}

// decode checks one line as a JSON-RPC 2.0 message; a malformed one is
// answered here and nil is returned.
func (c *conn) decode(line []byte) jsonrpc.Message {
	if !json.Valid(line) {
		c.refuse(nil, jsonrpc.CodeParseError, "parse error: the line is not JSON")
		return nil
	}
	if nestingOver(line, maxNesting) {
		c.refuse(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: JSON nested deeper than %d levels", maxNesting))
		return nil
	}
	first := bytes.TrimSpace(line)[0]
	if first == '[' {
		// JSON-RPC batches are gone from MCP since 2025-06-18; an empty
		// one was never valid.
		c.refuse(nil, jsonrpc.CodeInvalidRequest, "invalid request: batches (JSON arrays) are not supported; send one message per line")
		return nil
	}
	if first != '{' {
		c.refuse(nil, jsonrpc.CodeInvalidRequest, "invalid request: a message is a JSON object")
		return nil
	}
	var env struct {
		JSONRPC *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(line, &env); err != nil {
		c.refuse(nil, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		return nil
	}
	id := validID(env.ID)
	if env.ID != nil && id == nil {
		c.refuse(nil, jsonrpc.CodeInvalidRequest, "invalid request: an id is a string or a number")
		return nil
	}
	if env.JSONRPC == nil || *env.JSONRPC != "2.0" {
		c.refuse(id, jsonrpc.CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		c.refuse(id, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		return nil
	}
	return msg
}

// validID is raw when it is a JSON string or number, else nil (absent,
// null, an object, an array, a boolean).
func validID(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	switch c := raw[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return raw
	}
	return nil
}

// nestingOver reports whether valid JSON nests deeper than max arrays and
// objects (counted outside strings).
func nestingOver(b []byte, max int) bool {
	depth, inStr, esc := 0, false, false
	for _, ch := range b {
		switch {
		case inStr && esc:
			esc = false
		case inStr && ch == '\\':
			esc = true
		case inStr && ch == '"':
			inStr = false
		case inStr:
		case ch == '"':
			inStr = true
		case ch == '{' || ch == '[':
			if depth++; depth > max {
				return true
			}
		case ch == '}' || ch == ']':
			depth--
		}
	}
	return false
}

// refuse writes a JSON-RPC error reply: with the message's id when it
// had a valid one, else with "id": null (JSON-RPC 2.0 §5: the id could
// not be read).
func (c *conn) refuse(id json.RawMessage, code int64, msg string) {
	if c.warn != nil {
		c.warn(fmt.Sprintf("ahpls mcp: bad message from the client (%d): %s", code, msg))
	}
	if id == nil {
		id = json.RawMessage("null")
	}
	type rpcErr struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcErr          `json:"error"`
	}{"2.0", id, rpcErr{code, msg}})
	if err != nil {
		return
	}
	c.writeLine(b)
}

// Read implements mcp.Connection.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case v := <-c.in:
		return v.msg, v.err
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write implements mcp.Connection.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	return c.writeLine(b)
}

func (c *conn) writeLine(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(append(b, '\n'))
	return err
}

// Close implements mcp.Connection.
func (c *conn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.closed)
		for _, x := range c.closer {
			if cl, ok := x.(io.Closer); ok {
				err = errors.Join(err, cl.Close())
			}
		}
	})
	return err
}

// SessionID implements mcp.Connection: stdio has one session.
func (c *conn) SessionID() string { return "" }

// errFrameTooLarge: a line was longer than the limit and was read past.
var errFrameTooLarge = errors.New("message over the size limit")

// lineReader reads newline-delimited frames of at most max bytes. A longer
// one is discarded chunk by chunk as it arrives (its size goes in skipped)
// and next reports errFrameTooLarge: memory stays at the read buffer and
// at most one frame of max bytes, whatever the client sends.
type lineReader struct {
	r       *bufio.Reader
	max     int
	skipped int64
}

// next returns the next line without its newline. At the end of input it
// returns the last unterminated line, if any, with io.EOF.
func (l *lineReader) next() ([]byte, error) {
	var line []byte
	over := false
	l.skipped = 0
	for {
		chunk, err := l.r.ReadSlice('\n')
		switch {
		case over:
			l.skipped += int64(len(chunk))
		case len(line)+len(chunk) > l.max+1: // +1: the newline
			over = true
			l.skipped = int64(len(line) + len(chunk))
			line = nil
		default:
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if over {
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			return nil, errFrameTooLarge
		}
		return bytes.TrimSuffix(line, []byte{'\n'}), err
	}
}
