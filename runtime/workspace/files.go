package workspace

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/agenttui/agenttui/internal/plural"
	"github.com/agenttui/agenttui/runtime/tool"
)

// Bounds of read_file. They keep one result within what a model can take in
// while leaving a way to read on.
const (
	// readMaxLines is the most lines one read_file call shows.
	readMaxLines = 2000
	// readMaxBytes is the most bytes of output one read_file call produces.
	readMaxBytes = 256 << 10
	// lineMaxBytes is where read_file cuts a single long line.
	lineMaxBytes = 4096
	// sniffBytes is how much of a file is examined to tell text from binary.
	sniffBytes = 8 << 10
)

type readFileArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

func (w *Workspace) readFileTool() tool.Tool {
	return &builtin[readFileArgs]{
		decl: tool.Declaration{
			Name: "read_file",
			Description: "Read a text file in the workspace. Each line is shown with its line number, right-aligned " +
				"and followed by a tab; the numbers are not part of the file. path is relative to the workspace " +
				"root (an absolute path must lie inside the workspace). offset is the 1-based first line to show " +
				"(default 1) and limit the number of lines (default and maximum 2000); at most 256 KiB is shown per " +
				"call, and lines longer than 4096 bytes are cut. When more of the file remains, the last line of " +
				"the output says which offset to read next. Binary files are refused.",
			Parameters: schema(`{
				"path": {"type": "string", "minLength": 1, "description": "File to read, relative to the workspace root."},
				"offset": {"type": "integer", "minimum": 1, "description": "1-based number of the first line to show; default 1."},
				"limit": {"type": "integer", "minimum": 1, "description": "Number of lines to show; default and maximum 2000."}
			}`, "path"),
			Annotations: tool.Annotations{Title: "Read file", ReadOnly: true, Idempotent: true},
			More:        "read the rest with read_file's offset and limit",
		},
		footprint: func(a readFileArgs) tool.Touches { return tool.Reads(tool.Paths(w.footprintPath(a.Path))) },
		run:       w.readFile,
	}
}

func (w *Workspace) readFile(ctx context.Context, a readFileArgs) tool.Return {
	res, err := w.resolve(a.Path)
	name := display(a.Path, res)
	if err != nil {
		return w.pathFailure(err, a.Path, name, readNotFound(name))
	}
	root, err := os.OpenRoot(w.root)
	if err != nil {
		return w.pathFailure(err, a.Path, name, readNotFound(name))
	}
	defer root.Close()
	// O_NONBLOCK keeps a named pipe from blocking the open; the file is
	// checked to be regular before anything is read from it.
	f, err := root.OpenFile(res.rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return w.pathFailure(err, a.Path, name, readNotFound(name))
	}
	defer f.Close()
	if ret, ok := w.checkRegular(f, name); !ok {
		return ret
	}
	// The file's source is taken before it is read: a change made while it
	// is read sets its change time after the session start just the same.
	info, err := f.Stat()
	src := workspaceSource(res.rel, err != nil || w.fresh(info))

	br := bufio.NewReaderSize(f, 64<<10)
	sample, _ := br.Peek(sniffBytes)
	if why := binaryReason(sample); why != "" {
		msg := fmt.Sprintf("%s looks like a binary file (%s), so read_file will not show it; "+
			"use run_shell with a tool such as file or xxd if you need to inspect it", name, why)
		return tool.Fail(tool.InvalidArgs(msg), msg)
	}

	offset := max(a.Offset, 1)
	limit := readMaxLines
	if a.Limit > 0 && a.Limit < readMaxLines {
		limit = a.Limit
	}
	var out strings.Builder
	var lineNo, shown, lastShown, longLines int
	byteCut := false
	done := false
	for {
		if lineNo%4096 == 0 && ctx.Err() != nil {
			msg := fmt.Sprintf("reading %s was cancelled", name)
			return tool.Fail(tool.Cancelled(msg), msg)
		}
		text, total, ok, err := readLine(br)
		if err != nil {
			return w.pathFailure(err, a.Path, name, readNotFound(name))
		}
		if !ok {
			break
		}
		lineNo++
		// Past the shown lines the loop only counts, so the note can say
		// how long the file is.
		if lineNo < offset || done {
			continue
		}
		if shown == limit {
			done = true
			continue
		}
		entry := fmt.Sprintf("%6d\t%s", lineNo, strings.ToValidUTF8(string(text), "\uFFFD"))
		if total > len(text) {
			entry += fmt.Sprintf(" … [line cut: %d bytes in all]", total)
		}
		if out.Len()+len(entry)+1 > readMaxBytes {
			done, byteCut = true, true
			continue
		}
		if total > len(text) {
			longLines++
		}
		out.WriteString(entry)
		out.WriteByte('\n')
		shown++
		lastShown = lineNo
	}

	switch {
	case lineNo == 0:
		return tool.Ok(fmt.Sprintf("(%s is empty)", name)).From(src)
	case offset > lineNo:
		msg := fmt.Sprintf("offset %d is past the end of %s, which has %s", offset, name, plural.Of(lineNo, "line"))
		return tool.Fail(tool.InvalidArgs(msg), msg)
	}
	if longLines > 0 {
		fmt.Fprintf(&out, "… %d long line(s) were cut at %d bytes; use grep to search their full text\n", longLines, lineMaxBytes)
	}
	if lastShown < lineNo {
		if byteCut || limit == readMaxLines {
			fmt.Fprintf(&out, "… cut at line %d of %d (read_file shows at most %d lines or %d KiB per call); "+
				"call read_file with offset=%d to read more\n", lastShown, lineNo, readMaxLines, readMaxBytes>>10, lastShown+1)
		} else {
			fmt.Fprintf(&out, "… showed lines %d-%d of %d; call read_file with offset=%d to read more\n",
				offset, lastShown, lineNo, lastShown+1)
		}
	}
	return tool.Ok(out.String()).From(src)
}

