package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/ahpls-dev/ahpls/settings"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Trap 1: protocol.NewServer's AsyncHandler reorders notifications. Many
// rapid incremental edits, each valid only after the one before, must all
// land in wire order. With 2,000 edits, wrapping the handler in
// jsonrpc2.AsyncHandler makes this test fail reliably (checked by hand).
func TestTrapDidChangeOrder(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}, opts: Options{Debounce: DefaultDebounce}})
	u := skillURI(root, "order")
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, "")))
	const n = 2000
	var want strings.Builder
	for i := 0; i < n; i++ {
		ch := string(rune('a' + i%26))
		want.WriteString(ch)
		require.NoError(t, c.notify("textDocument/didChange", didChangeRange(u, i+2, 0, i, 0, i, ch)))
	}
	// A NUL at the end makes the final state visible as a diagnostic at a
	// known column and version.
	require.NoError(t, c.notify("textDocument/didChange", didChangeRange(u, n+2, 0, n, 0, n, "\x00")))
	p := c.waitPublish(u, ptr(n+2), func(ds []wireDiag) bool { return len(withCode(ds, "file/encoding")) == 1 })
	d := withCode(p.diags(t), "file/encoding")[0]
	assert.Equal(t, n, d.Range.Start.Character)
	snap, ok := c.srv.DocumentSnapshot(u)
	require.True(t, ok)
	assert.Equal(t, want.String()+"\x00", string(snap.Text))
	// Debounced: the burst costs far fewer publications than edits.
	pubs := 0
	for _, nt := range c.notesSnapshot() {
		if nt.Method == "textDocument/publishDiagnostics" && strings.Contains(string(nt.Params), string(u)) {
			pubs++
		}
	}
	assert.Less(t, pubs, n/2)
}

// Trap 2: a handler that calls the client and waits must release the read
// loop first, or the answer is never read. executeCommand does.
func TestTrapHandlerCallsClient(t *testing.T) {
	var srv *Server
	opts := Options{Commands: map[string]CommandFunc{
		"test.open": func(ctx context.Context, args []json.RawMessage) (any, error) {
			return srv.ShowDocument(ctx, &protocol.ShowDocumentParams{URI: "file:///tmp/x.md"})
		},
	}}
	c := newTestClient(t, clientSetup{opts: opts, caps: `{"window":{"showDocument":{"support":true}}}`, noInit: true})
	srv = c.srv
	c.initialize(clientSetup{caps: `{"window":{"showDocument":{"support":true}}}`})
	var res map[string]any
	require.NoError(t, c.call("workspace/executeCommand", `{"command":"test.open"}`, &res))
	assert.Equal(t, true, res["success"])
	req := c.waitRequest("window/showDocument")
	assert.Contains(t, string(req.Params), "file:///tmp/x.md")
}

// Trap 3: a notification handler that returns an error (or panics) must not
// close the connection.
func TestTrapNotificationErrorKeepsConnection(t *testing.T) {
	opts := Options{OnSettings: func(_, _ settings.Settings) { panic("settings hook exploded") }}
	c := newTestClient(t, clientSetup{opts: opts})
	require.NoError(t, c.notify("textDocument/didChange", didChangeFull("file:///not/open.md", 2, "x")))
	require.NoError(t, c.notify("textDocument/didOpen", `{"textDocument":42}`))
	require.NoError(t, c.notify("workspace/didChangeConfiguration", `{"settings":{"ahpls":{"targets":["vscode"]}}}`))
	c.waitFor("log of the failed didChange", func(n note) bool {
		return n.Method == "window/logMessage" && strings.Contains(string(n.Params), "not open")
	})
	c.waitFor("log of the panic", func(n note) bool {
		return n.Method == "window/logMessage" && strings.Contains(string(n.Params), "settings hook exploded")
	})
	var res map[string]any
	require.NoError(t, c.call("workspace/executeCommand", `{"command":"test.sync"}`, &res))
	assert.Equal(t, true, res["ok"])
}

// A request handler that panics answers InternalError and the session goes on.
func TestPanicInRequestIsAnswered(t *testing.T) {
	opts := Options{Commands: map[string]CommandFunc{
		"test.boom": func(context.Context, []json.RawMessage) (any, error) { panic("boom") },
	}}
	c := newTestClient(t, clientSetup{opts: opts})
	err := c.call("workspace/executeCommand", `{"command":"test.boom"}`, nil)
	var je *jsonrpc2.Error
	require.ErrorAs(t, err, &je)
	assert.Equal(t, jsonrpc2.InternalError, je.Code)
	require.NoError(t, c.call("workspace/executeCommand", `{"command":"test.sync"}`, nil))
}

// Trap 4: decoded values may alias the read buffer. A document's text must
// survive any number of later messages unchanged.
func TestTrapDecodedTextIsOwned(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}})
	a := skillURI(root, "a")
	text := "---\nname: a\ndescription: first document\n---\n"
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(a, 1, text)))
	for i := 0; i < 50; i++ {
		other := skillURI(root, fmt.Sprintf("b%d", i))
		require.NoError(t, c.notify("textDocument/didOpen", didOpen(other, 1, strings.Repeat("X", len(text)))))
	}
	require.NoError(t, c.call("workspace/executeCommand", `{"command":"test.sync"}`, nil))
	snap, ok := c.srv.DocumentSnapshot(a)
	require.True(t, ok)
	assert.Equal(t, text, string(snap.Text))
}

