package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strings"

	"github.com/agenttui/agenttui/runtime/tool"
)

// Bounds of the listing and search tools: enough to orient, small enough for
// one result, with a note saying how to narrow a search that was cut.
const (
	// listMaxEntries is the most entries list_dir shows.
	listMaxEntries = 500
	// globMaxResults is the most paths glob shows.
	globMaxResults = 500
	// grepMaxMatches is the most matching lines grep shows.
	grepMaxMatches = 200
	// grepMaxLineBytes is where grep cuts a long matching line.
	grepMaxLineBytes = 300
	// grepMaxFileBytes is the largest file grep searches.
	grepMaxFileBytes = 16 << 20
	// walkMaxEntries bounds how many entries one glob or grep examines, so a
	// huge tree ends in a note rather than a call that never returns.
	walkMaxEntries = 200_000
)

// skipName is the folder every listing and search leaves out: version
// control internals are large and never what the model is looking for.
const skipName = ".git"

type listDirArgs struct {
	Path string `json:"path"`
}

func (w *Workspace) listDirTool() tool.Tool {
	return &builtin[listDirArgs]{
		decl: tool.Declaration{
			Name: "list_dir",
			Description: "List the entries of a folder in the workspace, sorted by name, one per line. Folders end " +
				"with /, and symbolic links show their target after ->. path is relative to the workspace root " +
				"(default: the root itself; an absolute path must lie inside the workspace). The .git folder is " +
				"left out, and at most 500 entries are shown; use glob to find files deeper down or to narrow a " +
				"large folder.",
			Parameters: schema(`{
				"path": {"type": "string", "description": "Folder to list, relative to the workspace root; default the root."}
			}`),
			Annotations: tool.Annotations{Title: "List folder", ReadOnly: true, Idempotent: true},
		},
		footprint: func(a listDirArgs) tool.Touches { return tool.Reads(tool.Paths(w.footprintPath(orRoot(a.Path)))) },
		run:       w.listDir,
	}
}

// orRoot returns p, or "." when it is empty, so optional path arguments
// default to the workspace root.
func orRoot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

func (w *Workspace) listDir(ctx context.Context, a listDirArgs) tool.Return {
	given := orRoot(a.Path)
	t, fail, ok := w.openTarget(given, "%s does not exist (no such folder); use list_dir on its parent or glob to find it")
	if !ok {
		return fail
	}
	defer t.root.Close()
	root, res, name, info, notFound := t.root, t.res, t.name, t.info, t.missing
	if !info.IsDir() {
		msg := fmt.Sprintf("%s is a file, not a folder; use read_file to read it", name)
		return tool.Fail(tool.InvalidArgs(msg), msg)
	}
	entries, err := fs.ReadDir(root.FS(), res.rel)
	if err != nil {
		return w.pathFailure(err, given, name, notFound)
	}

	var out strings.Builder
	shown, total := 0, 0
	for _, e := range entries {
		if e.Name() == skipName {
			continue
		}
		total++
		if shown == listMaxEntries {
			continue
		}
		shown++
		out.WriteString(e.Name())
		switch {
		case e.IsDir():
			out.WriteByte('/')
		case e.Type()&fs.ModeSymlink != 0:
			if target, err := root.Readlink(path.Join(res.rel, e.Name())); err == nil {
				out.WriteString(" -> " + target)
			}
		}
		out.WriteByte('\n')
	}
	if total == 0 {
		return tool.Ok(fmt.Sprintf("(%s is empty)", where(name)))
	}
	if shown < total {
		fmt.Fprintf(&out, "… cut at %d of %d entries; use glob with a pattern such as %s to narrow the list\n",
			shown, total, path.Join(name, "*.txt"))
	}
	return tool.Ok(out.String())
}

type globArgs struct {
	Pattern string `json:"pattern"`
}

func (w *Workspace) globTool() tool.Tool {
	return &builtin[globArgs]{
		decl: tool.Declaration{
			Name: "glob",
			Description: "Find paths in the workspace that match a glob pattern, such as src/**/*.go. Patterns are " +
				"relative to the workspace root and matched against whole paths: * and ? match within one path " +
				"segment, [abc] matches a class of characters, and a segment ** matches any number of folders, so " +
				"*.go matches only in the root while **/*.go matches in every folder. Matching paths are listed one " +
				"per line in sorted order, folders with a trailing /. The .git folder is skipped, symbolic links " +
				"to folders are not followed, and at most 500 paths are shown.",
			Parameters: schema(`{
				"pattern": {"type": "string", "minLength": 1, "description": "Glob pattern relative to the workspace root, e.g. **/*.md."}
			}`, "pattern"),
			Annotations: tool.Annotations{Title: "Find files", ReadOnly: true, Idempotent: true},
		},
		footprint: func(globArgs) tool.Touches { return tool.Reads(tool.Paths(w.root)) },
		run:       w.glob,
	}
}

