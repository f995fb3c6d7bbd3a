package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// A write's temporary file lies beside its target, in the same folder: only
// there is a rename sure to stay on one file system (a folder of the
// session's, or even a subfolder of the workspace, may be another mount),
// and only the rename makes the write atomic. Its name says whose it is:
//
//	.<base>.agenttui-<pid>-<16 hex digits>.tmp
//
// A write that fails or is cancelled removes its file. A process killed
// outright cannot, so a leftover is made harmless and collected: list_dir,
// glob and grep never show one, and the next write into the same folder
// removes those whose process is gone (or is this process, which is not
// writing them).
const (
	tempMark   = ".agenttui-"
	tempSuffix = ".tmp"
	// maxNameBytes is the longest file name most file systems take.
	maxNameBytes = 255
)

// writing holds the tokens (pid-hex) of the temporary files this process
// is writing now, so that collecting never takes one of its own.
var writing = struct {
	sync.Mutex
	tokens map[string]bool
}{tokens: map[string]bool{}}

// createTemp creates a new, empty file with permissions perm in dir, named
// after base, so a leftover shows which file it belonged to. The caller
// writes it and calls the returned done once the file is renamed or
// removed.
func createTemp(root *os.Root, dir, base string, perm fs.FileMode) (name string, f *os.File, done func(), err error) {
	// The name must stay within what a folder takes, however long base is.
	// 20 digits hold any pid.
	if room := maxNameBytes - len(".") - len(tempMark) - 20 - len("-") - 16 - len(tempSuffix); len(base) > room {
		for room > 0 && !utf8.RuneStart(base[room]) {
			room--
		}
		base = base[:room]
	}
	for range 100 {
		token := fmt.Sprintf("%d-%016x", os.Getpid(), rand.Uint64())
		writing.Lock()
		writing.tokens[token] = true
		writing.Unlock()
		done = func() {
			writing.Lock()
			delete(writing.tokens, token)
			writing.Unlock()
		}
		name = path.Join(dir, "."+base+tempMark+token+tempSuffix)
		f, err = root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			done()
			continue
		}
		if err != nil {
			done()
			return "", nil, nil, err
		}
		return name, f, done, nil
	}
	return "", nil, nil, fmt.Errorf("could not create a temporary file beside %s", base)
}

// tempToken returns the pid and the token of a write's temporary file
// named name, and whether name is one.
func tempToken(name string) (pid int, token string, ok bool) {
	if !strings.HasPrefix(name, ".") || !strings.HasSuffix(name, tempSuffix) {
		return 0, "", false
	}
	rest := strings.TrimSuffix(name, tempSuffix)
	i := strings.LastIndex(rest, tempMark)
	if i < 0 {
		return 0, "", false
	}
	token = rest[i+len(tempMark):]
	p, hex, found := strings.Cut(token, "-")
	if !found || len(hex) != 16 || strings.Trim(hex, "0123456789abcdef") != "" {
		return 0, "", false
	}
	pid, err := strconv.Atoi(p)
	if err != nil || pid <= 0 {
		return 0, "", false
	}
	return pid, token, true
}

// isWriteTemp reports whether name is the name of a write's temporary
// file, which listings and searches leave out.
func isWriteTemp(name string) bool {
	_, _, ok := tempToken(name)
	return ok
}

// stale reports whether the temporary file named name is a leftover: the
// process that wrote it is gone, or it is this process, which is not
// writing it.
func stale(name string) bool {
	pid, token, ok := tempToken(name)
	if !ok {
		return false
	}
	if pid == os.Getpid() {
		writing.Lock()
		defer writing.Unlock()
		return !writing.tokens[token]
	}
	return errors.Is(unix.Kill(pid, 0), unix.ESRCH)
}

// collectStale removes the leftover temporary files of writes in the
// folder dir of root. It reads only the folder's names, and gives up
// quietly: a leftover that stays is hidden all the same.
func collectStale(root *os.Root, dir string) {
	d, err := root.Open(dir)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, n := range names {
		if !stale(n) {
			continue
		}
		p := path.Join(dir, n)
		if info, err := root.Lstat(p); err == nil && info.Mode().IsRegular() {
			root.Remove(p)
		}
	}
}
