package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff/lcs"

	"github.com/agenttui/agenttui/runtime/tool"
)

// previewing is a workspace tool that can also preview its calls, and let a
// person edit the previewed change before approving it. It is a separate
// type from builtin so that only the tools that change files or run
// commands implement tool.Previewer.
type previewing[A any] struct {
	*builtin[A]
	preview func(A) tool.Preview
	// revise, when set, returns arguments that leave content in the file
	// instead of what the model proposed.
	revise func(a A, shown tool.Preview, content string) (A, error)
}

// Preview describes what a call with raw arguments would do, without doing
// it.
func (p *previewing[A]) Preview(ctx context.Context, raw json.RawMessage) (tool.Preview, error) {
	// The runtime previews arguments its schema check has passed, which
	// refuses unknown fields already; json.Unmarshal is much quicker than
	// the strict decoder Call uses on a large file's content, and a call
	// is previewed several times.
	var args A
	if err := json.Unmarshal(raw, &args); err != nil {
		return tool.Preview{}, fmt.Errorf("%s: %w", p.decl.Name, err)
	}
	if err := ctx.Err(); err != nil {
		return tool.Preview{}, err
	}
	return p.preview(args), nil
}

// previewReviser is a previewing tool whose change a person may edit.
type previewReviser[A any] struct{ *previewing[A] }

// Revise returns arguments that make the call leave content in the file,
// and the preview of that change.
func (p previewReviser[A]) Revise(raw json.RawMessage, shown tool.Preview, content string) (json.RawMessage, tool.Preview, error) {
	args, err := decodeArgs[A](raw)
	if err != nil {
		return nil, tool.Preview{}, fmt.Errorf("%s: %w", p.decl.Name, err)
	}
	if shown.Kind != tool.PreviewFile || shown.Problem != "" || shown.TooLarge || shown.Binary {
		return nil, tool.Preview{}, errors.New("the change has no text preview to edit")
	}
	revised, err := p.revise(args, shown, content)
	if err != nil {
		return nil, tool.Preview{}, err
	}
	out, err := json.Marshal(revised)
	if err != nil {
		return nil, tool.Preview{}, err
	}
	pv := shown
	pv.Old, pv.New, pv.Binary, pv.Digest = "", "", false, ""
	return out, finishFilePreview(pv, shown.Old, content), nil
}

// previewWrite previews write_file: the file as it is and the content the
// call would leave.
func (w *Workspace) previewWrite(a writeFileArgs) tool.Preview {
	pv := tool.Preview{Kind: tool.PreviewFile, Path: a.Path}
	cur, ok := w.previewCurrent(&pv, a.Path, true)
	if !ok {
		return pv
	}
	pv.Overwrite = !pv.Created
	if len(a.Content) > tool.MaxPreviewBytes || pv.TooLarge {
		return tooLarge(pv, cur, max(pv.Size, int64(len(a.Content))), a.Content)
	}
	return finishFilePreview(pv, string(cur.data), a.Content)
}

// previewEdit previews edit_file: the file as it is and as the edit would
// leave it, or why the edit would fail.
func (w *Workspace) previewEdit(a editFileArgs) tool.Preview {
	pv := tool.Preview{Kind: tool.PreviewFile, Path: a.Path}
	cur, ok := w.previewCurrent(&pv, a.Path, false)
	if !ok {
		return pv
	}
	if pv.TooLarge {
		return tooLarge(pv, cur, pv.Size, a.Old+"\x00"+a.New+fmt.Sprint(a.ReplaceAll))
	}
	switch {
	case a.Old == "":
		pv.Problem = "old is empty"
	case a.Old == a.New:
		pv.Problem = "old and new are the same, so it would change nothing"
	case bytes.IndexByte(cur.data, 0) >= 0:
		pv.Problem = pv.Path + " looks like a binary file; edit_file only changes text files"
	}
	if pv.Problem != "" {
		return pv.Seal(string(cur.data))
	}
	content := string(cur.data)
	replaced, _, _, problem := applyEdit(content, a, pv.Path)
	if problem != "" {
		// The reason the model would read, to its first sentence: the rest
		// advises the model, not the person.
		pv.Problem, _, _ = strings.Cut(problem, ";")
		return pv.Seal(content)
	}
	return finishFilePreview(pv, content, replaced)
}

