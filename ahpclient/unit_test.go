package ahpclient

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahpclient/reduce"
	"github.com/ahpls-dev/ahpls/ahpclient/wire"
)

func TestStableClientID(t *testing.T) {
	dir := t.TempDir()
	a1, err := StableClientID(dir, "file:///w/a")
	require.NoError(t, err)
	a2, err := StableClientID(dir, "file:///w/a")
	require.NoError(t, err)
	b, err := StableClientID(dir, "file:///w/b")
	require.NoError(t, err)
	assert.Regexp(t, `^ahpls-[0-9a-f]{12}$`, a1)
	assert.Equal(t, a1, a2, "stable across restarts")
	assert.NotEqual(t, a1, b, "distinct per workspace")
	other, err := StableClientID(t.TempDir(), "file:///w/a")
	require.NoError(t, err)
	assert.NotEqual(t, a1, other, "random per state dir")

	// A corrupted file is replaced, not trusted.
	files, _ := filepath.Glob(filepath.Join(dir, "clientid-*"))
	require.Len(t, files, 2)
	require.NoError(t, os.WriteFile(files[0], []byte("garbage"), 0o600))
	fresh, err := StableClientID(dir, "file:///w/a")
	require.NoError(t, err)
	assert.Regexp(t, `^ahpls-[0-9a-f]{12}$`, fresh)

	_, err = StableClientID("", "k")
	assert.Error(t, err)
}

func TestBackoffDelay(t *testing.T) {
	b := Backoff{Initial: 100 * time.Millisecond, Max: time.Second, Multiplier: 2, Jitter: 0.5}
	cases := []struct {
		n    int
		rnd  float64
		want time.Duration
	}{
		{0, 0, 100 * time.Millisecond},
		{1, 0, 200 * time.Millisecond},
		{3, 0, 800 * time.Millisecond},
		{4, 0, time.Second},
		{100, 0, time.Second},
		{100000, 0, time.Second},
		{0, 0.999999, 50 * time.Millisecond},
		{4, 0.5, 750 * time.Millisecond},
	}
	for _, c := range cases {
		got := b.Delay(c.n, func() float64 { return c.rnd })
		assert.InDelta(t, float64(c.want), float64(got), float64(time.Millisecond), "attempt %d rnd %v", c.n, c.rnd)
	}
}

func TestCovers(t *testing.T) {
	cases := []struct {
		w, f   string
		nested bool
		want   bool
	}{
		{"file:///home/u/proj", "file:///home/u/proj", false, true},
		{"file:///home/u/proj/", "file:///home/u/proj", false, true},
		{"file:///home/u", "file:///home/u/proj", false, true},
		{"file:///home/u/pro", "file:///home/u/proj", false, false},
		{"file:///home/u/proj/sub", "file:///home/u/proj", false, false},
		{"file:///home/u/proj/sub", "file:///home/u/proj", true, true},
		{"file:///home/u/my%20proj", "file:///home/u/my proj", false, true},
		{"file:///C:/src", "file:///c:/src/app", false, true},
		{"file:///", "file:///anything", false, true},
		{"file:///other", "file:///home", false, false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Covers(c.w, c.f, c.nested), "%s covers %s (nested %v)", c.w, c.f, c.nested)
	}
}

func TestDecodeEnvelope(t *testing.T) {
	cases := []struct {
		in      string
		wantErr bool
		check   func(*envelope) bool
	}{
		{`{"jsonrpc":"2.0","id":3,"result":null}`, false, func(e *envelope) bool { return e.HasResult && string(e.Result) == "null" }},
		{`{"jsonrpc":"2.0","id":4,"method":"resourceRead","params":{}}`, false, func(e *envelope) bool { return e.HasID && e.Method == "resourceRead" }},
		{`{"jsonrpc":"2.0","method":"action","params":{}}`, false, func(e *envelope) bool { return !e.HasID }},
		{`{"jsonrpc":"2.0","id":5,"error":{"code":-32005,"message":"no","data":{"supportedVersions":["1.0.0"]}}}`, false, func(e *envelope) bool { return e.Error.Code == -32005 }},
		{`[{"jsonrpc":"2.0"}]`, true, nil},
		{`{"jsonrpc":"1.0","id":1,"result":1}`, true, nil},
		{`{"jsonrpc":"2.0"}`, true, nil},
		{`{"jsonrpc":"2.0","result":1}`, true, nil},
		{`{"jsonrpc":"2.0","method":7}`, true, nil},
		{`null`, true, nil},
		{``, true, nil},
	}
	for _, c := range cases {
		e, err := decodeEnvelope([]byte(c.in))
		if c.wantErr {
			assert.Error(t, err, c.in)
			continue
		}
		require.NoError(t, err, c.in)
		assert.True(t, c.check(e), c.in)
	}
}

func FuzzDecodeEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":null}`,
		`{"jsonrpc":"2.0","method":"action","params":{"channel":"ahp-root://","serverSeq":1,"action":{"type":"root/agentsChanged","agents":[]}}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"x"}}`,
		`[]`, `{"jsonrpc":"2.0","id":9223372036854775808,"result":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := decodeEnvelope(b)
		if err != nil {
			return
		}
		if e.Method == "" && !e.HasResult && e.Error == nil {
			t.Fatal("accepted a frame that is neither request, notification nor response")
		}
		if e.HasID {
			responseID(e.ID)
		}
	})
}

func BenchmarkDecodeEnvelope(b *testing.B) {
	frame := []byte(`{"jsonrpc":"2.0","method":"action","params":{"channel":"ahp-chat:/9a0b77c1","serverSeq":96,"origin":{"clientId":"ahpls-3f9c2a","clientSeq":8},"action":{"type":"chat/toolCallComplete","turnId":"turn-4","toolCallId":"tc-8","result":{"success":true,"pastTenseMessage":"Collected 1 diagnostic"}}}}`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := decodeEnvelope(frame); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzActionEnvelope feeds arbitrary `action` notification params into a
// client following one session: nothing may panic, the mirror stays an
// object and serverSeq never goes backwards.
func FuzzActionEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"channel":"ahp-session:/a","serverSeq":5,"action":{"type":"session/titleChanged","title":"x"}}`,
		`{"channel":"ahp-session:/a","serverSeq":6,"origin":{"clientId":"ahpls-000000000000","clientSeq":1},"rejectionReason":"no","action":{"type":"session/titleChanged","title":"y"}}`,
		`{"channel":"ahp-session:/a","serverSeq":7,"action":{"type":"session/chatAdded","summary":{"resource":"ahp-chat:/c","title":"t","status":1,"modifiedAt":"x"}}}`,
		`{"channel":"ahp-session:/a","serverSeq":8,"action":{"type":"session/frob"}}`,
		`{"channel":"ahp-session:/a","serverSeq":"9","action":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		c, err := New(Options{URL: "ws://127.0.0.1:1/", ClientID: "ahpls-000000000000", Logger: discardLogger()})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conn := newRPCConn(context.Background(), nil, c.connection.log, nil, 0)
		c.mirror.mu.Lock()
		ch := c.ensureChannelLocked("ahp-session:/a", "session", "")
		ch.live, ch.confirmed = true, map[string]any{"title": "t", "chats": []any{}}
		ch.rendered = ch.confirmed
		c.mirror.mu.Unlock()
		before := c.ServerSeq()
		c.connection.onNotify(conn, "action", params)
		st, ok := c.State("ahp-session:/a")
		if !ok || st == nil {
			t.Fatal("channel lost or state nil")
		}
		if c.ServerSeq() < before {
			t.Fatal("serverSeq went backwards")
		}
	})
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// BenchmarkObserveEnablement is the worst case of learning the enablement
// shape on a 0.8.0 host: a boolean-only session whose customization list
// changes on every action (20 plugins), so every action decodes it.
func BenchmarkObserveEnablement(b *testing.B) {
	c, err := New(Options{URL: "ws://127.0.0.1:1", ClientID: "ahpls-bench", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(b, err)
	defer c.Close()
	d, err := wire.SelectDialect("0.8.0")
	require.NoError(b, err)
	c.negotiated.st.dialect = d
	list := make([]any, 20)
	for i := range list {
		list[i] = map[string]any{"type": "plugin", "id": fmt.Sprint("p", i), "uri": "file:///p", "name": "p", "enabled": true}
	}
	ch := &channelState{uri: "ahp-session:/b", kind: reduce.Session}
	b.ReportAllocs()
	for b.Loop() {
		ch.confirmed = map[string]any{"customizations": append([]any(nil), list...)}
		c.mirror.mu.Lock()
		c.observeEnablementLocked(ch)
		c.mirror.mu.Unlock()
	}
	if c.negotiated.st.observed != wire.EnablementBoolean {
		b.Fatalf("observed %v", c.negotiated.st.observed)
	}
}

// One entry that is not an object must not hide the shape of the others.
func TestDecodeCustomizationsSkipsBadEntries(t *testing.T) {
	list := []any{"not an entry", map[string]any{"type": "plugin", "id": "p", "uri": "file:///p", "name": "p",
		"enablement": []any{map[string]any{"kind": "global", "enabled": true}}}}
	got := decodeCustomizations(list)
	require.Len(t, got, 1)
	assert.Equal(t, "p", got[0].ID)
	assert.Equal(t, wire.EnablementScoped, wire.DetectEnablement(got))
	assert.Empty(t, decodeCustomizations([]any{1, "x"}))
}
