//go:build !linux

package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
)

// lstat describes the path p itself, not what a link at p points to.
// Without the inode and change time, the stat cache relies on size and
// modification time alone.
func lstat(p string) (fileStat, error) {
	info, err := os.Lstat(p)
	if err != nil {
		return fileStat{}, err
	}
	return statOfInfo(info), nil
}

// fstat describes the open file f.
func fstat(f *os.File) (fileStat, error) {
	info, err := f.Stat()
	if err != nil {
		return fileStat{}, err
	}
	return statOfInfo(info), nil
}

func statOfInfo(info os.FileInfo) fileStat {
	mode := info.Mode() & (os.ModePerm | os.ModeDir | os.ModeSymlink)
	if !info.Mode().IsRegular() && mode&(os.ModeDir|os.ModeSymlink) == 0 {
		mode |= os.ModeIrregular
	}
	t := info.ModTime().UnixNano()
	return fileStat{size: info.Size(), mtime: t, ctime: t, mode: mode}
}

// openNoFollow opens p for reading; the caller checks that the file it got
// is the regular file it expected.
func openNoFollow(p string) (*os.File, error) { return os.Open(p) }

// dirHandle is a folder a walk lists.
type dirHandle struct{ path string }

func openDir(p string) (*dirHandle, error) {
	st, err := lstat(p)
	if err != nil {
		return nil, err
	}
	if !st.mode.IsDir() {
		return nil, &os.PathError{Op: "open", Path: p, Err: errors.New("not a folder")}
	}
	return &dirHandle{path: p}, nil
}

func (d *dirHandle) entries() ([]os.DirEntry, error) { return os.ReadDir(d.path) }

func (d *dirHandle) lstat(name string) (fileStat, error) {
	return lstat(filepath.Join(d.path, name))
}

func (d *dirHandle) close() {}

// syncFS is not available here: the caller falls back to an fsync per
// file.
func syncFS(string) error { return errors.ErrUnsupported }
