package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/ahptest"
)

// The `ahpls.hostHeaders` setting reaches the agent host with the
// WebSocket upgrade (connection auth precedes initialize).
func TestHostHeadersReachTheHost(t *testing.T) {
	bin := buildBinary(t)
	ws := t.TempDir()
	host := ahptest.New(ahptest.Options{ProtocolVersions: []string{"1.0.0"}})
	defer host.Close()
	var mu sync.Mutex
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		host.ServeHTTP(w, r)
	}))
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(srv.URL, "http")

	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir())
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(procRWC{stdout, stdin}))
	conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) { return nil, nil })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	init := fmt.Sprintf(`{"processId":null,"rootUri":%q,"capabilities":{},"workspaceFolders":[{"uri":%q,"name":"ws"}],
		"initializationOptions":{"host":%q,"hostHeaders":{"Authorization":"Bearer t0ken"}}}`, uri.File(ws), uri.File(ws), url)
	_, err = conn.Call(ctx, "initialize", json.RawMessage(init), nil)
	require.NoError(t, err)
	require.NoError(t, conn.Notify(ctx, "initialized", json.RawMessage(`{}`)))
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(auth) > 0 }, 30*time.Second, 20*time.Millisecond, "no connection; stderr:\n%s", stderr.String())
	mu.Lock()
	assert.Equal(t, "Bearer t0ken", auth[0])
	mu.Unlock()
	_, err = conn.Call(ctx, "shutdown", nil, nil)
	require.NoError(t, err)
	require.NoError(t, conn.Notify(ctx, "exit", nil))
	require.NoError(t, cmd.Wait())
}
