package mcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/agenttui/agenttui/runtime/tool"
)

// MaxAnswerBytes bounds one message a stdio server sends, an answer to a
// call included. A larger one is not read into memory: the call it answers
// fails, saying how large the answer was, and the server goes on serving.
const MaxAnswerBytes = 16 << 20

// oversizeCode is the JSON-RPC error code of the answer that stands in for
// one that was too large; codes from -32000 to -32099 are the
// implementation's own.
const oversizeCode = -32090

// frameGuard reads a stdio server's newline-delimited JSON-RPC messages and
// passes them on, but replaces each message larger than limit with an error
// answer to the same request: the SDK would otherwise give up on the whole
// connection, as if the server had died, when it only answered at length.
// Only one message is held in memory at a time, and at most limit bytes of
// it.
type frameGuard struct {
	src   *bufio.Reader
	src0  io.Closer
	limit int
	// pending is what is ready to be read by the SDK.
	pending []byte
	err     error
	// oversized is called with the id and size of each message replaced.
	oversized func(id string, size int)
}

func newFrameGuard(r io.ReadCloser, limit int, oversized func(id string, size int)) *frameGuard {
	return &frameGuard{src: bufio.NewReaderSize(r, 64<<10), src0: r, limit: limit, oversized: oversized}
}

// Read implements io.Reader.
func (g *frameGuard) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		if g.err != nil {
			return 0, g.err
		}
		g.pending, g.err = g.next()
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

// Close closes the server's output.
func (g *frameGuard) Close() error { return g.src0.Close() }

// next returns the next message to pass on, with its newline.
func (g *frameGuard) next() ([]byte, error) {
	var line []byte
	for {
		chunk, err := g.src.ReadSlice('\n')
		line = append(line, chunk...)
		switch {
		case len(line) > g.limit:
			return g.drop(line, err != bufio.ErrBufferFull)
		case err == nil:
			return line, nil
		case err == bufio.ErrBufferFull:
			continue
		default:
			return line, err
		}
	}
}

// drop reads the rest of a message too large to pass on, keeping only what
// identifies it, and returns the error answer that stands in for it.
// whole says start holds all of it, its newline included.
func (g *frameGuard) drop(start []byte, whole bool) ([]byte, error) {
	var sc idScanner
	sc.feed(start)
	size := len(start)
	var err error
	for !whole {
		var chunk []byte
		chunk, err = g.src.ReadSlice('\n')
		sc.feed(chunk)
		size += len(chunk)
		whole = err != bufio.ErrBufferFull
	}
	if err == nil && size > 0 {
		size-- // the newline
	}
	if g.oversized != nil {
		g.oversized(string(sc.id), size)
	}
	if len(sc.id) == 0 || !sc.answer {
		// A notification or a request of the server's: nobody waits for
		// it, so it is dropped.
		return nil, err
	}
	msg := fmt.Sprintf("the answer was %s (%d bytes), larger than the %s a message may be", tool.FormatSize(int64(size)), size,
		tool.FormatSize(int64(g.limit)))
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(sc.id),
		"error": map[string]any{"code": oversizeCode, "message": msg, "data": map[string]int{"size": size}}})
	return append(b, '\n'), err
}

// idScanner follows a JSON object as its bytes stream by, without holding
// it, and keeps the value of its top-level "id" (a number or a string, as
// JSON text) and whether it is an answer: it has a top-level "result" or
// "error".
type idScanner struct {
	depth            int
	inString, escape bool
	// key is the top-level key being read, or the last one read;
	// inKey says a key is being read.
	key   []byte
	inKey bool
	// reading says the top-level id's value is being read into id.
	reading bool
	id      []byte
	answer  bool
}

func (s *idScanner) feed(b []byte) {
	for _, c := range b {
		s.step(c)
	}
}

func (s *idScanner) step(c byte) {
	if s.inString {
		if s.reading {
			s.id = append(s.id, c)
		}
		if s.inKey && len(s.key) < 16 && !(c == '"' && !s.escape) {
			s.key = append(s.key, c)
		}
		switch {
		case s.escape:
			s.escape = false
		case c == '\\':
			s.escape = true
		case c == '"':
			s.inString, s.inKey = false, false
			s.reading = false
		}
		return
	}
	if s.reading {
		switch {
		case c == '"' && len(s.id) == 0:
			s.id = append(s.id, c)
			s.inString = true
			return
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if len(s.id) > 0 {
				s.reading = false
			}
			return
		case c == ',' || c == '}':
			s.reading = false
		default:
			if len(s.id) < 64 {
				s.id = append(s.id, c)
			}
			return
		}
	}
	switch c {
	case '"':
		s.inString = true
		// At the top level, a string after '{' or ',' is a key.
		if s.depth == 1 && s.key == nil {
			s.inKey = true
			s.key = []byte{}
		}
	case ':':
		if s.depth == 1 {
			switch string(s.key) {
			case "id":
				s.reading, s.id = true, nil
			case "result", "error":
				s.answer = true
			}
		}
	case ',':
		if s.depth == 1 {
			s.key = nil
		}
	case '{', '[':
		s.depth++
	case '}', ']':
		s.depth--
	}
}
