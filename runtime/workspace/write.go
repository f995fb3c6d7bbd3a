package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"

	"github.com/agenttui/agenttui/internal/plural"
	"github.com/agenttui/agenttui/runtime/tool"
)

type writeFileArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func (w *Workspace) writeFileTool() tool.Tool {
	return previewReviser[writeFileArgs]{&previewing[writeFileArgs]{preview: w.previewWrite, revise: reviseWrite, builtin: &builtin[writeFileArgs]{
		decl: tool.Declaration{
			Name: "write_file",
			Description: "Write a file in the workspace, replacing its whole content or creating it (and any " +
				"missing parent folders). path is relative to the workspace root (an absolute path must lie " +
				"inside the workspace); content is the complete new text of the file. The file is replaced in " +
				"one step, so it is never left half written, and an existing file keeps its permissions. To " +
				"change part of an existing file, prefer edit_file. The output says whether the file was " +
				"created or replaced and how many bytes and lines it now has.",
			Parameters: schema(`{
				"path": {"type": "string", "minLength": 1, "description": "File to write, relative to the workspace root."},
				"content": {"type": "string", "description": "The complete new content of the file."}
			}`, "path", "content"),
			Annotations: tool.Annotations{Title: "Write file", Destructive: true, Idempotent: true},
		},
		footprint: func(a writeFileArgs) tool.Touches { return tool.Writes(tool.Paths(w.footprintPath(a.Path))) },
		run:       w.writeFile,
	}}}
}

func (w *Workspace) writeFile(ctx context.Context, a writeFileArgs) tool.Return {
	res, err := w.resolve(a.Path)
	name := display(a.Path, res)
	if err != nil {
		return w.writeFailure(err, a.Path, name)
	}
	created, err := w.writeAtomic(ctx, res.rel, []byte(a.Content))
	if err != nil {
		return w.writeFailure(err, a.Path, name)
	}
	verb := "Replaced"
	if created {
		verb = "Created"
	}
	return tool.Ok(fmt.Sprintf("%s %s: %s, %s.", verb, name,
		plural.Of(len(a.Content), "byte"), plural.Of(countLines(a.Content), "line")))
}

type editFileArgs struct {
	Path       string `json:"path"`
	Old        string `json:"old"`
	New        string `json:"new"`
	ReplaceAll bool   `json:"replace_all"`
}

func (w *Workspace) editFileTool() tool.Tool {
	return previewReviser[editFileArgs]{&previewing[editFileArgs]{preview: w.previewEdit, revise: reviseEdit, builtin: &builtin[editFileArgs]{
		decl: tool.Declaration{
			Name: "edit_file",
			Description: "Change part of an existing text file in the workspace by replacing the exact text old " +
				"with new. old must match the file exactly, including whitespace and indentation (copy it from " +
				"read_file output without the line numbers), and must appear exactly once unless replace_all is " +
				"true, in which case every occurrence is replaced. When old is missing or ambiguous nothing is " +
				"changed and the output says why: add more surrounding lines to make old unique. The file is " +
				"replaced in one step and keeps its permissions. Use write_file to create a file.",
			Parameters: schema(`{
				"path": {"type": "string", "minLength": 1, "description": "File to change, relative to the workspace root."},
				"old": {"type": "string", "minLength": 1, "description": "Exact text to replace."},
				"new": {"type": "string", "description": "Text to put in its place."},
				"replace_all": {"type": "boolean", "description": "Replace every occurrence of old instead of requiring exactly one; default false."}
			}`, "path", "old", "new"),
			Annotations: tool.Annotations{Title: "Edit file", Destructive: true},
		},
		footprint: func(a editFileArgs) tool.Touches { return tool.Writes(tool.Paths(w.footprintPath(a.Path))) },
		run:       w.editFile,
	}}}
}

func (w *Workspace) editFile(ctx context.Context, a editFileArgs) tool.Return {
	res, err := w.resolve(a.Path)
	name := display(a.Path, res)
	notFound := fmt.Sprintf("%s does not exist (no such file); use write_file to create it", name)
	if err != nil {
		return w.pathFailure(err, a.Path, name, notFound)
	}
	invalid := func(msg string) tool.Return { return tool.Fail(tool.InvalidArgs(msg), msg) }
	if a.Old == "" {
		return invalid("old must not be empty; give the exact text to replace")
	}
	if a.Old == a.New {
		return invalid(fmt.Sprintf("old and new are the same, so editing %s would change nothing", name))
	}

	root, err := os.OpenRoot(w.root)
	if err != nil {
		return w.pathFailure(err, a.Path, name, notFound)
	}
	defer root.Close()
	info, err := root.Stat(res.rel)
	if err != nil {
		return w.pathFailure(err, a.Path, name, notFound)
	}
	if ret, ok := regularFailure(info, name); !ok {
		return ret
	}
	data, err := root.ReadFile(res.rel)
	if err != nil {
		return w.pathFailure(err, a.Path, name, notFound)
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return invalid(fmt.Sprintf("%s looks like a binary file (it contains NUL bytes); edit_file only changes text files", name))
	}
	replaced, n, first, problem := applyEdit(string(data), a, name)
	if problem != "" {
		return invalid(problem)
	}
	if _, err := w.writeAtomic(ctx, res.rel, []byte(replaced)); err != nil {
		return w.writeFailure(err, a.Path, name)
	}
	if n == 1 {
		return tool.Ok(fmt.Sprintf("Edited %s: replaced 1 occurrence at line %d.", name, first))
	}
	return tool.Ok(fmt.Sprintf("Edited %s: replaced %d occurrences, the first at line %d.", name, n, first))
}

