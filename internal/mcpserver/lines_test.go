package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// initialize is a client's first request, as a line.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"1"}}}`

// answer is one JSON-RPC answer as the server wrote it.
type answer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Method string          `json:"method"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func parseAnswer(t *testing.T, line string) answer {
	t.Helper()
	var a answer
	if err := json.Unmarshal([]byte(line), &a); err != nil {
		t.Fatalf("the server wrote %q, which is not JSON: %v", line, err)
	}
	return a
}

// serveLines serves input, which ends at once, and returns the lines the
// server wrote.
func serveLines(t *testing.T, input string) []string {
	t.Helper()
	srv, _ := newServer(t)
	var out syncBuffer
	if err := srv.ServeStdio(context.Background(), strings.NewReader(input), &out); err != nil {
		t.Fatalf("ServeStdio = %v", err)
	}
	return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
}

// TestBadLinesAreAnsweredAndServingGoesOn checks that lines that are not
// JSON, or not JSON-RPC messages, get a JSON-RPC error each, under the id
// when one could be read, and that the requests after them are answered.
func TestBadLinesAreAnsweredAndServingGoesOn(t *testing.T) {
	bad := []struct {
		line string
		code int64
		id   string
		want string
	}{
		{"hello", -32700, "null", "parse error: invalid character 'h'"},
		{`{"jsonrpc":"2.0","id":2,"method":"ping"`, -32700, "null", "parse error: unexpected end of JSON input"},
		{`{"a":1} {"b":2}`, -32700, "null", "parse error"},
		{"{}", -32600, "null", `invalid request: "jsonrpc" must be "2.0"`},
		{"42", -32600, "null", "invalid request: a number is not a JSON-RPC message, which is an object"},
		{"[]", -32600, "null", "invalid request: an empty batch"},
		{`[{"jsonrpc":"2.0","id":3,"method":"ping"},7]`, -32600, "null", "in a batch, a number is not"},
		{`{"jsonrpc":"1.0","id":4,"method":"ping"}`, -32600, "4", `"jsonrpc" must be "2.0"`},
		{`{"jsonrpc":"2.0","id":"five","method":5}`, -32600, `"five"`, `"method" must be a string, not a number`},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, -32600, "null", `"id" must be a string, a number or null, not an object`},
		{`{"jsonrpc":"2.0","result":{}}`, -32600, "null", `needs a "method" (a request) or an "id"`},
	}
	var input strings.Builder
	for _, b := range bad {
		input.WriteString(b.line + "\n")
	}
	// Blank lines are no messages; spaces after a message are fine.
	input.WriteString("\n   \n" + initialize + "  \r\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":"last","method":"tools/list"}` + "\n")
	lines := serveLines(t, input.String())
	if len(lines) != len(bad)+2 {
		t.Fatalf("the server wrote %d lines, want %d:\n%s", len(lines), len(bad)+2, strings.Join(lines, "\n"))
	}
	for i, b := range bad {
		a := parseAnswer(t, lines[i])
		if a.Error == nil || a.Error.Code != b.code || string(a.ID) != b.id || !strings.Contains(a.Error.Message, b.want) {
			t.Errorf("%s was answered %s, want code %d, id %s and %q", b.line, lines[i], b.code, b.id, b.want)
		}
	}
	if a := parseAnswer(t, lines[len(bad)]); string(a.ID) != "1" || a.Error != nil || !strings.Contains(string(a.Result), `"serverInfo"`) {
		t.Errorf("initialize was answered %s", lines[len(bad)])
	}
	if a := parseAnswer(t, lines[len(bad)+1]); string(a.ID) != `"last"` || !strings.Contains(string(a.Result), `"run_goal"`) {
		t.Errorf("tools/list was answered %s", lines[len(bad)+1])
	}
}

