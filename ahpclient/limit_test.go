package ahpclient

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/coder/websocket"
)

// streamingHost answers every request with a resourceRead result whose
// data is size bytes, written in chunks (the host itself holds no copy),
// then a small one.
func streamingHost(t *testing.T, size int) *websocket.Conn {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		ws, err := websocket.Accept(w, req, nil)
		if err != nil {
			return
		}
		ws.SetReadLimit(-1)
		ctx := context.Background()
		for {
			_, b, err := ws.Read(ctx)
			if err != nil {
				return
			}
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(b, &m)
			wr, err := ws.Writer(ctx, websocket.MessageText)
			if err != nil {
				return
			}
			_, _ = wr.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"encoding":"utf-8","data":"`))
			chunk := []byte(strings.Repeat("a", 64<<10))
			for n := 0; n < size; n += len(chunk) {
				_, _ = wr.Write(chunk[:min(len(chunk), size-n)])
			}
			_, _ = wr.Write([]byte(`"}}`))
			_ = wr.Close()
		}
	}))
	t.Cleanup(srv.Close)
	ws, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(DefaultReadLimit)
	t.Cleanup(func() { _ = ws.CloseNow() })
	return ws
}

// A bounded read of a 30 MB answer fails as too large without the client
// ever buffering it: the bytes allocated while reading past it are a small
// fraction of its size (issue 28: a refused tool input is never buffered
// whole). The connection stays usable for the next frame.
func TestLimitedCallReadsPastALongAnswer(t *testing.T) {
	const size = 30 << 20
	ws := streamingHost(t, size)
	conn := newRPCConn(context.Background(), ws, discardLogger(), nil, 0)
	go func() { _ = conn.readLoop(context.Background()) }()
	t.Cleanup(func() { conn.Close(websocket.StatusNormalClosure, "") })

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := conn.CallLimited(context.Background(), "resourceRead", map[string]any{"uri": "x"}, 1<<20)
	runtime.ReadMemStats(&after)
	var big *TooLargeError
	if !errors.As(err, &big) {
		t.Fatalf("got %v, want a *TooLargeError", err)
	}
	if big.Size < size {
		t.Fatalf("reported %d bytes, the answer had more than %d", big.Size, size)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/4 {
		t.Fatalf("reading past a %d-byte answer allocated %d bytes: it was buffered", size, alloc)
	}
	// The same connection still reads whole answers without a limit.
	res, err := conn.Call(context.Background(), "resourceRead", map[string]any{"uri": "x"}, nil)
	if err != nil || len(res) < size {
		t.Fatalf("unlimited call after a refused one: %d bytes, %v", len(res), err)
	}
}

// leadingID finds the id of the frames hosts write, and nothing else.
func TestLeadingID(t *testing.T) {
	for _, c := range []struct {
		head string
		id   int64
		ok   bool
	}{
		{`{"jsonrpc":"2.0","id":42,"result":{"data":"`, 42, true},
		{`{"id":7,"jsonrpc":"2.0","result":`, 7, true},
		{` { "jsonrpc" : "2.0" , "id" : 3 , `, 3, true},
		{`{"result":{"data":"aaaa`, 0, false},
		{`{"jsonrpc":"2.0","method":"action","params":{`, 0, false},
		{`{"jsonrpc":"2.0","id":"7","result":`, 0, false},
		{`[{"id":1}]`, 0, false},
		{`{"jsonrpc":"2.0","id":1`, 0, false}, // its value may go on
	} {
		id, ok := leadingID([]byte(c.head))
		if id != c.id || ok != c.ok {
			t.Errorf("leadingID(%s) = %d, %v; want %d, %v", c.head, id, ok, c.id, c.ok)
		}
	}
}
