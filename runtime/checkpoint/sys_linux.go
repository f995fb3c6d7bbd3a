package checkpoint

import (
	"os"

	"golang.org/x/sys/unix"
)

// lstat describes the path p itself, not what a link at p points to. It
// goes to the system call directly: a snapshot of a large workspace is
// mostly lstat calls, and os.Lstat allocates for each.
func lstat(p string) (fileStat, error) {
	var st unix.Stat_t
	for {
		err := unix.Lstat(p, &st)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fileStat{}, &os.PathError{Op: "lstat", Path: p, Err: err}
		}
		break
	}
	return statOf(&st), nil
}

// fstat describes the open file f.
func fstat(f *os.File) (fileStat, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return fileStat{}, &os.PathError{Op: "fstat", Path: f.Name(), Err: err}
	}
	return statOf(&st), nil
}

func statOf(st *unix.Stat_t) fileStat {
	mode := os.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		mode |= os.ModeDir
	case unix.S_IFLNK:
		mode |= os.ModeSymlink
	case unix.S_IFREG:
	default:
		mode |= os.ModeIrregular
	}
	return fileStat{
		size:  st.Size,
		mtime: st.Mtim.Nano(),
		ctime: st.Ctim.Nano(),
		ino:   st.Ino,
		mode:  mode,
	}
}

// openNoFollow opens p for reading, refusing a symbolic link (a file may be
// swapped for one between the walk's lstat and the read) and never
// blocking on a named pipe.
func openNoFollow(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
}

// dirHandle is a folder held open while a walk lists it and looks at its
// entries: each entry is then looked up by name in the folder, not by its
// whole path from the root.
type dirHandle struct {
	f  *os.File
	fd int
}

// openDir opens the folder p, refusing a symbolic link.
func openDir(p string) (*dirHandle, error) {
	for {
		fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: p, Err: err}
		}
		return &dirHandle{f: os.NewFile(uintptr(fd), p), fd: fd}, nil
	}
}

// entries lists the folder.
func (d *dirHandle) entries() ([]os.DirEntry, error) { return d.f.ReadDir(-1) }

// lstat describes the entry name of the folder itself, not what a link
// points to.
func (d *dirHandle) lstat(name string) (fileStat, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fileStat{}, &os.PathError{Op: "lstat", Path: name, Err: err}
		}
		return statOf(&st), nil
	}
}

func (d *dirHandle) close() { d.f.Close() }

// syncFS flushes the whole file system holding dir: one call instead of
// an fsync per object when a snapshot wrote many.
func syncFS(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}
