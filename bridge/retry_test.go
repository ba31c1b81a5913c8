package bridge_test

import (
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/bridge"
	"github.com/ahpls-dev/ahpls/internal/lspeditor"
)

// TestUnreachableHostSaysWhyAndWhen is #18's "retrying in N s with the last
// error": a host URL where nothing listens yields an ahpls/hostStatus
// "connecting" with a positive retryIn and the dial error.
func TestUnreachableHostSaysWhyAndWhen(t *testing.T) {
	// A loopback port that was free a moment ago: nothing listens there.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "ws://" + ln.Addr().String() + "/ahp?token=s3cret"
	require.NoError(t, ln.Close())

	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	ed, err := lspeditor.StartEditor(ctx, lspeditor.EditorOptions{
		Folders:  []string{t.TempDir()},
		Settings: map[string]any{"host": url},
		Bridge:   bridge.Config{StateDir: t.TempDir(), Getenv: func(string) string { return "" }},
	})
	require.NoError(t, err)
	t.Cleanup(ed.Close)

	var got bridge.HostStatus
	require.NoError(t, ed.Wait(ctx, func() bool {
		for _, st := range ed.HostStatuses() {
			if st.RetryIn > 0 {
				got = st
				return true
			}
		}
		return false
	}), "a hostStatus with retryIn; got %+v", ed.HostStatuses())
	assert.Equal(t, bridge.HostStateConnecting, got.State)
	assert.Equal(t, url, got.Host)
	assert.Contains(t, got.LastError, "connect")
	assert.Contains(t, got.Message, "retrying in")
	assert.NotContains(t, got.LastError, "s3cret", "the URL's token stays out of the status")
	t.Logf("status: %+v", got)
}
