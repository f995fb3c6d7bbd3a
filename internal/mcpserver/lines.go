package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lineTransport carries newline-delimited JSON-RPC over a stream, as
// agenttui mcp speaks it on its standard input and output. It stands in
// front of the SDK's IOTransport, whose connection ends at the first line
// that is not a JSON-RPC message it can take, ending every session the
// server holds with it. The transport reads each line itself: one that is
// not JSON is answered with a parse error (-32700), one that is JSON but no
// JSON-RPC message the SDK can take with an invalid request (-32600), and
// the server goes on; a good line passes to the SDK unchanged.
//
// When the stream ends, the requests already read are answered before the
// SDK hears of the end (it drops the answers still being made when its
// reading stops): atEnd stops the work in flight, and the transport waits,
// at most drainWait, for the answers to be written.
type lineTransport struct {
	in    io.ReadCloser
	out   *answerWriter
	atEnd func()
	// closed ends when the connection is closed, so that nothing waits
	// for answers that can no longer be written.
	closed    chan struct{}
	closeOnce sync.Once
}

// drainWait bounds how long the end of the stream waits for the answers to
// the requests read before it: long enough for atEnd to stop the runs (the
// runtime gives running calls two seconds), short enough that a handler that
// never returns cannot keep the process alive.
const drainWait = 10 * time.Second

// batchesDropped is the first protocol version without JSON-RPC batches.
const batchesDropped = "2025-06-18"

// maxLine is the longest line taken, newline included: the SDK's own bound.
const maxLine = mcp.DefaultMaxLineLength

// newLineTransport serves over in and out; atEnd is called when in ends.
func newLineTransport(in io.ReadCloser, out io.Writer, atEnd func()) *lineTransport {
	return &lineTransport{in: in, out: newAnswerWriter(out), atEnd: atEnd, closed: make(chan struct{})}
}

// Connect implements mcp.Transport.
func (t *lineTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	pr, pw := io.Pipe()
	conn, err := (&mcp.IOTransport{Reader: &checkedReader{PipeReader: pr, t: t}, Writer: nopWriteCloser{t.out}}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	go t.pump(pw)
	return conn, nil
}

// checkedReader is what the SDK reads: the lines the transport let through.
// Closing it also closes the stream the lines come from, since a read
// blocked on it could not end otherwise.
type checkedReader struct {
	*io.PipeReader
	t *lineTransport
}

func (r *checkedReader) Close() error {
	r.t.closeOnce.Do(func() { close(r.t.closed) })
	return errors.Join(r.PipeReader.Close(), r.t.in.Close())
}

// pump reads the stream line by line and passes each good line to the SDK,
// answering the others itself, until the stream or the SDK's side ends.
func (t *lineTransport) pump(pw *io.PipeWriter) {
	r := bufio.NewReaderSize(t.in, 64*1024)
	for {
		line, tooLong, err := readLine(r)
		if tooLong {
			t.out.answer(&problem{code: jsonrpc.CodeParseError, reason: fmt.Sprintf("a message longer than %d bytes", maxLine-1)})
		} else if len(bytes.TrimSpace(line)) > 0 {
			if !t.pass(pw, line) {
				return
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				go t.atEnd()
				t.out.awaitAnswers(t.closed, drainWait)
				err = nil
			}
			pw.CloseWithError(err)
			return
		}
	}
}

// pass answers a line that is not a message the SDK can take and hands the
// others to it; it reports false once the SDK's side is gone.
func (t *lineTransport) pass(pw *io.PipeWriter, line []byte) bool {
	line = bytes.TrimSpace(line)
	calls, p := t.check(line)
	if p != nil {
		t.out.answer(p)
		return true
	}
	// The calls count as waiting before the SDK can answer them.
	t.out.expect(calls)
	// The SDK's reader takes one value a line, with nothing after it.
	_, err := pw.Write(append(line, '\n'))
	return err == nil
}

// readLine reads one line, newline excluded. A line longer than maxLine,
// newline included, is read to its end and dropped (tooLong). err is the
// stream's, with what came before it in line.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			line = append(line, chunk...)
			if len(bytes.TrimSuffix(line, []byte("\n"))) > maxLine-1 {
				tooLong, line = true, nil
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
		}
	}
}

