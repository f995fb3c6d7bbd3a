package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"golang.org/x/sys/unix"

	"github.com/agenttui/agenttui/internal/ignore"
)

// walker walks a folder of the workspace on several goroutines at once,
// leaving out .git and what the ignore files ignore. glob, grep and
// list_dir all see the tree through it.
//
// Every folder and file is opened relative to its parent folder's open
// descriptor with O_NOFOLLOW, so the walk never follows a symbolic link:
// links are reported as entries, and one swapped in for a folder while the
// walk runs is not entered. Nothing outside the workspace is opened.
//
// The callbacks run on the walk's goroutines, several at once; the walk
// itself promises no order, so callers sort what they collect.
type walker struct {
	// includeIgnored turns the ignore files off.
	includeIgnored bool
	// enter reports whether the walk goes into the folder rel. It may be
	// asked more than once about one folder; nil enters every folder.
	enter func(rel string) bool
	// visit is called for every entry that is not ignored, on the goroutine
	// that lists its folder. For a regular file, true queues it for work.
	visit func(e *entry) bool
	// work is called for each queued file, on any goroutine, while the
	// file's folder is held open.
	work func(e *entry)
	// ignored is called for each ignored entry the walk leaves out.
	ignored func(rel string, isDir bool)
	// limit is how many entries the walk examines before it stops with
	// errWalkLimit; 0 means walkMaxEntries.
	limit int64
}

// entry is one entry of a walked folder.
type entry struct {
	// rel is the workspace-relative path.
	rel  string
	name string
	// typ holds the type bits of the entry itself (a link is a link).
	typ fs.FileMode
	// dir is the open folder holding the entry; it stays open while the
	// callbacks run.
	dir *openDir
}

// openDir is a folder held open for the entries of it still queued. The
// last of them to finish closes it.
type openDir struct {
	f    *os.File
	fd   int
	refs atomic.Int32
}

func (d *openDir) release() {
	if d.refs.Add(-1) == 0 {
		d.f.Close()
	}
}

// openAt opens the entry name of folder d for reading, refusing links, and
// without blocking on a named pipe.
func (d *openDir) openAt(name string) (int, error) {
	for {
		fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// readFileAt reads the regular file name of folder d whole into (*buf), which
// it grows as needed and reuses, unless it is larger than limit. It returns
// the content and the file's size; content is nil when the file is too
// large or not a regular file.
func (d *openDir) readFileAt(name string, limit int64, buf *[]byte) ([]byte, int64, error) {
	fd, err := d.openAt(name)
	if err != nil {
		return nil, 0, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, 0, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > limit {
		return nil, st.Size, nil
	}
	size := int(st.Size)
	if cap(*buf) < size {
		*buf = make([]byte, size+size/8)
	}
	data := (*buf)[:size]
	n := 0
	for n < size {
		m, err := unix.Read(fd, data[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, st.Size, err
		}
		if m == 0 {
			break
		}
		n += m
	}
	return data[:n], st.Size, nil
}

// job is a folder to list or a file to work on.
type job struct {
	// parent holds the folder or file; the job owns one reference to it.
	parent *openDir
	name   string
	rel    string
	// A folder's job also carries the components its ignore patterns match
	// and the rules in force above it.
	isDir bool
	comps []string
	rules *ignoreRules
}

// queue is the walk's work list, a stack: the last job pushed is taken
// first, so a lone goroutine would walk depth first in name order, and
// several stay close to that order, which lets grep's match cap prune most
// of the tree once it is reached.
type queue struct {
	// mu guards jobs and pending.
	mu   sync.Mutex
	cond sync.Cond
	jobs []job
	// pending counts jobs pushed and not yet finished; the walk is over
	// when it drops to zero.
	pending int
}

func (q *queue) push(js []job) {
	if len(js) == 0 {
		return
	}
	q.mu.Lock()
	q.jobs = append(q.jobs, js...)
	q.pending += len(js)
	q.mu.Unlock()
	q.cond.Broadcast()
}

// take returns the next job, waiting while others may still push some; ok
// is false when the walk is over.
func (q *queue) take() (j job, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.jobs) == 0 && q.pending > 0 {
		q.cond.Wait()
	}
	if len(q.jobs) == 0 {
		return job{}, false
	}
	j = q.jobs[len(q.jobs)-1]
	q.jobs[len(q.jobs)-1] = job{}
	q.jobs = q.jobs[:len(q.jobs)-1]
	return j, true
}

func (q *queue) finish() {
	q.mu.Lock()
	q.pending--
	over := q.pending == 0
	q.mu.Unlock()
	if over {
		q.cond.Broadcast()
	}
}

// walkRun is the state of one walk.
type walkRun struct {
	*walker
	ctx      context.Context
	q        queue
	examined atomic.Int64
	// stop is set when the walk must end early: the context ended or the
	// entry limit was reached. Jobs still queued are then dropped.
	stop atomic.Bool
	// errMu guards err.
	errMu sync.Mutex
	err   error
}

func (r *walkRun) fail(err error) {
	r.errMu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.errMu.Unlock()
	r.stop.Store(true)
}

// walk walks the folder start (workspace-relative, resolved, "." for the
// root) with rules in force above it; nil rules ignore nothing. It returns
// errWalkLimit when it stopped at its entry limit, the context's error when
// that ended it, or the error opening start. It returns once no callback
// runs any more and every folder it opened is closed.
func (w *Workspace) walk(ctx context.Context, start string, rules *ignoreRules, wk *walker) error {
	parent, name, err := w.openParent(start)
	if err != nil {
		return err
	}
	r := &walkRun{walker: wk, ctx: ctx}
	if r.limit == 0 {
		r.limit = walkMaxEntries
	}
	r.q.cond.L = &r.q.mu
	if wk.includeIgnored {
		rules = nil
	}
	comps := []string(nil)
	if rules != nil {
		comps = rules.comps(start)
	}
	r.q.push([]job{{parent: parent, name: name, rel: start, isDir: true, comps: comps, rules: rules}})

	// The first job is the start folder, whose failure is the walk's.
	first, _ := r.q.take()
	if err := r.listDir(first, true); err != nil {
		r.q.finish()
		return err
	}
	r.q.finish()

	workers := max(runtime.GOMAXPROCS(0), 1)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				j, ok := r.q.take()
				if !ok {
					return
				}
				r.do(j)
				r.q.finish()
			}
		})
	}
	wg.Wait()
	return r.err
}

