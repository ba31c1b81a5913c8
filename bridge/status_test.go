package bridge_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/bridge"
	"github.com/ahpls-dev/ahpls/internal/lspeditor"
)

// With no host configured the bridge still reports a status (#18): editors
// showed "not reported yet" forever. Exactly one, and nothing else.
func TestHostStatusWithoutHost(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	ed, err := lspeditor.StartEditor(ctx, lspeditor.EditorOptions{
		Folders: []string{t.TempDir()},
		Bridge:  bridge.Config{StateDir: t.TempDir(), Getenv: func(string) string { return "" }},
	})
	require.NoError(t, err)
	t.Cleanup(ed.Close)
	require.NoError(t, ed.Wait(ctx, func() bool { return len(ed.HostStatuses()) > 0 }))
	// A request after initialized: every notification of initialized is out.
	require.NoError(t, ed.Call(ctx, "shutdown", nil, nil))
	assert.Equal(t, []bridge.HostStatus{{State: bridge.HostStateDisconnected, Message: bridge.HostStatusNoHost}}, ed.HostStatuses())
}

// The payload the editor extensions read (editors/vscode, editors/nvim):
// every state with its fields, byte for byte as before the bridge owned it.
func TestHostStatusPayload(t *testing.T) {
	for _, tc := range []struct {
		st   bridge.HostStatus
		want string
	}{
		{bridge.HostStatus{State: bridge.HostStateDisconnected, Message: bridge.HostStatusNoHost},
			`{"state":"disconnected","message":"no agent host configured (ahpls.host)"}`},
		{bridge.HostStatus{State: bridge.HostStateConnecting, Host: "ws://127.0.0.1:1"},
			`{"state":"connecting","host":"ws://127.0.0.1:1"}`},
		{bridge.HostStatus{State: bridge.HostStateConnecting, Host: "ws://127.0.0.1:1", Message: "retrying in 4 s (x)", RetryIn: 4, LastError: "dial tcp 127.0.0.1:1: connect: connection refused"},
			`{"state":"connecting","message":"retrying in 4 s (x)","host":"ws://127.0.0.1:1","retryIn":4,"lastError":"dial tcp 127.0.0.1:1: connect: connection refused"}`},
		{bridge.HostStatus{State: bridge.HostStateConnected, Host: "ws://127.0.0.1:9", Message: "connected to h (AHP 1.1.0)", HostBuild: "b7", ReadOnly: true},
			`{"state":"connected","message":"connected to h (AHP 1.1.0)","host":"ws://127.0.0.1:9","hostBuild":"b7","readOnly":true}`},
		{bridge.HostStatus{State: bridge.HostStateRefused, Host: "ws://127.0.0.1:9", Message: "no common protocol version", HostVersions: []string{"2.0.0"}, ClientVersions: []string{"1.0.0", "0.9.0"}},
			`{"state":"refused","message":"no common protocol version","host":"ws://127.0.0.1:9","hostVersions":["2.0.0"],"clientVersions":["1.0.0","0.9.0"]}`},
	} {
		b, err := json.Marshal(tc.st)
		require.NoError(t, err)
		assert.Equal(t, tc.want, string(b))
	}
	assert.Equal(t, "ahpls/hostStatus", bridge.MethodHostStatus, "the method name the editors listen to")
}