func (w *Workspace) glob(ctx context.Context, a globArgs) tool.Return {
	text := a.Pattern
	if strings.HasPrefix(text, "/") {
		// An absolute pattern is accepted when it starts at the workspace.
		switch {
		case text == w.root:
			text = "."
		case strings.HasPrefix(text, w.root+"/"):
			text = strings.TrimPrefix(text, w.root+"/")
		default:
			return tool.Deny(w.outsideReason(a.Pattern))
		}
	}
	pat, err := compilePattern(text)
	if err != nil {
		if goesUp(text) {
			return tool.Deny(w.outsideReason(a.Pattern))
		}
		msg := fmt.Sprintf("invalid glob pattern %q: %v", a.Pattern, err)
		return tool.Fail(tool.InvalidArgs(msg), msg)
	}
	root, err := os.OpenRoot(w.root)
	if err != nil {
		return w.pathFailure(err, ".", ".", "the workspace folder no longer exists")
	}
	defer root.Close()

	var out strings.Builder
	found := 0
	cut := ""
	err = walkTree(ctx, root.FS(), ".", func(rel string, d fs.DirEntry) error {
		if pat.match(rel) {
			if found == globMaxResults {
				cut = fmt.Sprintf("… cut at %d paths; more match. Use a narrower pattern to see the rest\n", globMaxResults)
				return fs.SkipAll
			}
			found++
			out.WriteString(rel)
			if d.IsDir() {
				out.WriteByte('/')
			}
			out.WriteByte('\n')
		}
		if d.IsDir() && !pat.mayMatchBelow(rel) {
			// Nothing below can match: do not read the folder at all.
			return fs.SkipDir
		}
		return nil
	})
	if ret, stop := walkEnd(err, &cut); stop {
		return ret
	}
	if found == 0 {
		return tool.Ok(fmt.Sprintf("No paths match %s.%s", a.Pattern, prefixNote(cut)))
	}
	return tool.Ok(out.String() + cut)
}

// where names a folder in a sentence, the root as "the workspace".
func where(name string) string {
	if name == "." {
		return "the workspace"
	}
	return name
}

// goesUp reports whether a pattern climbs above the workspace root once its
// ".." segments are taken textually.
func goesUp(text string) bool {
	c := path.Clean(text)
	return c == ".." || strings.HasPrefix(c, "../")
}

// prefixNote puts a note after a one-line message.
func prefixNote(note string) string {
	if note == "" {
		return ""
	}
	return "\n" + strings.TrimSuffix(note, "\n")
}

// errWalkLimit ends a walk that examined walkMaxEntries entries.
var errWalkLimit = errors.New("walk limit reached")

// walkTree walks the tree at start of fsys in lexical order, calling visit
// for every entry but start itself. It skips .git, leaves unreadable
// folders out, checks ctx at each entry and stops after walkMaxEntries
// entries. Symbolic links are reported as entries and never followed.
func walkTree(ctx context.Context, fsys fs.FS, start string, visit func(rel string, d fs.DirEntry) error) error {
	seen := 0
	return fs.WalkDir(fsys, start, func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			if rel == start {
				return err
			}
			// An unreadable folder is left out rather than ending the walk.
			return nil
		}
		if rel == start {
			return nil
		}
		if d.Name() == skipName {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if seen++; seen > walkMaxEntries {
			return errWalkLimit
		}
		return visit(rel, d)
	})
}

// walkEnd turns the error of walkTree into a failure to return (stop true)
// or, for the walk limit, a note added to *note.
func walkEnd(err error, note *string) (tool.Return, bool) {
	switch {
	case err == nil:
		return tool.Return{}, false
	case errors.Is(err, errWalkLimit):
		*note += fmt.Sprintf("… the search stopped after examining %d entries; narrow it to a folder\n", walkMaxEntries)
		return tool.Return{}, false
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		msg := "the search was cancelled before it finished"
		return tool.Fail(tool.Cancelled(msg), msg), true
	default:
		msg := fmt.Sprintf("the search failed: %v", err)
		return tool.Fail(tool.Other(msg), msg), true
	}
}

type grepArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
	Include string `json:"include"`
}

func (w *Workspace) grepTool() tool.Tool {
	return &builtin[grepArgs]{
		decl: tool.Declaration{
			Name: "grep",
			Description: "Search the text files of the workspace for lines matching a regular expression (Go RE2 " +
				"syntax, e.g. func \\w+\\( ; use (?i) for case-insensitive matching). path limits the search to a " +
				"folder or one file (default: the whole workspace); include keeps only files whose name matches a " +
				"glob such as *.go, or whose workspace-relative path matches it when it contains a /. Each match is " +
				"printed as path:line: text. Binary files, files over 16 MiB and the .git folder are skipped, long " +
				"lines are cut, and at most 200 matches are shown.",
			Parameters: schema(`{
				"pattern": {"type": "string", "minLength": 1, "description": "Regular expression (Go RE2 syntax) to search for."},
				"path": {"type": "string", "description": "Folder or file to search, relative to the workspace root; default the root."},
				"include": {"type": "string", "description": "Glob on file names (e.g. *.go) or relative paths (e.g. src/**/*.ts)."}
			}`, "pattern"),
			Annotations: tool.Annotations{Title: "Search files", ReadOnly: true, Idempotent: true},
		},
		footprint: func(a grepArgs) tool.Touches { return tool.Reads(tool.Paths(w.footprintPath(orRoot(a.Path)))) },
		run:       w.grep,
	}
}

