package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// answerWriter is the output of a lineTransport. The SDK writes each of its
// messages (or batches) with one Write, and the transport its own answers
// to bad lines; a lock keeps every line whole. It also follows what is
// written: which requests the SDK has answered, so that the end of the
// stream can wait for the rest, and the protocol version the initialize
// answer settled, which says whether batches may still come.
type answerWriter struct {
	mu      sync.Mutex // serialises writes
	w       io.Writer
	stateMu sync.Mutex // guards the fields below
	// pending holds the ids of the requests passed to the SDK and not yet
	// answered; changed is closed and replaced whenever one is answered.
	pending map[jsonrpc.ID]bool
	changed chan struct{}
	// initialize is the id of the initialize request, while it waits;
	// version is the protocol version its answer gave.
	initialize *jsonrpc.ID
	version    string
}

func newAnswerWriter(w io.Writer) *answerWriter {
	return &answerWriter{w: w, pending: map[jsonrpc.ID]bool{}, changed: make(chan struct{})}
}

// Write implements io.Writer for the SDK's messages.
func (a *answerWriter) Write(p []byte) (int, error) {
	// What the line answers counts before the client can read it, and so
	// reuse an id or send what the protocol allows. The end of the stream
	// may then stop waiting before the line is out; the SDK still writes
	// it, since it lets go of the stream only when its handlers return,
	// which is after this write.
	a.note(parseWritten(p))
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.w.Write(p)
}

// answer writes the error a bad line gets, under its request's id or null.
func (a *answerWriter) answer(p *problem) {
	id := p.id
	if id == nil {
		id = json.RawMessage("null")
	}
	line, _ := json.Marshal(struct {
		Version string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: p.code, Message: p.message()}})
	a.mu.Lock()
	defer a.mu.Unlock()
	_, _ = a.w.Write(append(line, '\n'))
}

// expect records requests passed to the SDK, which will answer them. The
// initialize request is remembered, so that its answer's protocol version
// can be read.
func (a *answerWriter) expect(calls []*jsonrpc.Request) {
	a.stateMu.Lock()
	defer a.stateMu.Unlock()
	for _, c := range calls {
		a.pending[c.ID] = true
		if c.Method == "initialize" {
			id := c.ID
			a.initialize = &id
		}
	}
}

// waiting reports whether the request id is passed and not yet answered.
func (a *answerWriter) waiting(id jsonrpc.ID) bool {
	a.stateMu.Lock()
	defer a.stateMu.Unlock()
	return a.pending[id]
}

// protocol returns the protocol version the initialize answer settled, ""
// before it, and whether an initialize request waits for its answer (the
// SDK may have settled the version already).
func (a *answerWriter) protocol() (version string, initializing bool) {
	a.stateMu.Lock()
	defer a.stateMu.Unlock()
	return a.version, a.initialize != nil
}

// written is the part of an outgoing message the writer reads.
type written struct {
	ID     any             `json:"id"`
	Method json.RawMessage `json:"method"`
	Result *struct {
		ProtocolVersion string `json:"protocolVersion"`
	} `json:"result"`
}

// parseWritten reads the messages of a written line.
func parseWritten(p []byte) []written {
	var msgs []written
	if p = bytes.TrimSpace(p); len(p) > 0 && p[0] == '[' {
		_ = json.Unmarshal(p, &msgs)
	} else {
		var m written
		if json.Unmarshal(p, &m) == nil {
			msgs = append(msgs, m)
		}
	}
	return msgs
}

// answerTo returns the id of the request m answers, if it is an answer.
func (m written) answerTo() (jsonrpc.ID, bool) {
	id, err := jsonrpc.MakeID(m.ID)
	return id, m.Method == nil && err == nil && id.IsValid()
}

// note counts the requests msgs answer as answered, and reads the protocol
// version from the answer to initialize.
func (a *answerWriter) note(msgs []written) {
	a.stateMu.Lock()
	defer a.stateMu.Unlock()
	for _, m := range msgs {
		id, ok := m.answerTo()
		if !ok || !a.pending[id] {
			continue
		}
		delete(a.pending, id)
		close(a.changed)
		a.changed = make(chan struct{})
		if a.initialize != nil && *a.initialize == id {
			if m.Result != nil {
				a.version = m.Result.ProtocolVersion
			}
			a.initialize = nil
		}
	}
}

// awaitAnswers waits until every request passed to the SDK is answered,
// closed ends or limit has passed.
func (a *answerWriter) awaitAnswers(closed <-chan struct{}, limit time.Duration) {
	timeout := time.NewTimer(limit)
	defer timeout.Stop()
	for {
		a.stateMu.Lock()
		left, changed := len(a.pending), a.changed
		a.stateMu.Unlock()
		if left == 0 {
			return
		}
		select {
		case <-changed:
		case <-closed:
			return
		case <-timeout.C:
			return
		}
	}
}
