package virtualplugin

import (
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ReadJSON answers as Read does, encodes each content once (a second read
// shares the first encoding), and re-reads once the file is no longer what
// was published.
func TestReadJSONCachesByContentHash(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "big.bin")
	data := []byte{0, 1, 2, 3, 0xff}
	require.NoError(t, os.WriteFile(src, data, 0o644))
	p := &Plugin{Name: "p", Files: []*File{{VPath: "big.bin", Source: src, Sum: sha256.Sum256(data), Size: int64(len(data))}}}
	s := NewServer()
	s.Publish(&Snapshot{Folder: root, Key: "k", Plugins: []*Plugin{p}})
	uri := PluginURI("k", "p") + "/big.bin"

	want, err := s.Read(uri, "")
	require.NoError(t, err)
	raw, err := s.ReadJSON(uri, "")
	require.NoError(t, err)
	var got ReadResult
	require.NoError(t, json.Unmarshal(raw, &got))
	assert.Equal(t, *want, got)
	again, err := s.ReadJSON(uri, "")
	require.NoError(t, err)
	assert.Same(t, &raw[0], &again[0], "the second read shares the cached encoding")

	// Changed on disk: not what was published, so no cached answer.
	require.NoError(t, os.WriteFile(src, []byte("changed, and longer"), 0o644))
	_, err = s.ReadJSON(uri, "")
	var ve *Error
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, CodeNotFound, ve.Code)
}