// An edit outside the document is clamped, logged, and the buffer survives.
func TestOutOfRangeEditIsClamped(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}})
	u := skillURI(root, "clamp")
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, "ab\n")))
	require.NoError(t, c.notify("textDocument/didChange", didChangeRange(u, 2, 9, 0, 9, 4, "Z\x00")))
	p := c.waitPublish(u, ptr(2), func(ds []wireDiag) bool { return len(withCode(ds, "file/encoding")) == 1 })
	assert.Equal(t, 1, withCode(p.diags(t), "file/encoding")[0].Range.Start.Line)
	c.waitFor("clamp warning", func(n note) bool {
		return n.Method == "window/logMessage" && strings.Contains(string(n.Params), "outside the document")
	})
	snap, ok := c.srv.DocumentSnapshot(u)
	require.True(t, ok)
	assert.Equal(t, "ab\nZ\x00", string(snap.Text))
	assert.EqualValues(t, 2, snap.Version)
}

func TestMalformedInput(t *testing.T) {
	c := newRawServer(t)
	c.send([]byte("garbage without a header\r\n\r\n"))
	c.send([]byte("Content-Length: abc\r\n\r\n"))
	c.send([]byte("Content-Length: 5\r\n\r\n{nope"))
	c.send(frame(`{"hello":"world"}`))
	c.send(frame(`[]`))
	c.send(frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`))
	c.send(frame(`{"jsonrpc":"2.0","id":2,"method":"no/such/method","params":{}}`))
	c.send(frame(`{"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":{"textDocument":5,"position":"x"}}`))
	c.send(frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":"nope"}}`))
	c.send([]byte("stray bytes without a newline"))
	c.send(frame(`{"jsonrpc":"2.0","id":5,"method":"workspace/executeCommand","params":{"command":"test.sync"}}`))
	c.send(frame(`{"jsonrpc":"2.0","id":4,"method":"shutdown"}`))

	got := map[string]int{} // id → error code (0 = success)
	var nullIDCodes []int
	for len(got) < 5 {
		m := c.rd.next()
		var r struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Error  *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		require.NoError(t, json.Unmarshal(m, &r), string(m))
		if r.Method != "" {
			continue // a notification (logMessage)
		}
		code := 0
		if r.Error != nil {
			code = r.Error.Code
		}
		if string(r.ID) == "null" || r.ID == nil {
			nullIDCodes = append(nullIDCodes, code)
			continue
		}
		got[string(r.ID)] = code
	}
	assert.Equal(t, map[string]int{"1": 0, "2": int(jsonrpc2.MethodNotFound), "3": int(jsonrpc2.InvalidParams), "4": 0, "5": 0}, got)
	assert.Contains(t, nullIDCodes, int(jsonrpc2.ParseError), "invalid JSON is answered with ParseError")
	assert.Contains(t, nullIDCodes, int(jsonrpc2.InvalidRequest), "valid JSON that is no request is answered with InvalidRequest")
	c.send(frame(`{"jsonrpc":"2.0","method":"exit"}`))
	assert.Equal(t, 0, c.wait())
}

func frame(body string) []byte {
	return []byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
}

// Trap 4 at the stream level: a message's params stay valid after later
// reads (jsonrpc2's own header stream reuses its read buffer).
func TestStreamMessagesOwnTheirBytes(t *testing.T) {
	first := `{"jsonrpc":"2.0","method":"a","params":{"text":"AAAAAAAAAAAAAAAA"}}`
	second := `{"jsonrpc":"2.0","method":"b","params":{"text":"BBBBBBBBBBBBBBBB"}}`
	in := append(frame(first), frame(second)...)
	st := newLSPStream(pipeRWC{Reader: bytes.NewReader(in), Writer: io.Discard}, slog.New(slog.DiscardHandler))
	m1, _, err := st.Read(context.Background())
	require.NoError(t, err)
	n1, ok := m1.(*jsonrpc2.Notification)
	require.True(t, ok)
	kept := n1.Params()
	before := string(kept)
	_, _, err = st.Read(context.Background())
	require.NoError(t, err)
	assert.Equal(t, before, string(kept))
	assert.Contains(t, string(kept), "AAAA")
}

// $/cancelRequest cancels the context of the request it names; the request
// is answered with RequestCancelled.
func TestCancelRequest(t *testing.T) {
	started := make(chan struct{})
	opts := Options{Commands: map[string]CommandFunc{
		"test.block": func(ctx context.Context, _ []json.RawMessage) (any, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}}
	c := newTestClient(t, clientSetup{opts: opts})
	errc := make(chan error, 1)
	// jsonrpc2 numbers calls 1, 2, …: initialize was 1, this is 2.
	go func() { errc <- c.call("workspace/executeCommand", `{"command":"test.block"}`, nil) }()
	<-started
	require.NoError(t, c.notify("$/cancelRequest", `{"id":2}`))
	err := <-errc
	var je *jsonrpc2.Error
	require.ErrorAs(t, err, &je)
	assert.Equal(t, protocol.CodeRequestCancelled, je.Code)
}
