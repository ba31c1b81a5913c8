//go:build !unix && !windows

package wsfs

import "os"

// linkCount is unknown here (no hard links to count).
func linkCount(*os.File) (uint64, bool) { return 1, false }
