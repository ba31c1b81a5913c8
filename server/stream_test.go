package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

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
