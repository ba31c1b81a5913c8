//go:build !linux

package wsfs

import "os"

// listDir lists dir through os.ReadDir (which also sorts; the walker's sort
// then finds the order done). The walker never enters a symlinked folder
// below its start, so follow needs no flag here.
func listDir(dir string, follow bool) ([]dirEntry, error) {
	des, err := os.ReadDir(dir)
	out := make([]dirEntry, 0, len(des))
	for _, de := range des {
		out = append(out, dirEntry{name: de.Name(), typ: de.Type()})
	}
	return out, err
}
