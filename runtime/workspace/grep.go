package workspace

import (
	"bytes"
	"container/heap"
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/agenttui/agenttui/runtime/tool"
)

type grepArgs struct {
	Pattern        string `json:"pattern"`
	Path           string `json:"path"`
	Include        string `json:"include"`
	IncludeIgnored bool   `json:"include_ignored"`
}

func (w *Workspace) grepTool() tool.Tool {
	return &builtin[grepArgs]{
		decl: tool.Declaration{
			Name: "grep",
			Description: "Search the text files of the workspace for lines matching a regular expression (Go RE2 " +
				"syntax, e.g. func \\w+\\( ; use (?i) for case-insensitive matching). path limits the search to a " +
				"folder or one file (default: the whole workspace); include keeps only files whose name matches a " +
				"glob such as *.go, or whose workspace-relative path matches it when it contains a /. Each match is " +
				"printed as path:line: text, sorted by path and line. Files and folders that .gitignore, .ignore " +
				"or git's exclude files ignore are not searched unless include_ignored is true or path names " +
				"them; the result says how many were left out. Binary files, files over 16 MiB and the .git " +
				"folder are skipped, long lines are cut, and at most 200 matches are shown.",
			Parameters: schema(`{
				"pattern": {"type": "string", "minLength": 1, "description": "Regular expression (Go RE2 syntax) to search for."},
				"path": {"type": "string", "description": "Folder or file to search, relative to the workspace root; default the root."},
				"include": {"type": "string", "description": "Glob on file names (e.g. *.go) or relative paths (e.g. src/**/*.ts)."},
				"include_ignored": {"type": "boolean", "description": "Also search what ignore files (.gitignore, .ignore) leave out; default false."}
			}`, "pattern"),
			Annotations: tool.Annotations{Title: "Search files", ReadOnly: true, Idempotent: true},
			More:        "narrow the pattern, the path or include to see the rest",
		},
		footprint: func(a grepArgs) tool.Touches { return tool.Reads(tool.Paths(w.footprintPath(orRoot(a.Path)))) },
		run:       w.grep,
	}
}

func (w *Workspace) grep(ctx context.Context, a grepArgs) tool.Return {
	for _, arg := range []struct{ name, value, why string }{
		{"pattern", a.Pattern, "which no text file holds (grep searches text files only)"},
		{"include", a.Include, "which no file name can contain"},
	} {
		if strings.IndexByte(arg.value, 0) >= 0 {
			msg := holdsNUL(arg.name, arg.value, arg.why)
			return tool.Fail(tool.InvalidArgs(msg), msg)
		}
	}
	re, err := regexp.Compile(a.Pattern)
	if err != nil {
		msg := fmt.Sprintf("invalid regular expression %q: %v", a.Pattern, err)
		return tool.Fail(tool.InvalidArgs(msg), msg)
	}
	var include *pattern
	if a.Include != "" {
		p, err := compilePattern(a.Include)
		if err != nil {
			msg := fmt.Sprintf("invalid include pattern %q: %v", a.Include, err)
			return tool.Fail(tool.InvalidArgs(msg), msg)
		}
		include = &p
	}
	given := orRoot(a.Path)
	t, fail, ok := w.openTarget(given, "%s does not exist (no such file or folder); use list_dir or glob to find the right path")
	if !ok {
		return fail
	}
	defer t.root.Close()
	res, name, info, notFound := t.res, t.name, t.info, t.missing

	s := newSearch(re, newPrefilter(a.Pattern, re), grepMaxMatches)
	var note string
	switch {
	case info.Mode().IsRegular():
		// A file named outright is searched whatever include and the
		// ignore files say.
		if err := s.namedFile(t.root, res.rel); err != nil {
			return w.pathFailure(err, given, name, notFound)
		}
	case info.IsDir():
		var rules *ignoreRules
		if !a.IncludeIgnored {
			rules = w.rulesAt(t.root, res.rel)
		}
		err := w.walk(ctx, res.rel, rules, s.walker(include, a.IncludeIgnored))
		if ret, stop := walkEnd(err, &note); stop {
			return ret
		}
	default:
		msg := fmt.Sprintf("%s is not a regular file or folder (it is a %s)", name, fileKind(info.Mode()))
		return tool.Fail(tool.InvalidArgs(msg), msg)
	}

	out, r := s.result()
	if r.full {
		note = fmt.Sprintf("… cut at %d matches; more lines match. Narrow the pattern, path or include to see the rest\n",
			grepMaxMatches) + note
	}
	if r.cutLines > 0 {
		note += fmt.Sprintf("… %d long matching line(s) were cut at %d bytes; use read_file to see them whole\n",
			r.cutLines, grepMaxLineBytes)
	}
	if r.large > 0 {
		note += fmt.Sprintf("… %d file(s) over %d MiB were not searched\n", r.large, grepMaxFileBytes>>20)
	}
	note += ignoredNote(r.ignored, "not searched", "search them")
	// The result is fresh when a file it prints a line of, or an ignored
	// path its note names, is fresh.
	src := workspaceSource(res.rel, w.anyFresh(t.root, append(r.files, namedIgnored(r.ignored)...)))
	if r.matches == 0 {
		return tool.Ok(fmt.Sprintf("No matches for %s in %s.%s", a.Pattern, where(name), prefixNote(note))).From(src)
	}
	return tool.Ok(out + note).From(src)
}

