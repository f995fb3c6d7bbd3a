package workspace

import (
	"io/fs"
	"syscall"
	"time"
)

// changeTime returns the status change time of the file info describes.
func changeTime(info fs.FileInfo) (time.Time, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(st.Ctim.Sec, st.Ctim.Nsec), true
}
