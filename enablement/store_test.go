package enablement

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStoreCorruptFiles(t *testing.T) {
	tests := []struct {
		name string
		data []byte
	}{
		{"bad json", []byte(`{"version":1,`)},
		{"bad shape", []byte(`{"version":1,"global":{"k":"yes"},"lru":[]}`)},
		{"bad version", []byte(`{"version":2,"global":{"k":false},"lru":[]}`)},
		{"no version", []byte(`{"global":{"k":false}}`)},
		{"bad lru scope", []byte(`{"version":1,"global":{"k":false},"lru":[{"scope":"session","key":"k"}]}`)},
		{"trailing data", []byte(`{"version":1,"lru":[]} {}`)},
		{"too large", append([]byte(`{"version":1,"lru":[]}`), bytes.Repeat([]byte(" "), maxStoreFile)...)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "enablement.json")
			require.NoError(t, os.WriteFile(path, tc.data, 0o600))
			log, logs := newLog()
			s := OpenStore(path, log)
			assert.Zero(t, s.Len())
			assert.Equal(t, 1, logs.count("level=WARN"), logs.String())
			assert.Contains(t, logs.String(), path)
			kept, err := os.ReadFile(path + ".corrupt")
			require.NoError(t, err)
			assert.Equal(t, tc.data, kept)
			_, err = os.Stat(path)
			assert.ErrorIs(t, err, os.ErrNotExist)
			require.NoError(t, s.SetGlobal("k", false)) // the store works afterwards
			assert.Equal(t, 1, OpenStore(path, log).Len())
		})
	}
}

func TestStoreLoadReconcilesLRU(t *testing.T) {
	path := filepath.Join(t.TempDir(), "enablement.json")
	// "b" has no LRU entry, "gone" has no decision, "a" is listed.
	require.NoError(t, os.WriteFile(path, []byte(`{"version":1,"global":{"a":false,"c":false,"b":true},
		"workingDirectories":{"file:///d":{"w":false},"file:///empty":{}},
		"lru":[{"scope":"global","key":"gone"},{"scope":"global","key":"c"},{"scope":"global","key":"c"}]}`), 0o600))
	s := OpenStore(path, nil)
	assert.Equal(t, 4, s.Len())
	var order []string
	for el := s.lru.Front(); el != nil; el = el.Next() {
		order = append(order, el.Value.(lruEntry).Key)
	}
	assert.Equal(t, []string{"c", "a", "b", "w"}, order, "listed first, then the rest by key")
	assert.Equal(t, []string{"file:///d"}, s.Dirs(), "empty maps pruned")
}

func TestStoreRemovesFileWhenEmpty(t *testing.T) {
	path := filepath.Join(t.TempDir(), "enablement.json")
	s := OpenStore(path, nil)
	require.NoError(t, s.SetWorkspace("file:///d", "k", false))
	_, err := os.Stat(path)
	require.NoError(t, err)
	existed, err := s.DeleteWorkspace("file:///d", "k")
	require.NoError(t, err)
	assert.True(t, existed)
	_, err = os.Stat(path)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestStoreAtomicWriteKeepsOldFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "enablement.json")
	s := OpenStore(path, nil)
	require.NoError(t, s.SetGlobal("old", false))
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	s.beforeRename = func() error { return errors.New("power cut") }
	require.Error(t, s.SetGlobal("new", false))
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, after)
	re := OpenStore(path, nil)
	_, ok := re.Global("old")
	assert.True(t, ok)
	_, ok = re.Global("new")
	assert.False(t, ok, "the interrupted write never became visible")
	temps, _ := filepath.Glob(path + tempInfix + "*")
	assert.Empty(t, temps)
}

func TestSessionFilesMalformedCountsAsLoaded(t *testing.T) {
	h := newHarness(t)
	require.NoError(t, os.MkdirAll(h.data.Dir, 0o700))
	require.NoError(t, os.WriteFile(h.data.file(sess2), []byte(`{"x":`), 0o600))
	h.sessions.on(sess2, repo)
	h.ov.InitSession(sess2)
	assert.Equal(t, Resolution{List: List{}}, h.resolve(sess2, fixture), "empty and loaded, not pending")
	assert.Equal(t, 1, h.logs.count("level=WARN"))
}

func FuzzOpenStore(f *testing.F) {
	f.Add([]byte(`{"version":1,"global":{"a":false},"workingDirectories":{"d":{"b":true}},"lru":[{"scope":"global","key":"a"}]}`))
	f.Add([]byte(`{"version":1,"folder":"x","lru":null}`))
	f.Add([]byte(`null`))
	// In memory: the decoder and the loader are what untrusted bytes reach;
	// file handling is covered by the corrupt-file and atomic-write tests,
	// and a temp dir per input made this target too slow to fuzz.
	f.Fuzz(func(t *testing.T, data []byte) {
		s := OpenStore("", slogDiscard())
		if sf, err := decodeStoreFile(data, ""); err == nil {
			s.load(sf)
		}
		if s.Len() > StoreCapacity {
			t.Fatalf("over capacity: %d", s.Len())
		}
		snap := s.Snapshot()
		n := len(snap.Global)
		for _, m := range snap.WorkingDirectories {
			n += len(m)
		}
		if n != s.Len() {
			t.Fatalf("decisions %d != lru %d", n, s.Len())
		}
	})
}
