package tool

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unsafe"
)

// MaxPreviewBytes bounds each side of a file preview. A file (or a proposed
// content) larger than this is described by its size alone, so that a huge
// file never stalls the screen or the approval.
const MaxPreviewBytes = 1 << 20

// PreviewKind says what a preview describes.
type PreviewKind string

// The kinds of preview.
const (
	// PreviewFile is a change to one file: its current content and the
	// content the call would leave.
	PreviewFile PreviewKind = "file"
	// PreviewCommand is a command a call would run.
	PreviewCommand PreviewKind = "command"
)

// Preview describes what a call would do, computed without doing it: the
// change a file write would make, or the command a shell call would run.
// The person approves a call after seeing its preview, and the runtime
// checks the preview's Digest again just before the call starts, so what
// runs is what was shown.
type Preview struct {
	// Kind says what the preview describes.
	Kind PreviewKind `json:"kind"`

	// Path is the file's path relative to the workspace (as given when it
	// cannot be resolved).
	Path string `json:"path,omitempty"`
	// Created says the file does not exist yet: the call would create it.
	Created bool `json:"created,omitempty"`
	// Overwrite says the call replaces the whole file (write_file over an
	// existing file), rather than changing part of it.
	Overwrite bool `json:"overwrite,omitempty"`
	// Old is the file's current content and New the content the call would
	// leave; both are empty when Binary, TooLarge or Problem is set.
	Old string `json:"-"`
	New string `json:"-"`
	// Binary says the current or the new content is not text, so no line
	// diff is shown.
	Binary bool `json:"binary,omitempty"`
	// TooLarge says the current or the new content is larger than
	// MaxPreviewBytes; Size then gives the larger of the two.
	TooLarge bool  `json:"too_large,omitempty"`
	Size     int64 `json:"size,omitempty"`
	// Added and Removed count the lines the change adds and removes;
	// OldLines and NewLines are the file's line counts before and after.
	Added    int `json:"added"`
	Removed  int `json:"removed"`
	OldLines int `json:"old_lines"`
	NewLines int `json:"new_lines"`
	// Problem, when set, says why the call would fail as things stand (the
	// text to replace is missing, the path is outside the workspace); the
	// change is then not shown.
	Problem string `json:"problem,omitempty"`

	// Command, Dir and TimeoutS describe a shell command: the exact command
	// line, the folder it runs in (relative to the workspace) and its time
	// limit in seconds.
	Command  string `json:"command,omitempty"`
	Dir      string `json:"dir,omitempty"`
	TimeoutS int    `json:"timeout_s,omitempty"`
	// Notes are further facts a person should see before approving, one
	// line each, such as what a sandboxed command may write.
	Notes []string `json:"notes,omitempty"`

	// Digest identifies what the preview shows; two previews with the
	// same digest show the same thing. Previewers set it with Seal.
	Digest string `json:"digest"`
}

// Previewer is implemented by tools that can say what a call would do
// without doing it. The runtime asks for a preview when a reply arrives
// (off the console's event loop), again when what the call waits for has
// settled, and once more just before a call the person approved starts.
type Previewer interface {
	// Preview describes what a call with args would do now. It must not
	// change anything and must return promptly, reading at most a bounded
	// amount (see MaxPreviewBytes). An error means the call cannot be
	// previewed at all; a call that would fail is previewed with Problem.
	Preview(ctx context.Context, args json.RawMessage) (Preview, error)
}

// Reviser is implemented by tools whose previewed file change a person may
// edit before approving it. Revise returns arguments that make the call
// leave content in the file instead of what the model proposed, and the
// preview of the call with them; shown is the preview the person edited,
// whose digest the runtime has just checked against the file as it is.
type Reviser interface {
	Revise(args json.RawMessage, shown Preview, content string) (json.RawMessage, Preview, error)
}

// Seal computes the preview's Digest from everything it shows and returns
// the preview. fingerprint stands in for content a preview does not hold
// (the size and modification time of a file too large to read), so that a
// change to it still changes the digest.
func (p Preview) Seal(fingerprint string) Preview {
	h := sha256.New()
	field := func(s string) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		// The hash only reads what it is given, so the string's bytes
		// are hashed in place rather than copied: a preview holds up to
		// two files of MaxPreviewBytes.
		h.Write(unsafe.Slice(unsafe.StringData(s), len(s)))
	}
	flag := func(b bool) {
		if b {
			field("1")
		} else {
			field("0")
		}
	}
	field(string(p.Kind))
	field(p.Path)
	flag(p.Created)
	flag(p.Overwrite)
	field(p.Old)
	field(p.New)
	flag(p.Binary)
	flag(p.TooLarge)
	field(fmt.Sprint(p.Size))
	field(p.Problem)
	field(p.Command)
	field(p.Dir)
	field(fmt.Sprint(p.TimeoutS))
	field(strings.Join(p.Notes, "\n"))
	field(fingerprint)
	p.Digest = "sha256:" + hex.EncodeToString(h.Sum(nil))
	return p
}

// Changed reports whether applying the previewed file change would change
// anything.
func (p Preview) Changed() bool {
	return p.Kind == PreviewFile && p.Problem == "" && (p.Created || p.Binary || p.TooLarge || p.Old != p.New)
}

// Summary says in a few words what the preview shows, for the call board:
// "+3 −1", "new file, 12 lines", "overwrites 40 lines (+3 −1)", "no
// change", "binary file, 3.2 KiB", "too large to preview: 12 MiB", or why
// the call would fail.
func (p Preview) Summary() string {
	switch {
	case p.Kind == PreviewCommand:
		return ""
	case p.Problem != "":
		return "would fail: " + p.Problem
	case p.TooLarge:
		return "too large to preview: " + FormatSize(p.Size)
	case p.Binary && p.Created:
		return "new binary file, " + FormatSize(p.Size)
	case p.Binary:
		return "binary file, " + FormatSize(p.Size)
	case p.Created:
		return "new file, " + lines(p.NewLines)
	case p.Old == p.New:
		return "no change"
	case p.Overwrite:
		return fmt.Sprintf("overwrites %s (%s)", lines(p.OldLines), p.Stat())
	}
	return p.Stat()
}

// Stat renders the added and removed line counts as "+3 −1".
func (p Preview) Stat() string { return fmt.Sprintf("+%d −%d", p.Added, p.Removed) }

func lines(n int) string {
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}

// FormatSize renders a byte count for people: "512 B", "3.2 KiB",
// "12 MiB".
func FormatSize(n int64) string {
	const k = 1024
	switch {
	case n < k:
		return fmt.Sprintf("%d B", n)
	case n < k*k:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/k)) + " KiB"
	case n < k*k*k:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(k*k))) + " MiB"
	}
	return trimZero(fmt.Sprintf("%.1f", float64(n)/(k*k*k))) + " GiB"
}

func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }
