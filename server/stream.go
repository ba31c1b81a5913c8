package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// maxFrame bounds one message body. Editors send whole documents in didOpen;
// 64 MiB is far above any customization file (the rules stop at 4 MiB) and
// keeps a bogus Content-Length from making us allocate gigabytes.
const maxFrame = 64 << 20

// lspStream is our own Content-Length framing. jsonrpc2's header stream
// treats a malformed header or a body that is not JSON-RPC as a fatal read
// error, which ends the connection and loses every open document. An editor
// bug should cost one message, not the session, so this stream answers what
// it can (ParseError / InvalidRequest with a null id, as JSON-RPC 2.0 asks),
// logs the rest, resynchronises on the next "Content-Length:" header and keeps
// reading. Only the end of input (or a transport error) ends Read.
//
// Every body is read into a fresh buffer, so decoded requests never alias a
// buffer that a later read overwrites (a request's json.RawMessage params
// would otherwise change under a handler that runs after the next read);
// values kept beyond a handler are still cloned by their owners.
type lspStream struct {
	rwc io.ReadWriteCloser
	in  *bufio.Reader
	log *slog.Logger

	writeMu sync.Mutex // one frame on the wire at a time

	// ended is closed when reading stops (the editor closed the pipe or
	// went away): a handler that waits (a held workspace/diagnostic) ends
	// then, since jsonrpc2 cancels no request on a read error and the
	// connection is done only when none is in flight.
	ended   chan struct{}
	endOnce sync.Once
}

func newLSPStream(rwc io.ReadWriteCloser, log *slog.Logger) *lspStream {
	return &lspStream{rwc: rwc, in: bufio.NewReaderSize(rwc, 64<<10), log: log, ended: make(chan struct{})}
}

// errFrame is a recoverable framing problem: the frame is skipped.
type errFrame struct{ msg string }

func (e *errFrame) Error() string { return e.msg }

func (s *lspStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, n, err := s.readFrame()
		var fe *errFrame
		if errors.As(err, &fe) {
			s.log.Warn("skipping malformed LSP frame", "error", fe.msg)
			continue
		}
		if err != nil {
			s.endOnce.Do(func() { close(s.ended) })
			return nil, 0, err
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err == nil {
			return msg, n, nil
		}
		s.answerBad(ctx, body, err)
	}
}

// answerBad replies to a frame that is not a valid JSON-RPC message. Invalid
// JSON gets ParseError; valid JSON of the wrong shape gets InvalidRequest,
// with the request's id when one can be recovered.
func (s *lspStream) answerBad(ctx context.Context, body []byte, cause error) {
	code, what := jsonrpc2.ParseError, "invalid JSON"
	id := jsonrpc2.ID{}
	if json.Valid(body) {
		code, what = jsonrpc2.InvalidRequest, "not a JSON-RPC 2.0 request"
		var probe struct {
			ID any `json:"id"`
		}
		if json.Unmarshal(body, &probe) == nil {
			switch v := probe.ID.(type) {
			case float64:
				if v == float64(int64(v)) {
					id = jsonrpc2.NewNumberID(int64(v))
				}
			case string:
				id = jsonrpc2.NewStringID(v)
			}
		}
		if bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
			what = "JSON-RPC batches are not used by LSP"
		}
	}
	s.log.Warn("bad message from the editor", "error", cause, "reply", what)
	_, _ = s.Write(ctx, jsonrpc2.NewResponse(id, nil, jsonrpc2.NewError(code, what)))
}

// readFrame reads one header block and its body. Recoverable problems come
// back as *errFrame after the offending bytes were consumed.
func (s *lspStream) readFrame() ([]byte, int64, error) {
	length := -1
	consumed := 0
	sawAny := false
	for {
		line, err := s.in.ReadSlice('\n')
		consumed += len(line)
		if errors.Is(err, bufio.ErrBufferFull) {
			// A "header" line longer than our buffer is garbage; drop it.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = s.in.ReadSlice('\n')
			}
			if err != nil {
				return nil, 0, eofErr(err, true)
			}
			return nil, 0, &errFrame{"header line too long"}
		}
		if err != nil {
			return nil, 0, eofErr(err, sawAny || len(line) > 0)
		}
		sawAny = true
		trimmed := bytes.TrimRight(line, "\r\n")
		if len(trimmed) == 0 {
			if length < 0 {
				if consumed <= 2 {
					// A stray blank line between frames; keep looking.
					consumed, sawAny = 0, false
					continue
				}
				return nil, 0, &errFrame{"header without Content-Length"}
			}
			break
		}
		// Garbage glued in front of a header ("junk" + "Content-Length: 5"):
		// resynchronise on the header instead of losing the frame.
		if i := bytes.Index(bytes.ToLower(trimmed), []byte("content-length:")); i > 0 {
			s.log.Warn("skipping bytes before an LSP header", "bytes", i)
			trimmed = trimmed[i:]
		}
		name, value, ok := strings.Cut(string(trimmed), ":")
		if !ok {
			return nil, 0, &errFrame{fmt.Sprintf("header line without ':' (%.40q)", trimmed)}
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n <= 0 {
				return nil, 0, &errFrame{fmt.Sprintf("bad Content-Length %.40q", value)}
			}
			length = n
		}
	}
	if length > maxFrame {
		// Skip the body so the next frame can still be read.
		if _, err := io.CopyN(io.Discard, s.in, int64(length)); err != nil {
			return nil, 0, eofErr(err, true)
		}
		return nil, 0, &errFrame{fmt.Sprintf("message of %d bytes exceeds the %d byte limit", length, maxFrame)}
	}
	// Grow as bytes arrive rather than trusting the header with one big
	// allocation: a lying Content-Length costs what was actually sent.
	var buf bytes.Buffer
	buf.Grow(min(length, 1<<20))
	if n, err := io.CopyN(&buf, s.in, int64(length)); err != nil || n != int64(length) {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return nil, 0, eofErr(err, true)
	}
	return buf.Bytes(), int64(consumed + length), nil
}

func eofErr(err error, mid bool) error {
	if mid && errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// Write frames msg and writes it in one piece. The frame is built before
// the lock is taken, so the lock is held for the write alone: during a
// workspace scan the publisher writes thousands of publishDiagnostics,
// and a reply waits for at most the one on the wire, not for its
// marshalling too (#30).
func (s *lspStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	frame := appendFrame(msg)
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	n, err := s.rwc.Write(frame) // one Write per frame: writers never interleave
	return int64(n), err
}

// frameRoom is room in front of a body for its header:
// "Content-Length: " (16), up to 20 digits, "\r\n\r\n" (4).
const frameRoom = 40

// appendFrame returns msg's body with its header, in one allocation: the
// body is marshalled after frameRoom bytes, and the header is written just
// in front of it.
func appendFrame(msg jsonrpc2.Message) []byte {
	buf := jsonrpc2.AppendMessage(make([]byte, frameRoom, frameRoom+512), msg)
	var hdr [frameRoom]byte
	h := append(hdr[:0], "Content-Length: "...)
	h = strconv.AppendInt(h, int64(len(buf)-frameRoom), 10)
	h = append(h, "\r\n\r\n"...)
	start := frameRoom - len(h)
	copy(buf[start:], h)
	return buf[start:]
}

func (s *lspStream) Close() error { return s.rwc.Close() }
