package server

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ahpls-dev/ahpls/internal/loopback"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// waitLimit only guards against a hung test; assertions never depend on it.
const waitLimit = 30 * time.Second

// note is one server→client notification as it came off the wire.
type note struct {
	Method string
	Params json.RawMessage
}

// testClient is a real jsonrpc2 peer on the editor's side of a pipe. It
// records every notification and answers the requests a server makes
// (configuration, registration, progress, showDocument).
type testClient struct {
	t    testing.TB
	conn jsonrpc2.Conn
	srv  *Server
	code chan int

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every new record
	notes    []note
	requests []note
	config   json.RawMessage // answer to workspace/configuration items
	onNote   func(note)      // optional, called on the client's read loop
}

type clientSetup struct {
	opts     Options
	initOpts json.RawMessage // initializationOptions
	caps     string          // client capabilities JSON
	folders  []string
	config   json.RawMessage
	noInit   bool
}

func newTestClient(t testing.TB, cs clientSetup) *testClient {
	t.Helper()
	a, b, err := loopback.Pair()
	require.NoError(t, err)
	srv := New(withSync(cs.opts))
	c := &testClient{t: t, srv: srv, code: make(chan int, 1), changed: make(chan struct{}), config: cs.config}
	go func() { c.code <- srv.Serve(context.Background(), a) }()
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(b))
	c.conn.Go(context.Background(), c.handle)
	t.Cleanup(func() {
		_ = c.conn.Close()
		select {
		case <-c.code:
		case <-time.After(waitLimit):
			t.Errorf("server did not stop")
		}
	})
	if !cs.noInit {
		c.initialize(cs)
	}
	return c
}

func (c *testClient) initialize(cs clientSetup) json.RawMessage {
	caps := cs.caps
	if caps == "" {
		caps = `{}`
	}
	var folders []string
	for _, f := range cs.folders {
		folders = append(folders, fmt.Sprintf(`{"uri":%q,"name":%q}`, string(uri.File(f)), filepath.Base(f)))
	}
	params := fmt.Sprintf(`{"processId":null,"rootUri":null,"capabilities":%s,"workspaceFolders":[%s]`, caps, strings.Join(folders, ","))
	if cs.initOpts != nil {
		params += `,"initializationOptions":` + string(cs.initOpts)
	}
	params += "}"
	var res json.RawMessage
	require.NoError(c.t, c.call("initialize", params, &res))
	require.NoError(c.t, c.notify("initialized", `{}`))
	return res
}

func (c *testClient) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	n := note{Method: strings.Clone(req.Method()), Params: append(json.RawMessage(nil), req.Params()...)}
	c.mu.Lock()
	if req.IsCall() {
		c.requests = append(c.requests, n)
	} else {
		c.notes = append(c.notes, n)
	}
	close(c.changed)
	c.changed = make(chan struct{})
	cfg := c.config
	hook := c.onNote
	c.mu.Unlock()
	if hook != nil && !req.IsCall() {
		hook(n)
	}
	if !req.IsCall() {
		return nil, nil
	}
	switch n.Method {
	case "workspace/configuration":
		if cfg == nil {
			cfg = json.RawMessage("null")
		}
		return []json.RawMessage{cfg}, nil
	case "window/showDocument":
		return json.RawMessage(`{"success":true}`), nil
	}
	return nil, nil
}

func (c *testClient) call(method, params string, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	// Decode with encoding/json (case-insensitive names), not the
	// connection's json v2 codec, so the test structs stay terse.
	var raw json.RawMessage
	_, err := c.conn.Call(ctx, method, json.RawMessage(params), &raw)
	if err != nil || result == nil {
		return err
	}
	if p, ok := result.(*json.RawMessage); ok {
		*p = raw
		return nil
	}
	return json.Unmarshal(raw, result)
}

func (c *testClient) notify(method, params string) error {
	return c.conn.Notify(context.Background(), method, json.RawMessage(params))
}

// waitFor blocks until pred holds over the recorded notifications and
// returns the first index for which it holds.
func (c *testClient) waitFor(what string, pred func(n note) bool) note {
	c.t.Helper()
	return c.waitFrom(0, what, pred)
}

// mark returns the number of notifications so far, for waitFrom.
func (c *testClient) mark() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.notes)
}

// waitFrom is waitFor over the notifications recorded after mark.
func (c *testClient) waitFrom(mark int, what string, pred func(n note) bool) note {
	c.t.Helper()
	deadline := time.After(waitLimit)
	seen := mark
	for {
		c.mu.Lock()
		for ; seen < len(c.notes); seen++ {
			if pred(c.notes[seen]) {
				n := c.notes[seen]
				c.mu.Unlock()
				return n
			}
		}
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			c.t.Fatalf("timed out waiting for %s; notifications: %s", what, c.dump())
		}
	}
}