// applyEdit applies a's replacement to content, the text of the file name.
// It returns the new content, how many occurrences were replaced and the
// line of the first; or, when old is missing or ambiguous, the reason the
// model reads. edit_file and its preview share it, so the preview shows
// exactly the change the call makes.
func applyEdit(content string, a editFileArgs, name string) (replaced string, n, first int, problem string) {
	n = strings.Count(content, a.Old)
	switch {
	case n == 0:
		msg := fmt.Sprintf("old text not found in %s; nothing was changed. Read the file again and copy the exact "+
			"text, including whitespace and indentation", name)
		if strings.Contains(content, "\r\n") && strings.Contains(a.Old, "\n") && !strings.Contains(a.Old, "\r\n") {
			msg += " (the file has Windows line endings, \\r\\n)"
		}
		return "", 0, 0, msg
	case n > 1 && !a.ReplaceAll:
		return "", n, 0, fmt.Sprintf("old text appears %d times in %s; nothing was changed. Include more of the "+
			"surrounding text so that it matches exactly once, or set replace_all to true to replace all %d", n, name, n)
	}
	first = 1 + strings.Count(content[:strings.Index(content, a.Old)], "\n")
	return strings.Replace(content, a.Old, a.New, n), n, first, ""
}

// errIsFolder and errNotRegular report a write target that is not a file.
var (
	errIsFolder   = errors.New("is a folder")
	errNotRegular = errors.New("is not a regular file")
)

// writeFailure turns an error from writeAtomic into what the model reads.
func (w *Workspace) writeFailure(err error, given, name string) tool.Return {
	switch {
	case errors.Is(err, context.Canceled):
		msg := fmt.Sprintf("the call was cancelled before %s was written, so it is unchanged", name)
		return tool.Fail(tool.Cancelled(msg), msg)
	case errors.Is(err, context.DeadlineExceeded):
		msg := fmt.Sprintf("the call ran out of time before %s was written, so it is unchanged", name)
		return tool.Fail(tool.Timeout(msg), msg)
	case errors.Is(err, errIsFolder), errors.Is(err, syscall.EISDIR):
		msg := fmt.Sprintf("%s is a folder, so it cannot be written as a file", name)
		return tool.Fail(tool.InvalidArgs(msg), msg)
	case errors.Is(err, errNotRegular):
		msg := fmt.Sprintf("%s is not a regular file, so it cannot be written", name)
		return tool.Fail(tool.InvalidArgs(msg), msg)
	case errors.Is(err, syscall.ENOTDIR), errors.Is(err, fs.ErrExist):
		// MkdirAll meets a file where a folder should be.
		msg := fmt.Sprintf("%s cannot be written: part of its path is a file, not a folder", name)
		return tool.Fail(tool.InvalidArgs(msg), msg)
	}
	return w.pathFailure(err, given, name, name+" cannot be written: part of its path does not exist")
}

// writeChunk is how much writeAtomic writes between looks at its context,
// so a cancelled call stops soon even with a large file.
const writeChunk = 1 << 20

// afterChunk is a test hook: when set, it is called after each chunk of a
// write's temporary file is written.
var afterChunk func()

// writeAtomic writes data to the file rel of the workspace: it creates the
// missing parent folders, writes a temporary file beside the target and
// renames it over the target, so a reader sees the old content or the new,
// never a mix. An existing file keeps its permission bits; a new one gets
// 0644 less the umask. Every operation goes through an os.Root, so it cannot
// leave the workspace even if a link changed since the path was resolved.
//
// A cancelled ctx stops the write before the rename, leaving the target as
// it was. On every way out but the rename (an error, a cancellation, a
// panic) the temporary file is removed; one a killed process left behind
// is collected by the next write into its folder (see tempfile.go).
func (w *Workspace) writeAtomic(ctx context.Context, rel string, data []byte) (created bool, err error) {
	if rel == "." {
		return false, errIsFolder
	}
	root, err := os.OpenRoot(w.root)
	if err != nil {
		return false, err
	}
	defer root.Close()

	created = true
	var mode fs.FileMode
	switch info, err := root.Stat(rel); {
	case err == nil && info.IsDir():
		return false, errIsFolder
	case err == nil && !info.Mode().IsRegular():
		return false, errNotRegular
	case err == nil:
		created, mode = false, info.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return false, err
	}

	dir := path.Dir(rel)
	if dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return false, err
		}
	}
	collectStale(root, dir)
	// A new file is created 0644 and the umask applies, as for any new
	// file; a replacement starts private and gets the old file's bits.
	perm := fs.FileMode(0o644)
	if !created {
		perm = 0o600
	}
	tmp, f, done, err := createTemp(root, dir, path.Base(rel), perm)
	if err != nil {
		return false, err
	}
	defer done()
	renamed := false
	defer func() {
		if !renamed {
			f.Close()
			root.Remove(tmp)
		}
	}()
	for rest := data; err == nil; {
		if err = ctx.Err(); err != nil || len(rest) == 0 {
			break
		}
		n := min(len(rest), writeChunk)
		_, err = f.Write(rest[:n])
		rest = rest[n:]
		if afterChunk != nil {
			afterChunk()
		}
	}
	if err == nil && !created {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// The last moment a cancellation keeps the target as it was.
		err = ctx.Err()
	}
	if err != nil {
		return false, err
	}
	if err = root.Rename(tmp, rel); err != nil {
		return false, err
	}
	renamed = true
	return created, nil
}

// countLines counts lines the way an editor shows them: a last line without
// a newline still counts.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
