// Package asciicast writes and reads terminal recordings in the asciicast v2
// format, the one asciinema's player and tools read: a JSON header line,
// then one JSON array per line for each event, [seconds, code, data], where
// code "o" is output written to the terminal and "r" a resize to
// "COLSxROWS".
//
// The console records exactly the bytes it writes to the terminal, so a
// recording shows nothing the screen did not show.
package asciicast

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// Header is the first line of a recording.
type Header struct {
	Version   int               `json:"version"`
	Width     int               `json:"width"`
	Height    int               `json:"height"`
	Timestamp int64             `json:"timestamp,omitempty"`
	Title     string            `json:"title,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
}

// Event is one line after the header: Time seconds after the recording
// began, Code "o" (output) or "r" (resize), and Data.
type Event struct {
	Time float64
	Code string
	Data string
}

// DefaultLimit is how many bytes of events a Writer records, unless told
// otherwise: hours of a busy console, since it writes only the rows that
// change, and far less than would fill a disk.
const DefaultLimit = 256 << 20

// ErrLimit is the error of a Writer that stopped recording at its limit.
var ErrLimit = errors.New("the recording reached its size limit and stopped")

// Writer records what is written to it as output events, stamped with the
// time since it was made. It is safe for concurrent use.
type Writer struct {
	// mu guards everything below: the terminal is written from the
	// console's event loop, and a resize may come from another goroutine.
	mu      sync.Mutex
	w       *bufio.Writer
	closer  io.Closer
	start   time.Time
	now     func() time.Time
	last    float64 // the last event's time, so that times never decrease
	partial []byte  // the start of a character the next write completes
	written int64
	limit   int64
	err     error
	closed  bool
}

// Options configure a Writer.
type Options struct {
	// Width and Height are the terminal's size when the recording starts.
	Width, Height int
	// Title names the recording in players that show one.
	Title string
	// Env holds the few variables players use, such as TERM. Nothing
	// else of the environment belongs in a recording.
	Env map[string]string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Limit bounds the bytes of events recorded; zero means DefaultLimit.
	Limit int64
}

// New writes the header of a recording to w and returns the Writer of its
// events. When w is an io.Closer, Close closes it.
func New(w io.Writer, o Options) (*Writer, error) {
	if o.Width <= 0 || o.Height <= 0 {
		return nil, fmt.Errorf("asciicast: a terminal of %dx%d cannot be recorded", o.Width, o.Height)
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	limit := o.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	rec := &Writer{w: bufio.NewWriterSize(w, 64<<10), now: now, limit: limit}
	if c, ok := w.(io.Closer); ok {
		rec.closer = c
	}
	rec.start = now()
	h := Header{Version: 2, Width: o.Width, Height: o.Height, Timestamp: rec.start.Unix(), Title: o.Title, Env: o.Env}
	line, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	rec.w.Write(append(line, '\n')) //nolint:errcheck // the flush below says
	if err := rec.w.Flush(); err != nil {
		return nil, fmt.Errorf("asciicast: writing the header: %w", err)
	}
	return rec, nil
}

// Write records p as output. A character split between two writes is
// recorded whole with the second, since an event's data is a JSON string of
// whole characters. Write reports an error only once recording has
// stopped; the caller's own writing to the terminal need not care.
func (r *Writer) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, errClosed
	}
	if r.err != nil {
		return 0, r.err
	}
	data := append(r.partial, p...)
	cut := completeUpTo(data)
	r.partial = append(r.partial[:0:0], data[cut:]...)
	if cut > 0 {
		r.event("o", string(data[:cut]))
	}
	if r.err != nil {
		return 0, r.err
	}
	return len(p), nil
}

// Resize records that the terminal now has cols columns and rows rows.
func (r *Writer) Resize(cols, rows int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil && !r.closed {
		r.event("r", strconv.Itoa(cols)+"x"+strconv.Itoa(rows))
	}
}

// Err returns why recording stopped, or nil while it goes on.
func (r *Writer) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Duration returns the time of the last event recorded.
func (r *Writer) Duration() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return time.Duration(r.last * float64(time.Second))
}

var errClosed = errors.New("asciicast: the recording is closed")

// Close records what is left of a split character, flushes the recording
// and closes the file under it. It returns the first error that stopped
// the recording, if one did.
func (r *Writer) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	if r.err == nil && len(r.partial) > 0 {
		r.event("o", string(r.partial))
	}
	err := r.err
	if ferr := r.w.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	if r.closer != nil {
		if cerr := r.closer.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}
	return err
}

// event writes one event line and flushes it, so that a recording cut
// short by a crash keeps everything up to its last frame. r.mu must be
// held.
func (r *Writer) event(code, data string) {
	t := r.now().Sub(r.start).Seconds()
	if t < r.last {
		t = r.last
	}
	r.last = t
	d, _ := json.Marshal(data) // a string always encodes
	line := make([]byte, 0, len(d)+32)
	line = append(line, '[')
	line = strconv.AppendFloat(line, t, 'f', 6, 64)
	line = append(line, `, "`...)
	line = append(line, code...)
	line = append(line, `", `...)
	line = append(line, d...)
	line = append(line, "]\n"...)
	if r.written+int64(len(line)) > r.limit {
		r.err = ErrLimit
		r.w.Flush() //nolint:errcheck // the limit is the error to report
		return
	}
	r.written += int64(len(line))
	r.w.Write(line) //nolint:errcheck // the flush reports it
	if err := r.w.Flush(); err != nil {
		r.err = fmt.Errorf("asciicast: %w", err)
	}
}

