package txtar

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// DefaultMaxFile is the largest file Pack takes by default: a workspace
// archive carries sources and notes, not data sets or build outputs.
const DefaultMaxFile = 1 << 20

// skippedDirs are the version control folders Pack leaves out (and files
// of those names, as in a git worktree): they are history, not the files a
// session starts from, and they are large.
var skippedDirs = []string{".git", ".hg", ".svn", ".jj", ".bzr"}

// PackOptions bound what Pack takes.
type PackOptions struct {
	// MaxFile is the largest file taken, in bytes; zero means
	// DefaultMaxFile.
	MaxFile int
	// MaxTotal bounds the files taken in all; zero means MaxSize, and no
	// value is taken above it.
	MaxTotal int
}

// Left is a path Pack left out of the archive, and why.
type Left struct {
	// Path is slash-separated and relative to the packed folder; a
	// folder's ends with /.
	Path string
	// Why says in a few words why it was left out.
	Why string
}

// Report says what Pack did not carry as it was.
type Report struct {
	// Left are the paths left out, in the order of the walk.
	Left []Left
	// Executable are files packed whose executable bit is lost, since an
	// archive keeps no permissions.
	Executable []string
}

// Pack makes an archive of the files under dir, in lexical order, and
// reports what it left out: version control folders, symbolic links and
// other files that are not regular, binary files, files larger than
// MaxFile, files the format cannot carry (a name it refuses, a line that
// reads as a file marker), and whatever would take the archive past
// MaxTotal.
func Pack(dir string, opts PackOptions) (*Archive, Report, error) {
	if opts.MaxFile <= 0 {
		opts.MaxFile = DefaultMaxFile
	}
	if opts.MaxTotal <= 0 || opts.MaxTotal > MaxSize {
		opts.MaxTotal = MaxSize
	}
	info, err := os.Stat(dir)
	switch {
	case err != nil:
		return nil, Report{}, err
	case !info.IsDir():
		return nil, Report{}, fmt.Errorf("%s is not a folder", dir)
	}
	a := &Archive{}
	var rep Report
	leave := func(rel, why string) { rep.Left = append(rep.Left, Left{Path: rel, Why: why}) }
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if path == dir {
			return err
		}
		rel, rerr := filepath.Rel(dir, path)
		if rerr != nil {
			return rerr
		}
		rel = filepath.ToSlash(rel)
		if err != nil {
			if d != nil && d.IsDir() {
				leave(rel+"/", "cannot be read: "+unwrapPath(err))
				return fs.SkipDir
			}
			leave(rel, "cannot be read: "+unwrapPath(err))
			return nil
		}
		switch {
		case d.IsDir() && slices.Contains(skippedDirs, d.Name()):
			leave(rel+"/", "version control history")
			return fs.SkipDir
		case slices.Contains(skippedDirs, d.Name()):
			// A git worktree's .git is a file naming where its
			// repository is: of no use anywhere else.
			leave(rel, "version control: a link to a repository elsewhere")
			return nil
		case d.IsDir():
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			leave(rel, "a symbolic link")
			return nil
		case !d.Type().IsRegular():
			leave(rel, "not a regular file")
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			leave(rel, "cannot be read: "+unwrapPath(err))
			return nil
		}
		if fi.Size() > int64(opts.MaxFile) {
			leave(rel, fmt.Sprintf("%s, over the %s a file may have", Size(fi.Size()), Size(int64(opts.MaxFile))))
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			leave(rel, "cannot be read: "+unwrapPath(err))
			return nil
		}
		if a.size+len(data) > opts.MaxTotal {
			leave(rel, fmt.Sprintf("%s, and the archive would pass its %s bound", Size(int64(len(data))), Size(int64(opts.MaxTotal))))
			return nil
		}
		if err := a.Add(rel, data); err != nil {
			var refused *addError
			if errors.As(err, &refused) && refused.why != "" {
				leave(rel, refused.why)
			} else {
				leave(rel, err.Error())
			}
			return nil
		}
		if fi.Mode()&0o111 != 0 {
			rep.Executable = append(rep.Executable, rel)
		}
		return nil
	})
	if err != nil {
		return nil, Report{}, err
	}
	return a, rep, nil
}

// unwrapPath drops the path from a file system error, which the report
// already names.
func unwrapPath(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Size writes a byte count for a person: 512 B, 12.3 KiB, 4.0 MiB.
func Size(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
