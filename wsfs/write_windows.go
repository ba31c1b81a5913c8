//go:build windows

package wsfs

import (
	"os"
	"syscall"
)

// linkCount is the number of hard links of the open file.
func linkCount(f *os.File) (uint64, bool) {
	var info syscall.ByHandleFileInformation
	if err := syscall.GetFileInformationByHandle(syscall.Handle(f.Fd()), &info); err != nil {
		return 0, false
	}
	return uint64(info.NumberOfLinks), true
}