func (c *testClient) waitRequest(method string) note {
	c.t.Helper()
	deadline := time.After(waitLimit)
	seen := 0
	for {
		c.mu.Lock()
		for ; seen < len(c.requests); seen++ {
			if c.requests[seen].Method == method {
				n := c.requests[seen]
				c.mu.Unlock()
				return n
			}
		}
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			c.t.Fatalf("timed out waiting for request %s", method)
		}
	}
}

func (c *testClient) dump() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, n := range c.notes {
		fmt.Fprintf(&b, "\n  %s %s", n.Method, n.Params)
	}
	return b.String()
}

// wireDiag is a diagnostic as the editor receives it.
type wireDiag struct {
	Range struct {
		Start struct{ Line, Character int } `json:"start"`
		End   struct{ Line, Character int } `json:"end"`
	} `json:"range"`
	Severity        int    `json:"severity"`
	Code            string `json:"code"`
	Source          string `json:"source"`
	Message         string `json:"message"`
	CodeDescription struct {
		Href string `json:"href"`
	} `json:"codeDescription"`
	Tags               []int `json:"tags"`
	RelatedInformation []struct {
		Location struct {
			URI string `json:"uri"`
		} `json:"location"`
		Message string `json:"message"`
	} `json:"relatedInformation"`
	Data struct {
		Verdicts map[string]string `json:"verdicts"`
	} `json:"data"`
}

type wirePublish struct {
	URI         string          `json:"uri"`
	Version     *int            `json:"version"`
	Diagnostics json.RawMessage `json:"diagnostics"`
}

func (p wirePublish) diags(t *testing.T) []wireDiag {
	var ds []wireDiag
	require.NoError(t, json.Unmarshal(p.Diagnostics, &ds))
	return ds
}

// waitPublish waits for diagnostics of u whose version (nil = any or none)
// matches and for which pred holds.
func (c *testClient) waitPublish(u uri.URI, version *int, pred func([]wireDiag) bool) wirePublish {
	c.t.Helper()
	return c.waitPublishFrom(0, u, version, pred)
}

func (c *testClient) waitPublishFrom(mark int, u uri.URI, version *int, pred func([]wireDiag) bool) wirePublish {
	c.t.Helper()
	var got wirePublish
	c.waitFrom(mark, fmt.Sprintf("diagnostics for %s", u), func(n note) bool {
		if n.Method != "textDocument/publishDiagnostics" {
			return false
		}
		var p wirePublish
		if json.Unmarshal(n.Params, &p) != nil || p.URI != string(u) {
			return false
		}
		if version != nil && (p.Version == nil || *p.Version != *version) {
			return false
		}
		var ds []wireDiag
		if json.Unmarshal(p.Diagnostics, &ds) != nil {
			return false
		}
		if pred != nil && !pred(ds) {
			return false
		}
		got = p
		return true
	})
	return got
}

func ptr(i int) *int { return &i }

func withCode(ds []wireDiag, code string) []wireDiag {
	var out []wireDiag
	for _, d := range ds {
		if d.Code == code {
			out = append(out, d)
		}
	}
	return out
}

func didOpen(u uri.URI, version int, text string) string {
	b, _ := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "markdown", "version": version, "text": text}})
	return string(b)
}

func didChangeFull(u uri.URI, version int, text string) string {
	b, _ := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": u, "version": version}, "contentChanges": []any{map[string]any{"text": text}}})
	return string(b)
}

func didChangeRange(u uri.URI, version, l1, c1, l2, c2 int, text string) string {
	b, _ := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": u, "version": version}, "contentChanges": []any{map[string]any{
		"range": map[string]any{"start": map[string]int{"line": l1, "character": c1}, "end": map[string]int{"line": l2, "character": c2}},
		"text":  text,
	}}})
	return string(b)
}

type protocolDiagnostic = protocol.Diagnostic

func hostDiag(msg string) protocol.Diagnostic {
	return protocol.Diagnostic{Severity: protocol.DiagnosticSeverityError, Source: protocol.NewOptional("ahpls-host"), Message: protocol.String(msg)}
}

// withSync adds syncCommand to opts' commands.
func withSync(opts Options) Options {
	cmds := map[string]CommandFunc{syncCommand: func(context.Context, []json.RawMessage) (any, error) { return map[string]any{"ok": true}, nil }}
	for k, v := range opts.Commands {
		cmds[k] = v
	}
	opts.Commands = cmds
	return opts
}

// syncCommand is a command every test server has: a request the tests send
// to wait until the notifications before it were handled.
const syncCommand = "test.sync"