func readNotFound(name string) string {
	return fmt.Sprintf("%s does not exist (no such file); use list_dir or glob to find the right path", name)
}

// checkRegular refuses folders and special files, which read_file and
// edit_file cannot use.
func (w *Workspace) checkRegular(f *os.File, name string) (tool.Return, bool) {
	info, err := f.Stat()
	if err != nil {
		return w.pathFailure(err, name, name, name+" does not exist (no such file)"), false
	}
	return regularFailure(info, name)
}

// regularFailure returns the failure for info when it is not a regular file.
func regularFailure(info fs.FileInfo, name string) (tool.Return, bool) {
	switch {
	case info.IsDir():
		msg := fmt.Sprintf("%s is a folder, not a file; use list_dir to see what it holds", name)
		return tool.Fail(tool.InvalidArgs(msg), msg), false
	case !info.Mode().IsRegular():
		msg := fmt.Sprintf("%s is not a regular file (it is a %s)", name, fileKind(info.Mode()))
		return tool.Fail(tool.InvalidArgs(msg), msg), false
	}
	return tool.Return{}, true
}

// fileKind names a special file's type for messages.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	default:
		return "special file"
	}
}

// readLine reads one line without its newline, keeping at most lineMaxBytes
// of it and reporting its full length. ok is false at the end of the input.
func readLine(br *bufio.Reader) (text []byte, total int, ok bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			ok = true
		}
		body := chunk
		if err == nil {
			body = chunk[:len(chunk)-1]
		}
		total += len(body)
		if room := lineMaxBytes - len(text); room > 0 {
			text = append(text, body[:min(room, len(body))]...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil && !errors.Is(err, io.EOF):
			return nil, 0, false, err
		}
		if total > len(text) {
			text = trimRune(text)
		}
		return text, total, ok, nil
	}
}

// trimRune drops a rune that a cut left incomplete at the end of b.
func trimRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			return b
		}
	}
	return b
}

// binaryReason returns why sample looks like the start of a binary file, or
// "" for text: a NUL byte, or mostly bytes that are not UTF-8.
func binaryReason(sample []byte) string {
	if len(sample) == 0 {
		return ""
	}
	if bytes.IndexByte(sample, 0) >= 0 {
		return "it contains NUL bytes"
	}
	if utf8.Valid(sample) {
		// Most text is valid UTF-8, and this checks it fast.
		return ""
	}
	invalid := 0
	for i := 0; i < len(sample); {
		r, size := utf8.DecodeRune(sample[i:])
		if r == utf8.RuneError && size == 1 {
			// A rune cut by the end of the sample is not evidence.
			if len(sample)-i < utf8.UTFMax && !utf8.FullRune(sample[i:]) {
				break
			}
			invalid++
		}
		i += size
	}
	if invalid*100 > len(sample)*30 {
		return "most of it is not UTF-8 text"
	}
	return ""
}
