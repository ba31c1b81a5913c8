package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// TestReplyOvertakesWaitingNotifications: while the editor is not reading
// (a frame is stuck on the wire) and notifications wait for their turn, a
// reply that comes later is written before them. During a workspace scan
// the publisher has thousands of publishDiagnostics to write; a hover's
// answer must not queue behind them (#30).
func TestReplyOvertakesWaitingNotifications(t *testing.T) {
	for _, second := range []string{"notification", "request"} {
		t.Run(second, func(t *testing.T) {
			pr, pw := io.Pipe()
			defer pr.Close()
			st := newLSPStream(pipeRWC{Reader: strings.NewReader(""), Writer: pw}, slog.New(slog.DiscardHandler))
			low := withLowPriority(context.Background())
			errs := make(chan error, 3)
			write := func(ctx context.Context, m jsonrpc2.Message) {
				go func() { _, err := st.Write(ctx, m); errs <- err }()
			}

			// The first notification takes the wire and stays there: nobody reads.
			write(low, jsonrpc2.NewNotification("first", nil))
			waitGate(t, st, func() bool { return st.busy })
			write(low, jsonrpc2.NewNotification("second", nil))
			waitGate(t, st, func() bool { return st.waitN == 1 })
			var urgent jsonrpc2.Message = jsonrpc2.NewResponse(jsonrpc2.NewNumberID(7), []byte(`"answer"`), nil)
			want := `"answer"`
			if second == "request" {
				urgent = jsonrpc2.NewCall(jsonrpc2.NewNumberID(8), "workspace/configuration", nil)
				want = "workspace/configuration"
			}
			write(context.Background(), urgent)
			waitGate(t, st, func() bool { return st.waitN == 2 })

			br := bufio.NewReader(pr)
			var got []string
			for range 3 {
				got = append(got, readBody(t, br))
			}
			for range 3 {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
			if !strings.Contains(got[0], `"first"`) || !strings.Contains(got[1], want) || !strings.Contains(got[2], `"second"`) {
				t.Fatalf("frames in the order %q; want the first notification, then the %s, then the waiting notification", got, second)
			}
		})
	}
}

// TestWriteFrames: a frame's header gives its body's exact length, for
// bodies whose length has a different number of digits.
func TestWriteFrames(t *testing.T) {
	for _, n := range []int{0, 5, 100, 5000, 200000} {
		var sb strings.Builder
		st := newLSPStream(pipeRWC{Reader: strings.NewReader(""), Writer: &sb}, slog.New(slog.DiscardHandler))
		params := []byte(`"` + strings.Repeat("x", n) + `"`)
		if _, err := st.Write(context.Background(), jsonrpc2.NewNotification("m", params)); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(strings.NewReader(sb.String()))
		body := readBody(t, br)
		if !strings.HasSuffix(body, string(params)+"}") {
			t.Fatalf("n=%d: body %.60q… does not end with the params", n, body)
		}
		if rest, _ := io.ReadAll(br); len(rest) != 0 {
			t.Fatalf("n=%d: %d bytes after the frame", n, len(rest))
		}
	}
}

// waitGate waits until cond holds under the stream's gate lock.
func waitGate(t *testing.T, st *lspStream, cond func() bool) {
	t.Helper()
	for {
		st.gate.Lock()
		ok := cond()
		st.gate.Unlock()
		if ok {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// readBody reads one Content-Length frame and returns its body.
func readBody(t *testing.T, br *bufio.Reader) string {
	t.Helper()
	n := -1
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			if _, err := fmt.Sscan(v, &n); err != nil {
				t.Fatal(err)
			}
		}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(br, body); err != nil {
		t.Fatal(err)
	}
	return string(body)
}
