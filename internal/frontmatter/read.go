package frontmatter

import (
	"errors"
	"io"
	"os"
)

// The ways ReadFile refuses a file, besides the file system's own errors.
var (
	// ErrNotRegular is a path that is not a regular file: opening a FIFO
	// would block, and a folder or device is no Markdown file.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge is a file larger than the bound, checked before it is
	// read and again while it is, in case it grew meanwhile.
	ErrTooLarge = errors.New("too large")
)

// ReadFile reads the file at path whole, refusing what is not a regular file
// (ErrNotRegular) or holds more than max bytes (ErrTooLarge). Any other error
// is the file system's, as os.Stat, os.Open or the read returned it.
func ReadFile(path string, max int64) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, ErrNotRegular
	}
	if info.Size() > max {
		return nil, ErrTooLarge
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// One byte more than allowed shows a file that grew since Stat.
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, ErrTooLarge
	}
	return data, nil
}
