package loopback

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// Both ends write a message before either reads: with net.Pipe this blocks
// for ever; the loopback pair buffers it, as an OS pipe does.
func TestBothEndsWriteBeforeReading(t *testing.T) {
	a, b, err := Pair()
	require.NoError(t, err)
	defer a.Close()
	defer b.Close()
	msg := make([]byte, 16<<10)
	_, err = a.Write(msg)
	require.NoError(t, err)
	_, err = b.Write(msg)
	require.NoError(t, err)
	got := make([]byte, len(msg))
	_, err = io.ReadFull(a, got)
	require.NoError(t, err)
	_, err = io.ReadFull(b, got)
	require.NoError(t, err)
}
