// Package journal keeps every session durable: one append-only JSON-lines
// file per session, from which a crashed, killed or closed session is
// resumed without performing any completed effect twice and without telling
// the model anything false about a call.
//
// The first line is a header; every other line is one runtime event in its
// public JSON form (reply text and thinking deltas excepted: a reply carries
// its whole text and reasoning). The intent of each effect — turn_started for a model request,
// call_started for a tool call — is written and synced before the effect is
// performed, and its result (reply, call_finished) is written and synced
// after. Secrets are redacted from every line before it is written, but for
// the opaque payloads of a model's reasoning (signatures, encrypted
// content), which the provider checks byte for byte when they are sent back.
package journal

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/internal/xdg"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
)

// Version is the journal format this build writes and reads.
const Version = 1

// Header is the first line of a journal.
type Header struct {
	Type      string    `json:"type"` // always "header"
	Version   int       `json:"version"`
	Session   string    `json:"session"`
	Goal      string    `json:"goal"`
	Model     string    `json:"model"`
	Mode      string    `json:"mode"`
	Workspace string    `json:"workspace"`
	Catalog   string    `json:"catalog_digest"`
	Started   time.Time `json:"started"`
	// TraceID is the session's OpenTelemetry trace, in hex, when it was
	// traced: every run of the session, resumed ones included, is a span
	// of it. Empty for a session begun with traces off.
	TraceID string `json:"trace_id,omitempty"`
}

// Dir returns the folder sessions are kept in: $XDG_STATE_HOME/agenttui/sessions,
// or ~/.local/state/agenttui/sessions when XDG_STATE_HOME is not set.
func Dir() (string, error) {
	base, err := xdg.StateHome()
	if err != nil {
		return "", fmt.Errorf("cannot find a folder for session journals: set XDG_STATE_HOME (%v)", err)
	}
	return filepath.Join(base, "agenttui", "sessions"), nil
}

// Path returns the journal file of session id in dir.
func Path(dir, id string) string { return filepath.Join(dir, id+".jsonl") }

// Writer appends a session's events to its journal. Its Event method is a
// runtime.Sink; the runtime calls it synchronously, so an intent is on disk
// before the effect it announces is performed.
type Writer struct {
	mu     sync.Mutex // guards everything below
	f      *os.File
	buf    *bufio.Writer
	redact *redact.Redactor
	err    error
	syncs  int
	// nonce makes the placeholders of reasoning payloads unguessable.
	nonce string
}

// Create starts the journal of a new session in dir with header h.
func Create(dir string, h Header, r *redact.Redactor) (*Writer, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the session folder %s: %w", dir, err)
	}
	f, err := os.OpenFile(Path(dir, h.Session), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("creating the session journal: %w", err)
	}
	w := newWriter(f, r)
	h.Type, h.Version = "header", Version
	line, err := json.Marshal(h)
	if err != nil {
		f.Close()
		return nil, err
	}
	w.writeLine(w.redact.Bytes(line), true)
	if w.err != nil {
		f.Close()
		return nil, w.err
	}
	return w, nil
}

// Reopen opens the journal of a loaded session for appending. When its last
// line was torn it is cut off first, so new lines follow whole ones.
func Reopen(rp *Replay, r *redact.Redactor) (*Writer, error) {
	f, err := os.OpenFile(rp.Path, os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the session journal: %w", err)
	}
	if err := f.Truncate(rp.validBytes); err != nil {
		f.Close()
		return nil, fmt.Errorf("repairing the session journal: %w", err)
	}
	if _, err := f.Seek(rp.validBytes, 0); err != nil {
		f.Close()
		return nil, err
	}
	return newWriter(f, r), nil
}