// search is one grep over many files, run by the walk's goroutines. It
// keeps every file's matches, and the smallest max+1 of them by path and
// line, so that a file or folder sorting after all of those is skipped: the
// result is the same as a full search cut after max matches, whatever order
// the files finish in.
type search struct {
	re  *regexp.Regexp
	pf  *prefilter
	max int
	// bufs holds file buffers for reuse across files.
	bufs sync.Pool
	// last is, once max+1 matches are known, the largest of the smallest
	// max+1: files after its path cannot be shown.
	last atomic.Pointer[matchKey]

	// mu guards the fields below.
	mu      sync.Mutex
	files   []fileMatches
	top     keyHeap
	large   []string
	ignored []string
}

// fileMatches is the matching lines of one file, in line order.
type fileMatches struct {
	rel   string
	lines []lineMatch
}

// lineMatch is one matching line, as the model reads it.
type lineMatch struct {
	no   int
	text string
	cut  bool
}

// matchKey orders matches by path, then line.
type matchKey struct {
	rel string
	no  int
}

func (k matchKey) less(o matchKey) bool {
	if c := comparePaths(k.rel, o.rel); c != 0 {
		return c < 0
	}
	return k.no < o.no
}

// keyHeap is a max-heap of match keys.
type keyHeap []matchKey