// TestRequestsBeforeTheEndAreAnswered checks that a request read just
// before the stream ends is answered before the server lets go, as
// printf '…' | agenttui mcp needs.
func TestRequestsBeforeTheEndAreAnswered(t *testing.T) {
	for range 20 {
		lines := serveLines(t, "hello\n"+initialize+"\n"+`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		if len(lines) != 3 || !strings.Contains(lines[1], `"id":1,"result"`) || !strings.Contains(lines[2], `"id":2,"result"`) {
			t.Fatalf("the server wrote:\n%s", strings.Join(lines, "\n"))
		}
	}
}

// TestATooLongLineIsAnswered checks that a line longer than the SDK takes
// is answered with a parse error, and the next line is served.
func TestATooLongLineIsAnswered(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"` + strings.Repeat("x", maxLine) + `"}}`
	lines := serveLines(t, long+"\n"+initialize+"\n")
	if len(lines) != 2 {
		t.Fatalf("the server wrote %d lines, want 2", len(lines))
	}
	if a := parseAnswer(t, lines[0]); a.Error == nil || a.Error.Code != -32700 || !strings.Contains(a.Error.Message, "longer than") {
		t.Errorf("the long line was answered %.300s", lines[0])
	}
	if a := parseAnswer(t, lines[1]); string(a.ID) != "1" || a.Error != nil {
		t.Errorf("initialize was answered %.300s", lines[1])
	}
}

// rawClient speaks to ServeStdio line by line, as a client nobody wrote
// would.
type rawClient struct {
	t      *testing.T
	in     *io.PipeWriter
	lines  chan string
	served chan error
}

// serveRaw serves a fresh server over pipes until the test ends.
func serveRaw(t *testing.T) *rawClient {
	t.Helper()
	srv, _ := newServer(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &rawClient{t: t, in: inW, lines: make(chan string, 16), served: make(chan error, 1)}
	go func() {
		err := srv.ServeStdio(context.Background(), inR, outW)
		// The output ends with the server, as a process's does.
		_ = outW.Close()
		c.served <- err
	}()
	go func() {
		out := bufio.NewScanner(outR)
		out.Buffer(nil, 1<<20)
		for out.Scan() {
			c.lines <- out.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() { _ = inW.Close() })
	return c
}

func (c *rawClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("sending %s: %v", line, err)
	}
}

// line returns the next line the server wrote, failing the test when the
// server ended instead; a hang is a failure, not a reason to sleep.
func (c *rawClient) line() string {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			c.t.Fatalf("the server stopped writing: ServeStdio = %v", wait(c.t, c.served, "ServeStdio to return"))
		}
		return line
	case <-time.After(30 * time.Second):
		c.t.Fatal("timed out waiting for the server's next line")
	}
	return ""
}

// next returns the next line the server wrote, as an answer.
func (c *rawClient) next() answer {
	c.t.Helper()
	return parseAnswer(c.t, c.line())
}

// end closes the input and checks that the server then returns nil.
func (c *rawClient) end() {
	c.t.Helper()
	_ = c.in.Close()
	if err := wait(c.t, c.served, "ServeStdio to return"); err != nil {
		c.t.Errorf("ServeStdio = %v", err)
	}
}

// TestBatchesTheProtocolDropped checks that a batch, once the protocol has
// none, is an invalid request rather than the end of the connection (the
// SDK's answer), while a batch under the protocol that had them is served.
func TestBatchesTheProtocolDropped(t *testing.T) {
	c := serveRaw(t)
	c.send(initialize)
	if a := c.next(); string(a.ID) != "1" || !strings.Contains(string(a.Result), `"protocolVersion":"2025-06-18"`) {
		t.Fatalf("initialize was answered %+v", a)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
	if a := c.next(); a.Error == nil || a.Error.Code != -32600 || !strings.Contains(a.Error.Message, "protocol version 2025-06-18 does not have") {
		t.Errorf("the batch was answered %+v", a)
	}
	c.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if a := c.next(); string(a.ID) != "3" || a.Error != nil {
		t.Errorf("the ping after the batch was answered %+v", a)
	}
	c.end()

	// The protocol of 2025-03-26 had batches.
	c = serveRaw(t)
	c.send(strings.Replace(initialize, "2025-06-18", "2025-03-26", 1))
	if a := c.next(); !strings.Contains(string(a.Result), `"protocolVersion":"2025-03-26"`) {
		t.Fatalf("initialize was answered %+v", a)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`)
	if line := c.line(); !strings.HasPrefix(line, `[{"jsonrpc":"2.0","id":2,"result":{}}`) {
		t.Errorf("the batch was answered %s", line)
	}
	c.end()
}

// TestARequestIDInUseIsRefused checks that a request reusing the id of one
// still waiting for its answer is an invalid request under a null id (the
// SDK answers it with no id at all), and the first request is answered
// under its id.
func TestARequestIDInUseIsRefused(t *testing.T) {
	c := serveRaw(t)
	c.send(initialize)
	c.next()
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// The run asks its question through elicitation, and waits.
	c.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"run_goal","arguments":{"goal":"ask"}}}`)
	ask := c.next()
	if ask.Method != "elicitation/create" {
		t.Fatalf("the server wrote %+v, want the question", ask)
	}
	c.send(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	if a := c.next(); a.Error == nil || a.Error.Code != -32600 || string(a.ID) != "null" || !strings.Contains(a.Error.Message, "the request id 5 is already waiting") {
		t.Errorf("the reused id was answered %+v", a)
	}
	c.send(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":{"action":"accept","content":{"answer":"b.txt"}}}`)
	if a := c.next(); string(a.ID) != "5" || !strings.Contains(string(a.Result), "I will change b.txt.") {
		t.Errorf("the run was answered %+v", a)
	}
	c.end()
}

// TestTheSDKClientStillWorks checks the transport with the SDK's own
// client after a bad line: it initializes and runs a goal.
func TestTheSDKClientStillWorks(t *testing.T) {
	c := serveRaw(t)
	c.send("not json")
	if a := c.next(); a.Error == nil || a.Error.Code != -32700 {
		t.Fatalf("the bad line was answered %+v", a)
	}
	// The client reads the rest of what the server writes.
	rest, restW := io.Pipe()
	go func() {
		for line := range c.lines {
			if _, err := io.WriteString(restW, line+"\n"); err != nil {
				return
			}
		}
		_ = restW.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).
		Connect(context.Background(), &mcp.IOTransport{Reader: rest, Writer: c.in}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res := call(t, cs, "run_goal", map[string]any{"goal": "read a"}); res.IsError {
		t.Errorf("run_goal = %q", texts(t, res))
	}
	_ = cs.Close()
	if err := wait(t, c.served, "ServeStdio to return"); err != nil {
		t.Errorf("ServeStdio = %v", err)
	}
}