// Event writes one event; it is the journal's runtime.Sink. Text and
// thinking deltas are not kept: the reply holds them whole. Intents and
// results are synced before Event returns.
func (w *Writer) Event(e runtime.Event) {
	var sync bool
	inner, _ := runtime.Untag(e)
	switch inner.(type) {
	case runtime.TextDelta, runtime.ThinkingDelta:
		return
	case runtime.TurnStarted, runtime.CallStarted, runtime.ReplyReceived, runtime.InvalidReply,
		runtime.CallFinished, runtime.RunFinished, runtime.TurnEnded,
		runtime.CompactionStarted, runtime.Compacted, runtime.CompactionFailed,
		runtime.CheckpointTaken, runtime.CheckpointChanges, runtime.RestoreStarted, runtime.RestoreFinished:
		sync = true
	case runtime.ModelRetry:
		// A failed attempt is kept even when the process dies during the
		// wait before the next one.
		sync = true
	}
	line, err := w.encode(e)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.fail(err)
		return
	}
	w.writeLine(line, sync)
}

// encode returns the event's line with secrets redacted. The payloads of a
// reply's reasoning are left out of the redaction: they are ciphertext and
// signatures, which the provider checks byte for byte when they are sent
// back, and in which a token's shape can turn up by chance. Each is swapped
// for a placeholder no text can guess while the line is redacted.
func (w *Writer) encode(e runtime.Event) ([]byte, error) {
	inner, task := runtime.Untag(e)
	rr, ok := inner.(runtime.ReplyReceived)
	if !ok || !slices.ContainsFunc(rr.Reasoning, func(r model.Reasoning) bool { return r.Data != "" }) {
		line, err := runtime.EncodeEvent(e)
		return w.redact.Bytes(line), err
	}
	original := rr.Reasoning
	parts := slices.Clone(rr.Reasoning)
	for i := range parts {
		if parts[i].Data != "" {
			parts[i].Data = w.placeholder(i)
		}
	}
	rr.Reasoning = parts
	var masked runtime.Event = rr
	if task != nil {
		// A sub-agent's reply keeps its task path.
		masked = runtime.TaskEvent{Task: task, Event: rr}
	}
	line, err := runtime.EncodeEvent(masked)
	if err != nil {
		return nil, err
	}
	line = w.redact.Bytes(line)
	for i, r := range original {
		if r.Data == "" {
			continue
		}
		data, err := json.Marshal(r.Data)
		if err != nil {
			return nil, err
		}
		line = bytes.Replace(line, []byte(`"`+w.placeholder(i)+`"`), data, 1)
	}
	return line, nil
}

// placeholder is what stands in for the payload of reasoning part i while a
// line is redacted.
func (w *Writer) placeholder(i int) string { return fmt.Sprintf("agenttui-payload-%s-%d", w.nonce, i) }

// newWriter returns a Writer appending to f.
func newWriter(f *os.File, r *redact.Redactor) *Writer {
	var nonce [8]byte
	_, _ = rand.Read(nonce[:])
	return &Writer{f: f, buf: bufio.NewWriterSize(f, 64<<10), redact: r, nonce: hex.EncodeToString(nonce[:])}
}

// writeLine writes one redacted line; w.mu is held or w is not shared.
func (w *Writer) writeLine(line []byte, sync bool) {
	if w.err != nil {
		return
	}
	if _, err := w.buf.Write(append(line, '\n')); err != nil {
		w.fail(err)
		return
	}
	if !sync {
		return
	}
	if err := w.buf.Flush(); err != nil {
		w.fail(err)
		return
	}
	if err := w.f.Sync(); err != nil {
		w.fail(err)
		return
	}
	w.syncs++
}

func (w *Writer) fail(err error) {
	if w.err == nil {
		w.err = fmt.Errorf("writing the session journal: %w", err)
	}
}

// Err returns the first error writing the journal met, after which nothing
// more was written.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Syncs returns how many times the journal was synced to disk.
func (w *Writer) Syncs() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.syncs
}

// Close flushes and closes the journal.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return w.err
	}
	err := errors.Join(w.buf.Flush(), w.f.Sync(), w.f.Close())
	w.f = nil
	if w.err != nil {
		return w.err
	}
	return err
}