func (h keyHeap) Len() int           { return len(h) }
func (h keyHeap) Less(i, j int) bool { return h[j].less(h[i]) }
func (h keyHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *keyHeap) Push(x any)        { *h = append(*h, x.(matchKey)) }
func (h *keyHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func newSearch(re *regexp.Regexp, pf *prefilter, max int) *search {
	return &search{re: re, pf: pf, max: max}
}

// beyond reports whether everything at or below rel sorts after the last
// match that can be shown.
func (s *search) beyond(rel string) bool {
	last := s.last.Load()
	return last != nil && comparePaths(rel, last.rel) > 0
}

// walker returns the walk's callbacks for this search.
func (s *search) walker(include *pattern, includeIgnored bool) *walker {
	byPath := include != nil && (len(include.segs) > 1 || include.segs[0] == "**")
	mayHold := func(rel string) bool { return !byPath || include.mayMatchBelow(rel) }
	wanted := func(rel string) bool { return include == nil || include.matchFile(rel) }
	return &walker{
		includeIgnored: includeIgnored,
		enter:          func(rel string) bool { return !s.beyond(rel) && mayHold(rel) },
		visit: func(e *entry) bool {
			return e.typ.IsRegular() && wanted(e.rel) && !s.beyond(e.rel)
		},
		work: func(e *entry) {
			if s.beyond(e.rel) {
				return
			}
			bp, _ := s.bufs.Get().(*[]byte)
			if bp == nil {
				bp = new([]byte)
			}
			defer s.bufs.Put(bp)
			data, size, err := e.dir.readFileAt(e.name, grepMaxFileBytes, bp)
			switch {
			case err != nil:
				// A file that vanished or cannot be read is left out.
			case data == nil && size > grepMaxFileBytes:
				s.mu.Lock()
				s.large = append(s.large, e.rel)
				s.mu.Unlock()
			case data != nil:
				s.file(e.rel, data)
			}
		},
		ignored: func(rel string, isDir bool) {
			if (isDir && mayHold(rel)) || (!isDir && wanted(rel)) {
				if isDir {
					rel += "/"
				}
				s.mu.Lock()
				s.ignored = append(s.ignored, rel)
				s.mu.Unlock()
			}
		},
	}
}

// namedFile searches the one file rel that grep's path names.
func (s *search) namedFile(root *os.Root, rel string) error {
	// O_NONBLOCK keeps a named pipe swapped in meanwhile from blocking.
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return nil
	}
	if info.Size() > grepMaxFileBytes {
		s.mu.Lock()
		s.large = append(s.large, rel)
		s.mu.Unlock()
		return nil
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	s.file(rel, data)
	return nil
}

// file searches the content of the file rel and records its matches.
func (s *search) file(rel string, data []byte) {
	if binaryReason(data[:min(len(data), sniffBytes)]) != "" {
		return
	}
	lines := s.lines(data)
	if len(lines) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files = append(s.files, fileMatches{rel: rel, lines: lines})
	for _, l := range lines {
		heap.Push(&s.top, matchKey{rel: rel, no: l.no})
		if len(s.top) > s.max+1 {
			heap.Pop(&s.top)
		}
	}
	if len(s.top) == s.max+1 {
		last := s.top[0]
		s.last.Store(&last)
	}
}

// lines returns the matching lines of data, at most max+1 of them. Only the
// lines around the prefilter's candidates are split out and matched.
func (s *search) lines(data []byte) []lineMatch {
	var out []lineMatch
	c := s.pf.scan(data)
	lineNo, counted := 1, 0
	for pos := 0; pos < len(data) && len(out) <= s.max; {
		at := c.next(pos)
		if at < 0 {
			break
		}
		start := pos + bytes.LastIndexByte(data[pos:at], '\n') + 1
		end := len(data)
		if i := bytes.IndexByte(data[at:], '\n'); i >= 0 {
			end = at + i
		}
		pos = end + 1
		if start == len(data) {
			// A match of the empty string after the final newline: there
			// is no line there.
			break
		}
		line := bytes.TrimSuffix(data[start:end], []byte("\r"))
		if !s.pf.literal && !s.re.Match(line) {
			continue
		}
		lineNo += bytes.Count(data[counted:start], []byte("\n"))
		counted = start
		out = append(out, newLineMatch(lineNo, line))
	}
	return out
}

// newLineMatch keeps a matching line as the model reads it: cut at
// grepMaxLineBytes and made valid UTF-8.
func newLineMatch(no int, line []byte) lineMatch {
	m := lineMatch{no: no}
	if len(line) > grepMaxLineBytes {
		line, m.cut = trimRune(line[:grepMaxLineBytes]), true
	}
	m.text = strings.ToValidUTF8(string(line), "\uFFFD")
	if m.cut {
		m.text += " …"
	}
	return m
}

// searchResult sums up a finished search for its notes.
type searchResult struct {
	matches  int
	full     bool
	cutLines int
	large    int
	ignored  []string
	// files are the files a line of which is shown.
	files []string
}

// result returns the first max matches in path and line order, one per
// line, and what the notes report. Skipped files and ignored paths are
// counted only up to the last match shown, since the search did not look
// beyond it.
func (s *search) result() (string, searchResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	slices.SortFunc(s.files, func(a, b fileMatches) int { return comparePaths(a.rel, b.rel) })
	var out strings.Builder
	var r searchResult
	for _, f := range s.files {
		for i, l := range f.lines {
			if r.matches == s.max {
				r.full = true
				break
			}
			if i == 0 {
				r.files = append(r.files, f.rel)
			}
			r.matches++
			if l.cut {
				r.cutLines++
			}
			fmt.Fprintf(&out, "%s:%d: %s\n", f.rel, l.no, l.text)
		}
		if r.full {
			break
		}
	}
	seen := func(rel string) bool { return !r.full || !s.beyond(strings.TrimSuffix(rel, "/")) }
	for _, rel := range s.large {
		if seen(rel) {
			r.large++
		}
	}
	for _, rel := range s.ignored {
		if seen(rel) {
			r.ignored = append(r.ignored, rel)
		}
	}
	return out.String(), r
}