// current is what a preview read of the file it changes.
type current struct {
	data []byte
	// stat fingerprints a file too large to read.
	stat string
}

// previewCurrent reads the file at given for a preview. It returns false
// when the preview is complete already: the path is outside the workspace,
// names something that is not a file, or (for an edit) does not exist. A
// file larger than tool.MaxPreviewBytes is not read: pv.TooLarge and pv.Size
// say so.
func (w *Workspace) previewCurrent(pv *tool.Preview, given string, mayCreate bool) (current, bool) {
	res, err := w.resolve(given)
	if err == nil {
		pv.Path = display(given, res)
	}
	fail := func(problem string) (current, bool) {
		pv.Problem = problem
		*pv = pv.Seal("")
		return current{}, false
	}
	var outside *outsideError
	switch {
	case errors.As(err, &outside), escapedRoot(err):
		return fail("the path is outside the workspace, so the tool will refuse it")
	case err != nil:
		return fail(w.relErr(err))
	}
	if res.rel == "." {
		return fail("the path names the workspace folder itself, not a file")
	}
	root, err := os.OpenRoot(w.root)
	if err != nil {
		return fail(w.relErr(err))
	}
	defer root.Close()
	info, err := root.Stat(res.rel)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		if !mayCreate {
			return fail(pv.Path + " does not exist")
		}
		pv.Created = true
		return current{}, true
	case err != nil:
		return fail(w.relErr(err))
	case info.IsDir():
		return fail(pv.Path + " is a folder")
	case !info.Mode().IsRegular():
		return fail(pv.Path + " is not a regular file")
	case info.Size() > tool.MaxPreviewBytes:
		pv.TooLarge, pv.Size = true, info.Size()
		return current{stat: statFingerprint(info)}, true
	}
	data, err := root.ReadFile(res.rel)
	if err != nil {
		return fail(w.relErr(err))
	}
	if len(data) > tool.MaxPreviewBytes {
		// It grew between the stat and the read.
		pv.TooLarge, pv.Size = true, int64(len(data))
		return current{stat: statFingerprint(info) + fmt.Sprint(len(data))}, true
	}
	return current{data: data}, true
}

// statFingerprint identifies the state of a file without reading it: its
// size, modification time and inode.
func statFingerprint(info fs.FileInfo) string {
	fp := fmt.Sprintf("%d:%d", info.Size(), info.ModTime().UnixNano())
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		fp += fmt.Sprintf(":%d:%d", st.Ino, st.Ctim.Nano())
	}
	return fp
}

// tooLarge completes the preview of a file change too large to show:
// its digest covers the file's state and what the call would write.
func tooLarge(pv tool.Preview, cur current, size int64, proposed string) tool.Preview {
	pv.TooLarge, pv.Size = true, size
	return pv.Seal(cur.stat + "\x00" + string(cur.data) + "\x00" + proposed)
}

// finishFilePreview fills in the contents and line counts of a file change
// and seals it.
func finishFilePreview(pv tool.Preview, old, new string) tool.Preview {
	if isBinary(old) || isBinary(new) {
		pv.Binary = true
		pv.Size = int64(max(len(old), len(new)))
		if pv.Created {
			pv.Size = int64(len(new))
		}
		return pv.Seal(old + "\x00" + new)
	}
	pv.Old, pv.New = old, new
	pv.OldLines, pv.NewLines = countLines(old), countLines(new)
	pv.Added, pv.Removed = LineStat(old, new)
	return pv.Seal("")
}

// isBinary reports whether s is not text: it holds a NUL byte, or is not
// valid UTF-8 and its start is mostly not text. Both checks are fast
// scans, so a preview of a large file spends its time on the diff.
func isBinary(s string) bool {
	if strings.IndexByte(s, 0) >= 0 {
		return true
	}
	if utf8.ValidString(s) {
		return false
	}
	return binaryReason([]byte(s[:min(len(s), sniffBytes)])) != ""
}