func (w *Workspace) grep(ctx context.Context, a grepArgs) tool.Return {
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
	root, res, name, info, notFound := t.root, t.res, t.name, t.info, t.missing

	s := &searcher{fsys: root.FS(), re: re}
	var note string
	if info.Mode().IsRegular() {
		// A file named outright is searched whatever include says.
		if err := s.file(res.rel, info.Size()); err != nil {
			return w.pathFailure(err, given, name, notFound)
		}
	} else if info.IsDir() {
		err := walkTree(ctx, s.fsys, res.rel, func(rel string, d fs.DirEntry) error {
			if !d.Type().IsRegular() {
				return nil
			}
			if include != nil && !include.matchFile(rel) {
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			if err := s.file(rel, fi.Size()); err != nil {
				// A file that vanished or cannot be read is left out.
				return nil
			}
			if s.full {
				return fs.SkipAll
			}
			return nil
		})
		if ret, stop := walkEnd(err, &note); stop {
			return ret
		}
	} else {
		msg := fmt.Sprintf("%s is not a regular file or folder (it is a %s)", name, fileKind(info.Mode()))
		return tool.Fail(tool.InvalidArgs(msg), msg)
	}

	if s.full {
		note = fmt.Sprintf("… cut at %d matches; more lines match. Narrow the pattern, path or include to see the rest\n",
			grepMaxMatches) + note
	}
	if s.cutLines > 0 {
		note += fmt.Sprintf("… %d long matching line(s) were cut at %d bytes; use read_file to see them whole\n",
			s.cutLines, grepMaxLineBytes)
	}
	if s.skippedLarge > 0 {
		note += fmt.Sprintf("… %d file(s) over %d MiB were not searched\n", s.skippedLarge, grepMaxFileBytes>>20)
	}
	if s.matches == 0 {
		return tool.Ok(fmt.Sprintf("No matches for %s in %s.%s", a.Pattern, where(name), prefixNote(note)))
	}
	return tool.Ok(s.out.String() + note)
}

// matchFile applies an include pattern: against the base name when the
// pattern has a single segment, else against the whole relative path.
func (p pattern) matchFile(rel string) bool {
	if len(p.segs) == 1 && p.segs[0] != "**" {
		return matchSegs(p.segs, []string{path.Base(rel)}, false)
	}
	return p.match(rel)
}

// searcher collects grep's matches across files.
type searcher struct {
	fsys         fs.FS
	re           *regexp.Regexp
	out          strings.Builder
	matches      int
	cutLines     int
	skippedLarge int
	// full says grepMaxMatches were found and another match was seen.
	full bool
}

// file searches the file rel, skipping it when it is too large or binary.
func (s *searcher) file(rel string, size int64) error {
	if size > grepMaxFileBytes {
		s.skippedLarge++
		return nil
	}
	data, err := fs.ReadFile(s.fsys, rel)
	if err != nil {
		return err
	}
	if binaryReason(data[:min(len(data), sniffBytes)]) != "" {
		return nil
	}
	for lineNo := 1; len(data) > 0 && !s.full; lineNo++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if !s.re.Match(line) {
			continue
		}
		if s.matches == grepMaxMatches {
			s.full = true
			break
		}
		s.matches++
		text := string(line)
		if len(line) > grepMaxLineBytes {
			text = string(trimRune(line[:grepMaxLineBytes])) + " …"
			s.cutLines++
		}
		fmt.Fprintf(&s.out, "%s:%d: %s\n", rel, lineNo, strings.ToValidUTF8(text, "\uFFFD"))
	}
	return nil
}

// target is an existing path inside the workspace, opened for a search.
type target struct {
	root *os.Root
	res  resolved
	name string
	info os.FileInfo
	// missing is what the model reads if the path disappears meanwhile.
	missing string
}

// openTarget resolves given inside the workspace, opens the workspace root
// and stats the path. notFound words a missing path, with %s standing for
// its name. On failure it returns what the model reads and ok false; on
// success the caller closes t.root.
func (w *Workspace) openTarget(given, notFound string) (t target, fail tool.Return, ok bool) {
	res, err := w.resolve(given)
	name := display(given, res)
	missing := fmt.Sprintf(notFound, name)
	if err != nil {
		return t, w.pathFailure(err, given, name, missing), false
	}
	root, err := os.OpenRoot(w.root)
	if err != nil {
		return t, w.pathFailure(err, given, name, missing), false
	}
	info, err := root.Stat(res.rel)
	if err != nil {
		root.Close()
		return t, w.pathFailure(err, given, name, missing), false
	}
	return target{root: root, res: res, name: name, info: info, missing: missing}, tool.Return{}, true
}
