package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"slices"
	"strings"
	"sync"

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
	Path           string `json:"path"`
	IncludeIgnored bool   `json:"include_ignored"`
}

func (w *Workspace) listDirTool() tool.Tool {
	return &builtin[listDirArgs]{
		decl: tool.Declaration{
			Name: "list_dir",
			Description: "List the entries of a folder in the workspace, sorted by name, one per line. Folders end " +
				"with /, and symbolic links show their target after ->. path is relative to the workspace root " +
				"(default: the root itself; an absolute path must lie inside the workspace). The .git folder is " +
				"left out, and so are entries that .gitignore, .ignore or git's exclude files ignore, unless " +
				"include_ignored is true or path names an ignored folder; the result says how many were left " +
				"out. At most 500 entries are shown; use glob to find files deeper down or to narrow a large " +
				"folder.",
			Parameters: schema(`{
				"path": {"type": "string", "description": "Folder to list, relative to the workspace root; default the root."},
				"include_ignored": {"type": "boolean", "description": "Also list what ignore files (.gitignore, .ignore) leave out; default false."}
			}`),
			Annotations: tool.Annotations{Title: "List folder", ReadOnly: true, Idempotent: true},
			More:        "list the folders below one by one, or use glob with a narrower pattern",
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
	var rules *ignoreRules
	if !a.IncludeIgnored {
		rules = w.rulesAt(root, res.rel)
	}
	// The walk lists the one folder: it enters none below. Its callbacks
	// run one at a time here, on the goroutine that lists the folder.
	var entries []listed
	var ignored []string
	err := w.walk(ctx, res.rel, rules, &walker{
		includeIgnored: a.IncludeIgnored,
		enter:          func(string) bool { return false },
		// A folder is listed whole, however large, as before the walker.
		limit: math.MaxInt64,
		visit: func(e *entry) bool {
			entries = append(entries, listed{name: e.name, typ: e.typ})
			return false
		},
		ignored: func(rel string, isDir bool) {
			name := path.Base(rel)
			if isDir {
				name += "/"
			}
			ignored = append(ignored, name)
		},
	})
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		ret, _ := walkEnd(err, new(string))
		return ret
	}
	if err != nil {
		return w.pathFailure(err, given, name, notFound)
	}

	var out strings.Builder
	shown := 0
	for _, e := range entries {
		if shown == listMaxEntries {
			break
		}
		shown++
		out.WriteString(e.name)
		switch {
		case e.typ.IsDir():
			out.WriteByte('/')
		case e.typ&fs.ModeSymlink != 0:
			if target, err := root.Readlink(path.Join(res.rel, e.name)); err == nil {
				out.WriteString(" -> " + target)
			}
		}
		out.WriteByte('\n')
	}
	total := len(entries)
	note := ignoredNote(ignored, "left out", "list them")
	// The listing is fresh when a name it shows is: an entry listed, or an
	// ignored one the note names.
	var names []string
	for _, e := range entries[:shown] {
		names = append(names, path.Join(res.rel, e.name))
	}
	for _, n := range namedIgnored(ignored) {
		names = append(names, path.Join(res.rel, n))
	}
	src := workspaceSource(res.rel, w.anyFresh(root, names))
	if total == 0 {
		return tool.Ok(fmt.Sprintf("(%s is empty)", where(name)) + prefixNote(note)).From(src)
	}
	if shown < total {
		fmt.Fprintf(&out, "… cut at %d of %d entries; use glob with a pattern such as %s to narrow the list\n",
			shown, total, path.Join(name, "*.txt"))
	}
	return tool.Ok(out.String() + note).From(src)
}

// listed is one entry list_dir shows.
type listed struct {
	name string
	typ  fs.FileMode
}

type globArgs struct {
	Pattern        string `json:"pattern"`
	IncludeIgnored bool   `json:"include_ignored"`
}

func (w *Workspace) globTool() tool.Tool {
	return &builtin[globArgs]{
		decl: tool.Declaration{
			Name: "glob",
			Description: "Find paths in the workspace that match a glob pattern, such as src/**/*.go. Patterns are " +
				"relative to the workspace root and matched against whole paths: * and ? match within one path " +
				"segment, [abc] matches a class of characters, {a,b} either alternative, and a segment ** " +
				"matches any number of folders, so *.go matches only in the root while **/*.go matches in every " +
				"folder. Matching paths are listed one per line in sorted order, folders with a trailing /. The " +
				".git folder is skipped, and so is what .gitignore, .ignore or git's exclude files ignore, unless " +
				"include_ignored is true; the result says how many ignored paths were left out. Symbolic links " +
				"to folders are not followed, and at most 500 paths are shown.",
			Parameters: schema(`{
				"pattern": {"type": "string", "minLength": 1, "description": "Glob pattern relative to the workspace root, e.g. **/*.md."},
				"include_ignored": {"type": "boolean", "description": "Also match what ignore files (.gitignore, .ignore) leave out; default false."}
			}`, "pattern"),
			Annotations: tool.Annotations{Title: "Find files", ReadOnly: true, Idempotent: true},
			More:        "use a narrower pattern to see the rest",
		},
		footprint: func(globArgs) tool.Touches { return tool.Reads(tool.Paths(w.root)) },
		run:       w.glob,
	}
}

func (w *Workspace) glob(ctx context.Context, a globArgs) tool.Return {
	if strings.IndexByte(a.Pattern, 0) >= 0 {
		msg := holdsNUL("pattern", a.Pattern, "which no file name can contain")
		return tool.Fail(tool.InvalidArgs(msg), msg)
	}
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
	var rules *ignoreRules
	if !a.IncludeIgnored {
		rules = w.rulesAt(root, ".")
	}

	// mu guards found and ignored, which the walk's goroutines add to.
	var mu sync.Mutex
	var found, ignored []string
	err = w.walk(ctx, ".", rules, &walker{
		includeIgnored: a.IncludeIgnored,
		enter:          pat.mayMatchBelow,
		visit: func(e *entry) bool {
			if pat.match(e.rel) {
				rel := e.rel
				if e.typ.IsDir() {
					rel += "/"
				}
				mu.Lock()
				found = append(found, rel)
				mu.Unlock()
			}
			return false
		},
		ignored: func(rel string, isDir bool) {
			if pat.match(rel) || (isDir && pat.mayMatchBelow(rel)) {
				if isDir {
					rel += "/"
				}
				mu.Lock()
				ignored = append(ignored, rel)
				mu.Unlock()
			}
		},
	})
	var cut string
	if ret, stop := walkEnd(err, &cut); stop {
		return ret
	}
	note := ignoredNote(ignored, "left out", "include them")
	slices.SortFunc(found, comparePaths)
	shown := found[:min(len(found), globMaxResults)]
	// The result is fresh when a path it shows is: a match, or an ignored
	// one the note names.
	src := workspaceSource(".", w.anyFresh(root, append(slices.Clone(shown), namedIgnored(ignored)...)))
	if len(found) == 0 {
		return tool.Ok(fmt.Sprintf("No paths match %s.%s", a.Pattern, prefixNote(cut+note))).From(src)
	}
	var out strings.Builder
	for _, rel := range shown {
		out.WriteString(rel)
		out.WriteByte('\n')
	}
	if len(found) > globMaxResults {
		cut = fmt.Sprintf("… cut at %d paths; more match. Use a narrower pattern to see the rest\n", globMaxResults) + cut
	}
	return tool.Ok(out.String() + cut + note).From(src)
}

// comparePaths orders slash-separated paths as a walk in name order visits
// them: component by component, so a/b comes before a-b, and a folder
// (with or without its trailing slash) right before what it holds.
func comparePaths(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] == b[i] {
			continue
		}
		switch {
		case a[i] == '/':
			return -1
		case b[i] == '/':
			return 1
		case a[i] < b[i]:
			return -1
		default:
			return 1
		}
	}
	return len(a) - len(b)
}

// ignoredNote says which ignored paths were left out and how to get them,
// naming the first few; "" when there were none.
func ignoredNote(paths []string, what, how string) string {
	if len(paths) == 0 {
		return ""
	}
	slices.SortFunc(paths, comparePaths)
	list := strings.Join(paths[:min(len(paths), ignoredNamed)], ", ")
	if len(paths) > ignoredNamed {
		list += fmt.Sprintf(" and %d more", len(paths)-ignoredNamed)
	}
	return fmt.Sprintf("… %d ignored path(s) %s (.gitignore, .ignore or git's excludes): %s; "+
		"call again with include_ignored: true to %s\n", len(paths), what, list, how)
}

// ignoredNamed is how many ignored paths ignoredNote names.
const ignoredNamed = 5

// namedIgnored returns the ignored paths that ignoredNote, called before,
// names (it sorts paths), without a folder's trailing slash.
func namedIgnored(paths []string) []string {
	var out []string
	for _, p := range paths[:min(len(paths), ignoredNamed)] {
		out = append(out, strings.TrimSuffix(p, "/"))
	}
	return out
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