// do runs one job, or drops it when the walk is stopping.
func (r *walkRun) do(j job) {
	if r.stop.Load() {
		j.parent.release()
		return
	}
	if err := r.ctx.Err(); err != nil {
		r.fail(err)
		j.parent.release()
		return
	}
	if !j.isDir {
		e := entry{rel: j.rel, name: j.name, typ: 0, dir: j.parent}
		r.work(&e)
		j.parent.release()
		return
	}
	// A folder that cannot be read is left out rather than ending the walk.
	_ = r.listDir(j, false)
}

// listDir lists the folder of job j, hands its entries to the callbacks and
// queues its subfolders and the files to work on.
func (r *walkRun) listDir(j job, first bool) error {
	if !first && r.enter != nil && !r.enter(j.rel) {
		j.parent.release()
		return nil
	}
	fd, err := openDirAt(j.parent.fd, j.name)
	j.parent.release()
	if err != nil {
		return err
	}
	dir := &openDir{f: os.NewFile(uintptr(fd), j.rel), fd: fd}
	dir.refs.Store(1)
	defer dir.release()
	ents, err := dir.f.ReadDir(-1)
	if err != nil && len(ents) == 0 {
		return err
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })

	rules := j.rules
	if rules != nil {
		rules = rules.with(r.ownPatterns(dir, ents, j.comps))
	}
	var scratch []string
	if rules.active() {
		scratch = append(make([]string, 0, len(j.comps)+1), j.comps...)
	}
	var queued []job
	for _, d := range ents {
		name := d.Name()
		if name == skipName || d.Type().IsRegular() && isWriteTemp(name) {
			// A write's temporary file is never the model's to see: one
			// a killed process left behind is collected later.
			continue
		}
		if r.examined.Add(1) > r.limit {
			r.fail(errWalkLimit)
			break
		}
		rel := name
		if j.rel != "." {
			rel = j.rel + "/" + name
		}
		isDir := d.IsDir()
		if rules.active() && rules.ignored(append(scratch, name), isDir) {
			if r.ignored != nil {
				r.ignored(rel, isDir)
			}
			continue
		}
		e := entry{rel: rel, name: name, typ: d.Type(), dir: dir}
		want := r.visit != nil && r.visit(&e) && r.work != nil
		switch {
		case isDir:
			if r.enter != nil && !r.enter(rel) {
				continue
			}
			var comps []string
			if rules != nil {
				comps = append(append(make([]string, 0, len(j.comps)+1), j.comps...), name)
			}
			dir.refs.Add(1)
			queued = append(queued, job{parent: dir, name: name, rel: rel, isDir: true, comps: comps, rules: rules})
		case want && e.typ.IsRegular():
			dir.refs.Add(1)
			queued = append(queued, job{parent: dir, name: name, rel: rel})
		}
	}
	// Reversed, so that the first by name is taken first.
	slices.Reverse(queued)
	r.q.push(queued)
	return nil
}

// ownPatterns reads the ignore files among the entries of the open folder.
func (r *walkRun) ownPatterns(dir *openDir, ents []fs.DirEntry, comps []string) []gitignore.Pattern {
	var ps []gitignore.Pattern
	for _, name := range ignore.Files {
		i, found := slices.BinarySearchFunc(ents, name, func(e fs.DirEntry, n string) int { return strings.Compare(e.Name(), n) })
		if !found || !ents[i].Type().IsRegular() {
			continue
		}
		var buf []byte
		if data, _, err := dir.readFileAt(name, 1<<20, &buf); err == nil && data != nil {
			ps = append(ps, ignore.Parse(data, comps)...)
		}
	}
	return ps
}

// openDirAt opens the folder name of the folder open as dirfd, refusing a
// symbolic link.
func openDirAt(dirfd int, name string) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			if err != nil {
				return -1, &fs.PathError{Op: "open", Path: name, Err: err}
			}
			return fd, nil
		}
	}
}

// openParent opens the folder holding start, going down from the workspace
// root one component at a time without following links, and returns it with
// start's last component ("." for the root itself).
func (w *Workspace) openParent(start string) (*openDir, string, error) {
	fd, err := unix.Open(w.root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, "", &fs.PathError{Op: "open", Path: ".", Err: err}
	}
	name := "."
	if start != "." {
		parts := strings.Split(start, "/")
		for _, p := range parts[:len(parts)-1] {
			next, err := openDirAt(fd, p)
			unix.Close(fd)
			if err != nil {
				return nil, "", err
			}
			fd = next
		}
		name = parts[len(parts)-1]
	}
	d := &openDir{f: os.NewFile(uintptr(fd), path.Dir(start)), fd: fd}
	d.refs.Store(1)
	return d, name, nil
}

// errWalkLimit ends a walk that examined walkMaxEntries entries.
var errWalkLimit = errors.New("walk limit reached")