// problem is the error a line is answered with, under the id of its
// request when that could be read (null otherwise): its code, and the
// reason that follows the code's name in its message.
type problem struct {
	id     json.RawMessage
	code   int64
	reason string
}

// message is the error's message: the code's name, then the reason.
func (p *problem) message() string {
	if p.code == jsonrpc.CodeParseError {
		return "parse error: " + p.reason
	}
	return "invalid request: " + p.reason
}

func invalid(id json.RawMessage, format string, args ...any) *problem {
	return &problem{id: id, code: jsonrpc.CodeInvalidRequest, reason: fmt.Sprintf(format, args...)}
}

// check reads a line as the SDK would and says what is wrong with it, or
// returns the requests it holds that the SDK will answer. It
// refuses what would end the SDK's connection: a line that is not JSON or
// not a JSON-RPC message, an empty batch, a batch once the protocol no
// longer has them, and a request id that is already waiting for its answer.
func (t *lineTransport) check(line []byte) ([]*jsonrpc.Request, *problem) {
	var v any
	if err := json.Unmarshal(line, &v); err != nil {
		return nil, &problem{code: jsonrpc.CodeParseError, reason: err.Error()}
	}
	if _, batch := v.([]any); !batch {
		return t.checkOne(line)
	}
	var items []json.RawMessage
	_ = json.Unmarshal(line, &items)
	if len(items) == 0 {
		return nil, invalid(nil, "an empty batch")
	}
	// The SDK refuses batches, ending the connection, from the protocol
	// version that dropped them on.
	switch v, initializing := t.out.protocol(); {
	case initializing:
		return nil, invalid(nil, "a batch before the answer to initialize")
	case v >= batchesDropped:
		return nil, invalid(nil, "a batch, which protocol version %s does not have", v)
	}
	var calls []*jsonrpc.Request
	for _, item := range items {
		got, p := t.checkOne(item)
		if p != nil {
			return nil, invalid(nil, "in a batch, %s", p.reason)
		}
		for _, call := range got {
			for _, seen := range calls {
				if call.ID == seen.ID {
					return nil, invalid(nil, "the batch uses the request id %v twice", call.ID.Raw())
				}
			}
			calls = append(calls, call)
		}
	}
	return calls, nil
}

// checkOne checks one message of a line; see check.
func (t *lineTransport) checkOne(raw json.RawMessage) ([]*jsonrpc.Request, *problem) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, invalid(nil, "%s is not a JSON-RPC message, which is an object", jsonKind(raw))
	}
	var f struct {
		Version json.RawMessage `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
	}
	_ = json.Unmarshal(raw, &f) // an object: check has read it
	var id json.RawMessage
	switch kind := jsonKind(f.ID); kind {
	case "a string", "a number":
		id = f.ID
	case "nothing", "null":
	default:
		return nil, invalid(nil, `"id" must be a string, a number or null, not %s`, kind)
	}
	var version, method string
	switch {
	case json.Unmarshal(f.Version, &version) != nil || version != "2.0":
		return nil, invalid(id, `"jsonrpc" must be "2.0"`)
	case f.Method != nil && json.Unmarshal(f.Method, &method) != nil:
		return nil, invalid(id, `"method" must be a string, not %s`, jsonKind(f.Method))
	case f.Method == nil && id == nil:
		return nil, invalid(nil, `a message needs a "method" (a request) or an "id" (a response)`)
	}
	msg, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		return nil, invalid(id, "%v", err)
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return nil, nil
	}
	if t.out.waiting(req.ID) {
		return nil, invalid(nil, "the request id %s is already waiting for its answer", id)
	}
	return []*jsonrpc.Request{req}, nil
}

// jsonKind names the kind of a JSON value, for messages.
func jsonKind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
