// Package txtar reads and writes txtar archives, the plain-text format of
// golang.org/x/tools/txtar that a scenario uses to carry its workspace: a
// comment, then files, each introduced by a line "-- name --".
//
// What an archive holds comes from a file a person may have been sent, so
// every name is checked before anything is written: a name is a clean
// relative path that stays inside the folder it is unpacked in (no leading
// /, no .. component), and Unpack writes through an os.Root, so nothing can
// land outside that folder.
package txtar

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// MaxSize bounds the archive Parse reads and the files Add takes in all: a
// scenario's workspace is a small project, not a disk image.
const MaxSize = 32 << 20

// Archive is a txtar archive.
type Archive struct {
	// Comment is the text before the first file.
	Comment []byte
	// Files are the archive's files, in order.
	Files []File

	size int
}

// File is one file of an archive.
type File struct {
	// Name is the file's slash-separated path inside the archive.
	Name string
	// Data is the file's content.
	Data []byte
}

// marker returns the file name of a marker line ("-- name --", without its
// newline), or false when line is not one.
func marker(line []byte) (string, bool) {
	if !bytes.HasPrefix(line, []byte("-- ")) || !bytes.HasSuffix(line, []byte(" --")) || len(line) < 6 {
		return "", false
	}
	return strings.TrimSpace(string(line[3 : len(line)-3])), true
}

// Parse reads an archive and checks every file's name. Its errors name the
// file at fault.
func Parse(data []byte) (*Archive, error) {
	if len(data) > MaxSize {
		return nil, fmt.Errorf("it is %d bytes, more than the %d an archive may hold", len(data), MaxSize)
	}
	a := &Archive{}
	var cur *File
	seen := map[string]bool{}
	start := 0
	for start < len(data) {
		end := bytes.IndexByte(data[start:], '\n')
		next := len(data)
		if end >= 0 {
			next = start + end + 1
		}
		line := bytes.TrimSuffix(data[start:next], []byte("\n"))
		if name, ok := marker(line); ok {
			if err := checkName(name, seen); err != nil {
				return nil, err
			}
			a.Files = append(a.Files, File{Name: name})
			cur = &a.Files[len(a.Files)-1]
		} else if cur != nil {
			cur.Data = append(cur.Data, data[start:next]...)
		} else {
			a.Comment = append(a.Comment, data[start:next]...)
		}
		start = next
	}
	for i := range a.Files {
		a.size += len(a.Files[i].Data)
	}
	return a, nil
}

// checkName reports what is wrong with name as the name of a file in an
// archive whose other names are in seen, and adds it to seen.
func checkName(name string, seen map[string]bool) error {
	switch {
	case name == "" || name == ".":
		return fmt.Errorf("a file has no name (%q)", name)
	case strings.TrimSpace(name) != name:
		// A marker's name is read with its spaces trimmed, so such a name
		// would come back as another.
		return fmt.Errorf("file %q: a name that starts or ends with a space", name)
	case strings.HasPrefix(name, "/") || filepath.IsAbs(name):
		return fmt.Errorf("file %q: an absolute path; names must be relative to the folder the archive is unpacked in", name)
	case !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return fmt.Errorf("file %q: a control character or invalid UTF-8 in a name", name)
	case strings.Contains(name, `\`):
		return fmt.Errorf("file %q: a backslash in a name; use / between folders", name)
	case !filepath.IsLocal(filepath.FromSlash(name)):
		return fmt.Errorf("file %q: the name leaves the folder the archive is unpacked in", name)
	case path.Clean(name) != name:
		return fmt.Errorf("file %q: not a clean path (write it %q)", name, path.Clean(name))
	case slices.ContainsFunc(strings.Split(name, "/"), func(c string) bool { return len(c) > 255 }):
		return fmt.Errorf("file %q: a part of the name is longer than the 255 bytes a file name may have", name)
	case seen[name]:
		return fmt.Errorf("file %q: the archive holds it twice", name)
	case seen[name+"/"]:
		return fmt.Errorf("file %q: the archive also holds files inside a folder of that name", name)
	}
	for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
		if seen[dir] {
			return fmt.Errorf("file %q: the archive also holds a file named %q, so that cannot be a folder", name, dir)
		}
		seen[dir+"/"] = true
	}
	seen[name] = true
	return nil
}

// Format writes the archive. Each file's data and the comment end with a
// newline, which Format adds where it is missing.
func Format(a *Archive) []byte {
	var b bytes.Buffer
	b.Write(withNewline(a.Comment))
	for _, f := range a.Files {
		fmt.Fprintf(&b, "-- %s --\n", f.Name)
		b.Write(withNewline(f.Data))
	}
	return b.Bytes()
}

func withNewline(data []byte) []byte {
	if len(data) == 0 || data[len(data)-1] == '\n' {
		return data
	}
	return append(data[:len(data):len(data)], '\n')
}

// Add appends a file, after checking that the archive can carry it as it
// is: its name (as Parse checks them), text only (valid UTF-8 and no NUL
// byte: txtar is a text format), no line that would read as a file marker,
// and the archive's size bound.
func (a *Archive) Add(name string, data []byte) error {
	seen := map[string]bool{}
	for _, f := range a.Files {
		_ = checkName(f.Name, seen)
	}
	if err := checkName(name, seen); err != nil {
		return &addError{name: name, err: err}
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return &addError{name: name, why: "binary: it holds NUL bytes or is not UTF-8, and an archive holds text files only"}
	}
	for i, line := range bytes.Split(data, []byte("\n")) {
		if _, ok := marker(bytes.TrimSuffix(line, []byte("\r"))); ok {
			return &addError{name: name, why: fmt.Sprintf("line %d reads as a file marker of the archive (-- name --), so the archive cannot carry it", i+1)}
		}
	}
	if a.size+len(data) > MaxSize {
		return &addError{name: name, why: fmt.Sprintf("the files add up to more than the %d bytes an archive may hold", MaxSize)}
	}
	a.size += len(data)
	a.Files = append(a.Files, File{Name: name, Data: data})
	return nil
}

// addError is why Add refused a file: err from the name's check, else why.
type addError struct {
	name, why string
	err       error
}

func (e *addError) Error() string {
	if e.err != nil {
		return e.err.Error()
	}
	return fmt.Sprintf("file %q: %s", e.name, e.why)
}

// Unpack writes the archive's files into dir, an existing folder, making
// folders as needed. Files are written through an os.Root opened on dir, so
// even a name that slipped past the checks cannot write outside it.
func (a *Archive) Unpack(dir string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, f := range a.Files {
		name := filepath.FromSlash(f.Name)
		if d := filepath.Dir(name); d != "." {
			if err := root.MkdirAll(d, 0o755); err != nil {
				return fmt.Errorf("file %q: %w", f.Name, err)
			}
		}
		if err := root.WriteFile(name, f.Data, 0o644); err != nil {
			return fmt.Errorf("file %q: %w", f.Name, err)
		}
	}
	return nil
}