// completeUpTo returns how much of b ends on a whole character: all of it,
// unless it ends inside a UTF-8 sequence that more bytes could complete.
func completeUpTo(b []byte) int {
	for back := 1; back <= utf8.UTFMax-1 && back <= len(b); back++ {
		c := b[len(b)-back]
		if c < 0x80 {
			return len(b) // ASCII: nothing open
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-back:]) {
				return len(b) - back
			}
			return len(b)
		}
	}
	return len(b)
}

// Read parses a recording, checking that it is asciicast v2: a header with
// version 2 and a size, then events whose times never decrease, each with a
// known code. It is strict, since it exists to check recordings.
func Read(r io.Reader) (Header, []Event, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	var h Header
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return h, nil, err
		}
		return h, nil, errors.New("asciicast: empty recording")
	}
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
		return h, nil, fmt.Errorf("asciicast: line 1: the header: %w", err)
	}
	if h.Version != 2 {
		return h, nil, fmt.Errorf("asciicast: line 1: version %d, want 2", h.Version)
	}
	if h.Width <= 0 || h.Height <= 0 {
		return h, nil, fmt.Errorf("asciicast: line 1: size %dx%d", h.Width, h.Height)
	}
	var events []Event
	last := 0.0
	for n := 2; sc.Scan(); n++ {
		var raw []json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil || len(raw) != 3 {
			return h, events, fmt.Errorf("asciicast: line %d: not an event [time, code, data]", n)
		}
		var e Event
		if json.Unmarshal(raw[0], &e.Time) != nil || json.Unmarshal(raw[1], &e.Code) != nil || json.Unmarshal(raw[2], &e.Data) != nil {
			return h, events, fmt.Errorf("asciicast: line %d: not an event [time, code, data]", n)
		}
		if e.Time < last {
			return h, events, fmt.Errorf("asciicast: line %d: time %f is before %f", n, e.Time, last)
		}
		last = e.Time
		switch e.Code {
		case "o", "i", "m":
		case "r":
			if _, _, err := ParseSize(e.Data); err != nil {
				return h, events, fmt.Errorf("asciicast: line %d: %w", n, err)
			}
		default:
			return h, events, fmt.Errorf("asciicast: line %d: unknown event code %q", n, e.Code)
		}
		events = append(events, e)
	}
	return h, events, sc.Err()
}

// ParseSize reads the "COLSxROWS" of a resize event.
func ParseSize(s string) (cols, rows int, err error) {
	for i := 0; i < len(s); i++ {
		if s[i] == 'x' {
			cols, err1 := strconv.Atoi(s[:i])
			rows, err2 := strconv.Atoi(s[i+1:])
			if err1 == nil && err2 == nil && cols > 0 && rows > 0 {
				return cols, rows, nil
			}
			break
		}
	}
	return 0, 0, fmt.Errorf("resize %q is not COLSxROWS", s)
}
