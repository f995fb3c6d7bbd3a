// Package history keeps what a person typed into the console, per
// workspace, so that earlier inputs can be recalled in a later console.
//
// Each workspace has its own file under $XDG_STATE_HOME/agenttui/history/,
// one JSON object per line ({"at": "…", "text": "…"}), named by a hash of the
// workspace's path. Secrets are redacted before anything is kept, as in the
// session journal, and the file is bounded: once it holds twice Max entries
// it is rewritten with the newest Max.
package history

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/internal/xdg"
)

// DefaultMax is how many entries a workspace's history keeps.
const DefaultMax = 500

// maxEntryBytes bounds one entry: a paste of a whole file is not worth
// keeping in full.
const maxEntryBytes = 64 << 10

// Dir returns the folder of the history files: $XDG_STATE_HOME/agenttui/history,
// or ~/.local/state/agenttui/history.
func Dir() (string, error) {
	base, err := xdg.StateHome()
	if err != nil {
		return "", fmt.Errorf("cannot find a folder for the input history: set XDG_STATE_HOME (%v)", err)
	}
	return filepath.Join(base, "agenttui", "history"), nil
}

// File returns the history file of workspace in dir.
func File(dir, workspace string) string {
	sum := sha256.Sum256([]byte(workspace))
	return filepath.Join(dir, hex.EncodeToString(sum[:8])+".jsonl")
}

// Store is the history of one workspace. Its methods are safe for use by
// several goroutines.
type Store struct {
	path string
	max  int
	red  *redact.Redactor
	now  func() time.Time

	mu      sync.Mutex // guards entries, lines and err
	entries []string   // oldest first, at most max
	lines   int        // how many lines the file holds
	torn    bool       // the file's last line has no newline
	err     error      // the first write error, after which nothing is written
}

// record is one line of a history file.
type record struct {
	At   time.Time `json:"at"`
	Text string    `json:"text"`
}

// OpenWorkspace opens the history of workspace, in its file under Dir. When
// there is no folder for history files it returns a history kept in memory,
// with an error that says the history lasts only as long as this console;
// either way the store can be used.
func OpenWorkspace(workspace string, red *redact.Redactor) (*Store, error) {
	dir, err := Dir()
	if err != nil {
		s, _ := Open("", 0, red)
		return s, fmt.Errorf("the input history is kept for this console only: %w", err)
	}
	return Open(File(dir, workspace), 0, red)
}

// Open loads the history at path ("" keeps the history in memory only),
// keeping at most limit entries (DefaultMax
// when limit is not positive); red redacts what is added. A missing file is an
// empty history; lines that cannot be read (a torn last line) are skipped.
func Open(path string, limit int, red *redact.Redactor) (*Store, error) {
	if limit <= 0 {
		limit = DefaultMax
	}
	s := &Store{path: path, max: limit, red: red, now: time.Now}
	if path == "" {
		return s, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("reading the input history: %w", err)
	}
	s.torn = len(data) > 0 && data[len(data)-1] != '\n'
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 4*maxEntryBytes)
	for sc.Scan() {
		s.lines++
		var r record
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.Text == "" {
			continue
		}
		s.entries = append(s.entries, r.Text)
	}
	if n := len(s.entries); n > limit {
		s.entries = s.entries[n-limit:]
	}
	return s, nil
}

// Entries returns the entries, oldest first.
func (s *Store) Entries() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.entries...)
}

// Add records text as the newest entry, redacted, and returns the entry as
// kept. Blank text, and text equal to the newest entry, add nothing. A write
// error is returned once; the entry is still kept for this console.
func (s *Store) Add(text string) (string, error) {
	text = strings.TrimSpace(s.red.String(text))
	if len(text) > maxEntryBytes {
		text = text[:maxEntryBytes]
	}
	if text == "" {
		return "", nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.entries); n > 0 && s.entries[n-1] == text {
		return text, nil
	}
	s.entries = append(s.entries, text)
	if len(s.entries) > s.max {
		s.entries = s.entries[len(s.entries)-s.max:]
	}
	if s.err != nil || s.path == "" {
		return text, nil
	}
	if err := s.write(text); err != nil {
		s.err = err
		return text, fmt.Errorf("the input history cannot be written, so this console's inputs will not be recalled later: %w", err)
	}
	return text, nil
}

// write appends text to the file, and rewrites the file with the newest
// entries once it holds twice as many as it keeps. s.mu is held.
func (s *Store) write(text string) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	if s.lines+1 >= 2*s.max {
		return s.rewrite()
	}
	line, err := json.Marshal(record{At: s.now().UTC(), Text: text})
	if err != nil {
		return err
	}
	f, err := os.OpenFile(s.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if s.torn {
		// A torn last line (a crash mid-write) is ended first, so that
		// the new line stays whole.
		line = append([]byte{'\n'}, line...)
	}
	// One write of a whole line: two consoles of the same workspace
	// appending at once do not interleave their lines.
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		s.lines++
		s.torn = false
	}
	return err
}

// rewrite replaces the file with s.entries, through a temporary file, so
// that a crash leaves the old file or the new one. s.mu is held.
func (s *Store) rewrite() error {
	var b bytes.Buffer
	at := s.now().UTC()
	for _, e := range s.entries {
		line, err := json.Marshal(record{At: at, Text: e})
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".history-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b.Bytes())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), s.path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	s.lines, s.torn = len(s.entries), false
	return nil
}
