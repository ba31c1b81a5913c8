package ahpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"

	"github.com/ahpls-dev/ahpls/ahpclient/reduce"
	"github.com/ahpls-dev/ahpls/internal/procstat"
)

// omitReference is what the filter must produce, worked out on the decoded
// value and independent of it: every string under a toolInput or
// editedToolInput member longer than limit becomes the marker.
func omitReference(v any, limit int) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if s, ok := e.(string); ok && watchedKey(k) && len(s) > limit {
				out[k] = map[string]any{OmittedInputKey: json.Number(strconv.Itoa(len(s)))}
				continue
			}
			out[k] = omitReference(e, limit)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = omitReference(e, limit)
		}
		return out
	}
	return v
}

// filterOK checks one input against the reference, fed in chunks of step
// bytes.
func filterOK(t *testing.T, in string, limit int64, step int) {
	t.Helper()
	f := &inputFilter{limit: limit}
	for i := 0; i < len(in); i += step {
		f.write([]byte(in[i:min(i+step, len(in))]))
	}
	want, err := reduce.Decode([]byte(in))
	if err != nil {
		return // not JSON: nothing to compare
	}
	got, err := reduce.Decode(f.out)
	if err != nil {
		t.Fatalf("%q (step %d): filtered frame %q is not JSON: %v", in, step, f.out, err)
	}
	if w := omitReference(want, int(limit)); !reflect.DeepEqual(got, w) {
		t.Fatalf("%q (step %d):\n got %#v\nwant %#v", in, step, got, w)
	}
}

func TestInputFilter(t *testing.T) {
	for _, in := range []string{
		`{"toolInput":"short"}`,
		`{"toolInput":"0123456789abcdef"}`,
		`{"editedToolInput" : "0123456789abcdef", "toolInput": "x"}`,
		`{"a":{"toolCall":{"toolInput":"0123456789abcdef","toolCallId":"toolInput"}}}`,
		`{"x":"toolInput","y":"0123456789abcdef"}`,                // a value, not a key
		`{"toolInput":{"inline":"0123456789abcdef"}}`,             // not a string
		`{"toolInput":"\n\n\n\n\n\n\n\n\n"}`,                      // 18 bytes raw, 9 decoded: kept
		`{"toolInput":"\u00e9\u00e9\u00e9\u00e9\u00e9"}`,          // 10 bytes decoded: over 8
		`{"toolInput":"\ud83d\ude00\ud83d\ude00\ud83d\ude00"}`,    // 12 bytes decoded
		`{"toolInput":"a\"b\\c\"0123456789"}`,                     // escaped quotes
		`[{"toolInput":"0123456789abcdef"},{"toolInput":"0123"}]`, // arrays
		`{"toolInput":"é日本語日本語"}`,                                 // multi-byte, unescaped
	} {
		for _, step := range []int{1, 3, 1000} {
			filterOK(t, in, 8, step)
		}
	}
	// Short inputs pass byte for byte.
	in := `{"jsonrpc":"2.0","method":"action","params":{"toolInput":"{\"a\":1}"}}`
	f := &inputFilter{limit: MaxToolInput}
	f.write([]byte(in))
	if string(f.out) != in {
		t.Fatalf("changed a frame with nothing to omit: %s", f.out)
	}
}

func FuzzInputFilter(f *testing.F) {
	for _, s := range []string{`{"toolInput":"0123456789abcdef"}`, `{"a":[{"editedToolInput":"\u00e9\u00e9\u00e9\u00e9\u00e9x"}]}`, `{"toolInput" :"x"}`} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, in string, step int) {
		// Invalid UTF-8 decodes to U+FFFD (3 bytes for 1): the filter
		// undercounts it and leaves such an input to scrubCall.
		if step < 1 || step > 64 || !json.Valid([]byte(in)) || !utf8.ValidString(in) {
			return
		}
		filterOK(t, in, 8, step)
	})
}

// notifyHost sends one notification whose params carry a toolInput of
// size bytes, written in chunks (the host holds no copy), then a small
// notification.
func notifyHost(t *testing.T, size int) *websocket.Conn {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		ws, err := websocket.Accept(w, req, nil)
		if err != nil {
			return
		}
		ctx := context.Background()
		wr, err := ws.Writer(ctx, websocket.MessageText)
		if err != nil {
			return
		}
		_, _ = wr.Write([]byte(`{"jsonrpc":"2.0","method":"action","params":{"action":{"type":"chat/toolCallReady","toolInput":"`))
		chunk := []byte(strings.Repeat("a", 64<<10))
		for n := 0; n < size; n += len(chunk) {
			_, _ = wr.Write(chunk[:min(len(chunk), size-n)])
		}
		_, _ = wr.Write([]byte(`"}}}`))
		_ = wr.Close()
		_ = ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","method":"after","params":{}}`))
		<-req.Context().Done()
	}))
	t.Cleanup(srv.Close)
	ws, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(64 << 20) // above the frame: the client's own bound is what is tested
	t.Cleanup(func() { _ = ws.CloseNow() })
	return ws
}

// A 50 MB inline tool input is refused without ever being held whole: the
// bytes allocated while reading its frame are a small fraction of it, the
// notification arrives with the omitted marker, the next frame is read,
// and the process's resident size ends within 20 MB of where it started
// (issue 39: it stayed at ~3x the refused bytes).
func TestInlineInputOverTheLimitIsNeverHeldWhole(t *testing.T) {
	const size = 50 << 20
	startRSS, haveRSS := procstat.RSS()
	ws := notifyHost(t, size)
	conn := newRPCConn(context.Background(), ws, discardLogger(), nil, 0)
	got := make(chan [2]string, 2)
	conn.onNotify = func(m string, p json.RawMessage) { got <- [2]string{m, string(p)} }
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	go func() { _ = conn.readLoop(context.Background()) }()
	t.Cleanup(func() { conn.Close(websocket.StatusNormalClosure, "") })
	var first, second [2]string
	for i, dst := range []*[2]string{&first, &second} {
		select {
		case *dst = <-got:
		case <-time.After(time.Minute):
			t.Fatalf("notification %d did not arrive", i+1)
		}
	}
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("reading a frame with a %d MB tool input allocated %.1f MB", size>>20, float64(alloc)/(1<<20))
	if alloc > size/8 {
		t.Fatalf("reading past a %d-byte input allocated %d bytes: it was buffered", size, alloc)
	}
	var p struct {
		Action map[string]any `json:"action"`
	}
	d := json.NewDecoder(bytes.NewReader([]byte(first[1])))
	d.UseNumber()
	if err := d.Decode(&p); err != nil {
		t.Fatal(err)
	}
	if n, ok := OmittedInput(p.Action["toolInput"]); !ok || n != size {
		t.Fatalf("toolInput = %v, want the omitted marker of %d bytes", p.Action["toolInput"], size)
	}
	if second[0] != "after" {
		t.Fatalf("the next frame: %v", second)
	}
	if haveRSS {
		runtime.GC()
		end, _ := procstat.RSS()
		t.Logf("RSS %d MB -> %d MB after %d MB refused", startRSS>>20, end>>20, size>>20)
		if end-startRSS > 20<<20 {
			t.Fatalf("RSS grew by %d MB", (end-startRSS)>>20)
		}
	}
}
