package server

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	"go.lsp.dev/protocol"
)

// LogHandler is the one slog.Handler of a language-server process. It routes
// each record by level: warnings and errors go to the fallback writer
// (stderr, which editors show as "[error]"), INFO and DEBUG go to the editor
// as window/logMessage with the matching message type, and, while the editor
// has tracing on ($/setTrace or initialize's trace), as $/logTrace too.
//
// Before a Server attaches (or after it ended) records below WARN are
// dropped: stdout is the protocol and stderr is for problems (#18).
//
// Handlers derived with WithAttrs/WithGroup share the route, so one logger
// built in main reaches every package (hostlink, toolexec, ahpclient).
type LogHandler struct {
	sh    *logShared
	fmt   slog.Handler // text formatter writing into sh.buf
	level slog.Leveler // lowest level handled at all
}

// logShared is the state every derived handler shares. mu serializes
// formatting: the text handler writes each record into buf with one Write.
type logShared struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	stderr io.Writer
	client atomic.Pointer[logSink]
	trace  atomic.Value // protocol.TraceValue
}

// logSink is the editor side of the route: the attached server's publisher.
type logSink struct {
	s *Server
}

type noClientKey struct{}

// withoutClient marks a context whose log records must not go to the client
// (the publisher's own failures: reporting them through the publisher would
// feed a loop while the connection is broken).
func withoutClient(ctx context.Context) context.Context {
	return context.WithValue(ctx, noClientKey{}, true)
}

// NewLogHandler returns a handler that writes warnings and errors to stderr
// (nil discards them) and everything from level up (nil: INFO) to the editor
// once a Server attached. DEBUG records reach the editor only when level
// admits them or the editor asked for verbose tracing.
func NewLogHandler(stderr io.Writer, level slog.Leveler) *LogHandler {
	if stderr == nil {
		stderr = io.Discard
	}
	if level == nil {
		level = slog.LevelInfo
	}
	sh := &logShared{stderr: stderr}
	sh.trace.Store(protocol.TraceValueOff)
	return &LogHandler{sh: sh, level: level, fmt: slog.NewTextHandler(&sh.buf, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			// The editor stamps its own time; the level is the message type.
			if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == slog.LevelKey) {
				return slog.Attr{}
			}
			return a
		},
	})}
}

func (h *LogHandler) Enabled(ctx context.Context, l slog.Level) bool {
	if l >= slog.LevelWarn || l >= h.level.Level() {
		return true
	}
	return h.sh.trace.Load() == protocol.TraceValueVerbose && h.sh.client.Load() != nil
}

func (h *LogHandler) Handle(ctx context.Context, r slog.Record) error {
	sh := h.sh
	sh.mu.Lock()
	sh.buf.Reset()
	err := h.fmt.Handle(ctx, r)
	line := strings.TrimRight(sh.buf.String(), "\n")
	sh.mu.Unlock()
	if err != nil {
		return err
	}
	if r.Level >= slog.LevelWarn {
		// The level and time are part of a stderr line.
		var b strings.Builder
		b.WriteString(r.Time.Format("2006-01-02T15:04:05.000Z07:00"))
		b.WriteString(" ")
		b.WriteString(r.Level.String())
		b.WriteString(" ")
		b.WriteString(line)
		b.WriteString("\n")
		sh.mu.Lock()
		_, err = io.WriteString(sh.stderr, b.String())
		sh.mu.Unlock()
		return err
	}
	if ctx != nil && ctx.Value(noClientKey{}) != nil {
		return nil
	}
	sink := sh.client.Load()
	if sink == nil {
		return nil
	}
	trace, _ := sh.trace.Load().(protocol.TraceValue)
	if r.Level >= h.level.Level() {
		sink.s.logToClient(messageType(r.Level), line)
	}
	switch {
	case trace == protocol.TraceValueVerbose:
		sink.s.logTrace(r.Message, line)
	case trace == protocol.TraceValueMessages && r.Level >= slog.LevelInfo:
		sink.s.logTrace(line, "")
	}
	return nil
}

func (h *LogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &LogHandler{sh: h.sh, level: h.level, fmt: h.fmt.WithAttrs(attrs)}
}

func (h *LogHandler) WithGroup(name string) slog.Handler {
	return &LogHandler{sh: h.sh, level: h.level, fmt: h.fmt.WithGroup(name)}
}

// attach routes records below WARN to s until detach.
func (h *LogHandler) attach(s *Server) { h.sh.client.Store(&logSink{s: s}) }

// detach stops routing to s (if s is still the attached server).
func (h *LogHandler) detach(s *Server) {
	if cur := h.sh.client.Load(); cur != nil && cur.s == s {
		h.sh.client.CompareAndSwap(cur, nil)
	}
}

// setTrace records the editor's trace setting ("off", "messages", "verbose").
func (h *LogHandler) setTrace(v protocol.TraceValue) {
	switch v {
	case protocol.TraceValueMessages, protocol.TraceValueVerbose:
	default:
		v = protocol.TraceValueOff
	}
	h.sh.trace.Store(v)
}

// messageType maps a slog level to the window/logMessage type.
func messageType(l slog.Level) protocol.MessageType {
	switch {
	case l >= slog.LevelError:
		return protocol.MessageTypeError
	case l >= slog.LevelWarn:
		return protocol.MessageTypeWarning
	case l >= slog.LevelInfo:
		return protocol.MessageTypeInfo
	default:
		return protocol.MessageTypeLog
	}
}

// logTrace queues a $/logTrace notification.
func (s *Server) logTrace(message, verbose string) {
	if s.pub == nil {
		return
	}
	p := &protocol.LogTraceParams{Message: message}
	if verbose != "" && verbose != message {
		p.Verbose = &verbose
	}
	s.pub.notify(protocol.MethodLogTrace, p)
}

// DiscardLogger is the logger of a component nobody gave one: it writes
// nothing, so no package falls back to a stderr default of its own.
func DiscardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
