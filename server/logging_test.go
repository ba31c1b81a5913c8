package server

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncBuffer is a stderr stand-in safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type wireLogMessage struct {
	Type    int    `json:"type"`
	Message string `json:"message"`
}

func logMessages(c *testClient) []wireLogMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []wireLogMessage
	for _, n := range c.notes {
		if n.Method == "window/logMessage" {
			var m wireLogMessage
			_ = json.Unmarshal(n.Params, &m)
			out = append(out, m)
		}
	}
	return out
}

// An INFO-level event writes nothing to stderr and reaches the editor as
// window/logMessage of type Info; a warning goes to stderr only (#18).
func TestLogInfoReachesClientNotStderr(t *testing.T) {
	stderr := &syncBuffer{}
	log := slog.New(NewLogHandler(stderr, nil))
	root := t.TempDir()
	c := newTestClient(t, clientSetup{opts: Options{Logger: log}, folders: []string{root}})
	// "initialize" is logged at INFO by the server itself.
	c.waitFor("initialize logMessage", func(n note) bool {
		return n.Method == "window/logMessage" && strings.Contains(string(n.Params), "initialize")
	})
	// An INFO record of another component sharing the logger, with attrs.
	log.With("component", "hostlink").Info("joined session", "session", "ahp-session:/s1")
	n := c.waitFor("hostlink logMessage", func(n note) bool {
		return n.Method == "window/logMessage" && strings.Contains(string(n.Params), "joined session")
	})
	var m wireLogMessage
	require.NoError(t, json.Unmarshal(n.Params, &m))
	assert.Equal(t, wireLogMessage{Type: 3, Message: `msg="joined session" component=hostlink session=ahp-session:/s1`}, m)

	log.Warn("host unreachable", "error", "connection refused")
	log.Info("marker after the warning")
	c.waitFor("marker", func(n note) bool {
		return n.Method == "window/logMessage" && strings.Contains(string(n.Params), "marker after the warning")
	})
	for _, m := range logMessages(c) {
		assert.NotContains(t, m.Message, "host unreachable", "warnings go to stderr, not twice")
		assert.Equal(t, 3, m.Type)
	}
	out := stderr.String()
	assert.Contains(t, out, `WARN msg="host unreachable" error="connection refused"`)
	assert.NotContains(t, out, "INFO")
	assert.NotContains(t, out, "initialize")
	assert.Equal(t, 1, strings.Count(out, "\n"), "exactly the one warning on stderr: %q", out)
}

// With tracing on, the log is mirrored to $/logTrace: INFO and up for
// "messages", DEBUG too (with attributes in verbose) for "verbose".
func TestLogTrace(t *testing.T) {
	stderr := &syncBuffer{}
	log := slog.New(NewLogHandler(stderr, nil))
	root := t.TempDir()
	c := newTestClient(t, clientSetup{opts: Options{Logger: log}, folders: []string{root}})
	log.Debug("before tracing")
	require.NoError(t, c.notify("$/setTrace", `{"value":"verbose"}`))
	// setTrace is handled in wire order: a request after it sees it applied.
	require.NoError(t, c.call("shutdown", `null`, nil))
	log.Debug("checked file", "uri", "file:///x")
	n := c.waitFor("logTrace", func(n note) bool {
		return n.Method == "$/logTrace" && strings.Contains(string(n.Params), "checked file")
	})
	var tr struct {
		Message string `json:"message"`
		Verbose string `json:"verbose"`
	}
	require.NoError(t, json.Unmarshal(n.Params, &tr))
	assert.Equal(t, "checked file", tr.Message)
	assert.Equal(t, `msg="checked file" uri=file:///x`, tr.Verbose)
	for _, m := range logMessages(c) {
		assert.NotContains(t, m.Message, "before tracing", "DEBUG reaches the editor only while tracing is verbose")
	}
	assert.Empty(t, stderr.String())
}

// Before a server attaches and after it ended, records below WARN go
// nowhere (never to stderr).
func TestLogHandlerUnattached(t *testing.T) {
	var stderr bytes.Buffer
	h := NewLogHandler(&stderr, nil)
	log := slog.New(h)
	log.Info("nobody listens")
	assert.False(t, h.Enabled(context.Background(), slog.LevelDebug))
	assert.Empty(t, stderr.String())
	log.Error("boom", "n", 1)
	assert.Regexp(t, `^\S+ ERROR msg=boom n=1\n$`, stderr.String())
}
