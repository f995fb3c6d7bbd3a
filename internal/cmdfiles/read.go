package cmdfiles

import (
	"io"
	"io/fs"
	"os"
	"syscall"
)

// MaxScript bounds the size of a file Read reads; a larger file named by a
// command is not a script worth hashing.
const MaxScript = 1 << 20

// Read returns the content of the regular file p, and its permissions, when
// it has at most MaxScript bytes; ok is false for anything else (nothing
// there, a folder, a device, a file too large). It opens without blocking
// and checks the file it opened, so a FIFO put where a script was cannot
// hold the reader up.
func Read(p string) (content []byte, perm fs.FileMode, ok bool) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxScript {
		return nil, 0, false
	}
	content, err = io.ReadAll(io.LimitReader(f, MaxScript+1))
	if err != nil || len(content) > MaxScript {
		return nil, 0, false
	}
	return content, fi.Mode().Perm(), true
}
