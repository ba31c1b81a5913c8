package ahpclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/coder/websocket"
)

// readerRig is one client-side rpcConn on a real loopback WebSocket whose
// peer reads and checks every frame the reader answers with. It is built
// once per fuzz process: each input is one more frame on the same socket,
// which is what a host feeding garbage does.
type readerRig struct {
	client  *Client
	conn    *rpcConn
	invalid atomic.Value // string: the first answer that was not a JSON-RPC frame
}

var (
	readerOnce sync.Once
	reader     *readerRig
)

func newReaderRig(tb testing.TB) *readerRig {
	readerOnce.Do(func() {
		r := &readerRig{}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			ws, err := websocket.Accept(w, req, nil)
			if err != nil {
				return
			}
			ws.SetReadLimit(-1)
			for {
				_, b, err := ws.Read(context.Background())
				if err != nil {
					return
				}
				var m map[string]json.RawMessage
				if json.Unmarshal(b, &m) != nil || string(m["jsonrpc"]) != `"2.0"` {
					r.invalid.CompareAndSwap(nil, string(b))
				}
			}
		}))
		ws, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
		if err != nil {
			tb.Fatal(err)
		}
		c, err := New(Options{URL: "ws://127.0.0.1:1/", ClientID: "ahpls-000000000000", Logger: discardLogger()})
		if err != nil {
			tb.Fatal(err)
		}
		c.Handle("resourceRead", func(context.Context, json.RawMessage) (any, error) {
			return json.RawMessage(`{"data":"x","encoding":"utf-8"}`), nil
		})
		c.Handle("resourceList", func(context.Context, json.RawMessage) (any, error) { panic("handler bug") })
		conn := newRPCConn(context.Background(), ws, c.connection.log, nil, 0)
		conn.onNotify = func(m string, p json.RawMessage) { c.connection.onNotify(conn, m, p) }
		conn.onRequest = func(id json.RawMessage, m string, p json.RawMessage) { c.onRequest(conn, id, m, p) }
		c.mirror.mu.Lock()
		ch := c.ensureChannelLocked("ahp-session:/a", "session", "")
		ch.live, ch.confirmed = true, map[string]any{"title": "t", "chats": []any{}}
		ch.rendered = ch.confirmed
		c.mirror.mu.Unlock()
		r.client, r.conn = c, conn
		reader = r
	})
	return reader
}

// FuzzJSONRPCReader feeds arbitrary frames to the AHP side's JSON-RPC
// reader (rpcConn.handle: decode, route responses, notifications and
// requests, answer what cannot be routed). Properties: nothing panics
// (handle's own recover would hide it, so a recovered panic counts as a
// failure too), the connection survives any input, answers are JSON-RPC
// frames, and a response to an outstanding call resolves it.
func FuzzJSONRPCReader(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":null}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x","data":{"a":1}}}`,
		`{"jsonrpc":"2.0","id":"x","result":1}`,
		`{"jsonrpc":"2.0","id":7,"method":"resourceRead","params":{"channel":"ahp-root://","uri":"virtual://x"}}`,
		`{"jsonrpc":"2.0","id":[1],"method":"resourceList","params":{}}`,
		`{"jsonrpc":"2.0","id":8,"method":"nope"}`,
		`{"jsonrpc":"2.0","method":"action","params":{"channel":"ahp-session:/a","serverSeq":3,"action":{"type":"session/titleChanged","title":"u"}}}`,
		`{"jsonrpc":"2.0","method":"root/sessionAdded","params":{"channel":"ahp-root://","summary":{"resource":"ahp-session:/b"}}}`,
		`{"jsonrpc":"2.0","method":"root/sessionRemoved","params":{"session":"ahp-session:/a"}}`,
		`[{"jsonrpc":"2.0","id":1,"result":1}]`, `null`, `{}`, `{"jsonrpc":"1.0","id":1,"result":1}`,
		`{"jsonrpc":"2.0","method":""}`, "\x00\xff", `{"jsonrpc":"2.0","id":1e999,"result":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		r := newReaderRig(t)
		var panicked atomic.Bool
		r.conn.onBadFrame = func(err error) {
			if strings.Contains(err.Error(), "panic handling frame") {
				panicked.Store(true)
			}
		}
		// An outstanding call with id 1, so responses have something to
		// resolve.
		r.conn.mu.Lock()
		cl := &call{method: "ping", done: make(chan struct{})}
		r.conn.calls[1] = cl
		r.conn.mu.Unlock()

		r.conn.handle(frame)

		if panicked.Load() {
			t.Fatalf("the reader panicked on %q", frame)
		}
		select {
		case <-r.conn.done:
			t.Fatalf("the connection closed on %q", frame)
		default:
		}
		e, err := decodeEnvelope(frame)
		if err == nil && e.Method == "" {
			if id, ok := responseID(e.ID); ok && id == 1 {
				select {
				case <-cl.done:
				default:
					t.Fatalf("a response to call 1 did not resolve it: %q", frame)
				}
			}
		}
		r.conn.mu.Lock()
		delete(r.conn.calls, 1)
		r.conn.mu.Unlock()
		if bad := r.invalid.Load(); bad != nil {
			t.Fatalf("the reader answered with a non-JSON-RPC frame: %q", bad)
		}
	})
}
