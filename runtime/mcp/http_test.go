package mcp_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttui/agenttui/runtime/mcp"
	"github.com/agenttui/agenttui/runtime/tool"
)

// httpServer is an in-process MCP server over streamable HTTP.
type httpServer struct {
	srv     *sdk.Server
	hs      *httptest.Server
	started chan struct{} // one value each time hang starts
	release chan struct{} // closed by stop, or at the end of the test
	stop    func()

	mu   sync.Mutex
	auth []string // the Authorization header of each request
}

func newHTTPServer(t *testing.T) *httpServer {
	h := &httpServer{
		srv:     sdk.NewServer(&sdk.Implementation{Name: "h", Version: "1"}, nil),
		started: make(chan struct{}, 10),
		release: make(chan struct{}),
	}
	schema := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)
	addText := func(name string, readOnly, isError bool, text func(args map[string]any) string) {
		h.srv.AddTool(&sdk.Tool{Name: name, InputSchema: schema, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: readOnly}},
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				var args map[string]any
				_ = json.Unmarshal(req.Params.Arguments, &args)
				return &sdk.CallToolResult{IsError: isError, Content: []sdk.Content{&sdk.TextContent{Text: text(args)}}}, nil
			})
	}
	addText("echo", true, false, func(args map[string]any) string { s, _ := args["text"].(string); return s })
	addText("fail", false, true, func(map[string]any) string { return "quota exceeded" })
	h.srv.AddTool(&sdk.Tool{Name: "hang", InputSchema: schema},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			h.started <- struct{}{}
			select {
			case <-ctx.Done():
			case <-h.release:
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "released"}}}, nil
		})
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return h.srv }, nil)
	h.hs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.auth = append(h.auth, r.Header.Get("Authorization"))
		h.mu.Unlock()
		handler.ServeHTTP(w, r)
	}))
	h.stop = sync.OnceFunc(func() { close(h.release) })
	t.Cleanup(func() {
		h.stop()
		h.hs.Close()
	})
	return h
}

func (h *httpServer) config(t *testing.T, name string) mcp.ServerConfig {
	t.Helper()
	cfg, err := mcp.ParseConfig("x/.mcp.json", []byte(`{"mcpServers": {"`+name+`": {"type": "http", "url": "`+h.hs.URL+`",
		"headers": {"Authorization": "Bearer ${AGENTTUI_TEST_TOKEN}"}}}}`),
		func(k string) (string, bool) { return "tok-123", k == "AGENTTUI_TEST_TOKEN" })
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Servers[0]
}

func TestHTTPServer(t *testing.T) {
	h := newHTTPServer(t)
	m, r := start(t, mcp.Options{}, h.config(t, "h"))
	st := status(t, m, "h")
	if st.State != mcp.StateReady || st.Transport != mcp.TransportHTTP || st.Tools != 3 || st.PID != 0 {
		t.Fatalf("status %+v", st)
	}
	if d := find(m, "h__echo").Declaration(); !d.Untrusted || d.Source != "tool://h/echo" || !d.Annotations.ReadOnly {
		t.Errorf("declaration %+v", d)
	}
	if _, text := call(t, m, "h__echo", `{"text":"over http"}`); text != "over http" {
		t.Errorf("echo: %q", text)
	}
	h.mu.Lock()
	for _, a := range h.auth {
		if a != "Bearer tok-123" {
			t.Errorf("a request carried Authorization %q", a)
		}
	}
	h.mu.Unlock()

	ret, text := call(t, m, "h__fail", `{}`)
	if !ret.Outcome().IsErrorKind(tool.KindOther) || text != "quota exceeded" {
		t.Errorf("isError over HTTP: %v %q", ret.Outcome(), text)
	}

	// A tool added on the server reaches the catalogue.
	h.srv.AddTool(&sdk.Tool{Name: "late", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "late but here"}}}, nil
		})
	awaitChange(t, r, "h__late is offered", func() bool { return find(m, "h__late") != nil })
	if _, text := call(t, m, "h__late", `{}`); text != "late but here" {
		t.Errorf("late tool: %q", text)
	}
}

func TestHTTPConnectionBrokenMidCall(t *testing.T) {
	h := newHTTPServer(t)
	m, r := start(t, mcp.Options{}, h.config(t, "h"))
	hang := find(m, "h__hang")
	done := make(chan tool.Return, 1)
	go func() { done <- hang.Call(context.Background(), json.RawMessage(`{}`)) }()
	<-h.started
	h.hs.CloseClientConnections()
	ret := <-done
	// The server's handler does not see its client go; let it end, so the
	// session's end is not held up by it.
	h.stop()
	text, _ := ret.Output.(string)
	if !ret.Outcome().IsErrorKind(tool.KindNetwork) || !strings.Contains(text, `The MCP server "h" stopped while running this call`) {
		t.Fatalf("broken connection: %v %q", ret.Outcome(), text)
	}
	if st := status(t, m, "h"); st.State != mcp.StateStopped {
		t.Errorf("status %+v", st)
	}
	// The next call connects again.
	if ret, text := call(t, m, "h__echo", `{"text":"back"}`); !ret.Outcome().IsSuccess() || text != "back" {
		t.Errorf("after reconnecting: %v %q; notices:\n%s", ret.Outcome(), text, r.texts())
	}
	if st := status(t, m, "h"); st.State != mcp.StateReady {
		t.Errorf("status %+v", st)
	}
}

func TestHTTPUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	m, r := start(t, mcp.Options{}, mcp.ServerConfig{Name: "gone", Transport: mcp.TransportHTTP, URL: url}, stdio("good"))
	if st := status(t, m, "gone"); st.State != mcp.StateFailed || !strings.Contains(st.Err, "connection refused") {
		t.Errorf("status %+v", st)
	}
	if !strings.Contains(r.texts(), `warning: MCP server "gone" did not start`) {
		t.Errorf("notices:\n%s", r.texts())
	}
	if st := status(t, m, "good"); st.State != mcp.StateReady {
		t.Errorf("good: %+v", st)
	}
}