// LineStat returns how many lines a change from old to new adds and
// removes, as a line diff counts them.
func LineStat(old, new string) (added, removed int) {
	if old == new {
		return 0, 0
	}
	for _, d := range lcs.DiffLines(splitLines(old), splitLines(new)) {
		removed += d.End - d.Start
		added += d.ReplEnd - d.ReplStart
	}
	return added, removed
}

// splitLines splits s into its lines, each with its newline; a last line
// without one is kept as it is.
func splitLines(s string) []string {
	out := make([]string, 0, strings.Count(s, "\n")+1)
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// previewShell previews run_shell: the exact command, where it runs and
// for how long it may.
func (w *Workspace) previewShell(a runShellArgs) tool.Preview {
	timeout := shellTimeout(a)
	pv := tool.Preview{Kind: tool.PreviewCommand, Command: a.Command, Dir: ".", TimeoutS: int(timeout.Seconds())}
	if sb := w.shellSandbox(a); sb != nil {
		if sb.Sandboxed {
			network := "no network"
			if sb.Network {
				network = "network allowed"
			}
			var where []string
			for _, p := range sb.Writable {
				where = append(where, w.relOrAbs(p))
			}
			pv.Notes = append(pv.Notes, fmt.Sprintf("sandboxed (%s): it may write only %s; %s", sb.Mode, strings.Join(where, ", "), network))
		} else {
			pv.Notes = append(pv.Notes, "not sandboxed ("+sb.Why+"): it can change anything you can")
		}
	}
	return pv.Seal("")
}

// reviseWrite makes write_file write content instead.
func reviseWrite(a writeFileArgs, _ tool.Preview, content string) (writeFileArgs, error) {
	a.Content = content
	return a, nil
}

// reviseEdit makes edit_file leave content in the file: it replaces the
// smallest run of whole lines that differs between the file as shown and
// content, widened until that text occurs only once in the file.
func reviseEdit(a editFileArgs, shown tool.Preview, content string) (editFileArgs, error) {
	old, repl, err := Replacement(shown.Old, content)
	if err != nil {
		return a, err
	}
	return editFileArgs{Path: a.Path, Old: old, New: repl}, nil
}

// Replacement returns an edit that turns current into want: old occurs
// exactly once in current, and replacing it with repl gives want. old is
// made of whole lines, the fewest that cover every difference and occur
// once.
func Replacement(current, want string) (old, repl string, err error) {
	if current == want {
		return "", "", errors.New("the new content is the same as the file's")
	}
	if current == "" {
		return "", "", errors.New("the file is empty, so there is no text to replace: use write_file")
	}
	p := commonPrefix(current, want)
	s := commonSuffix(current[p:], want[p:])
	start := strings.LastIndexByte(current[:p], '\n') + 1
	end := lineEnd(current, len(current)-s)
	for {
		old = current[start:end]
		// edit_file replaces the first occurrence, which must be this one.
		if old != "" && strings.Count(current, old) == 1 && strings.Index(current, old) == start {
			break
		}
		if start == 0 && end == len(current) {
			return "", "", errors.New("no unique text to replace")
		}
		if start > 0 {
			start = strings.LastIndexByte(current[:start-1], '\n') + 1
		}
		end = lineEnd(current, end)
	}
	// current and want share everything before start and after end.
	tail := len(current) - end
	return old, want[start : len(want)-tail], nil
}

// lineEnd returns the offset just past the end of the line that holds
// offset i of s (past its newline), or len(s).
func lineEnd(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(s)
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func commonSuffix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[len(a)-1-i] != b[len(b)-1-i] {
			return i
		}
	}
	return n
}

// relOrAbs shows an absolute path relative to the workspace when it lies
// inside it ("." for the root), else as it is.
func (w *Workspace) relOrAbs(p string) string {
	if p == w.root {
		return "the workspace"
	}
	if w.inside(p) {
		return strings.TrimPrefix(p, w.root+"/")
	}
	return p
}
