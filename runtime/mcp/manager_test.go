package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	art "github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/mcp"
	"github.com/agenttui/agenttui/runtime/tool"
)

func TestToolsComeInUntrustedWithHintFootprints(t *testing.T) {
	m, r := start(t, mcp.Options{}, stdio("t", "-oddnames"))
	st := status(t, m, "t")
	if st.State != mcp.StateReady || st.Transport != mcp.TransportStdio || st.PID == 0 || st.Err != "" {
		t.Fatalf("status %+v", st)
	}
	got := names(m.Tools())
	want := []string{"t__big", "t__binary", "t__change", "t__die", "t__dotted_name", "t__echo", "t__env", "t__fail", "t__hang", "t__pid", "t__spawn", "t__structured"}
	if !slices.Equal(got, want) {
		t.Fatalf("tools %v\nwant %v", got, want)
	}
	if st.Tools != len(want) {
		t.Errorf("status counts %d tools, want %d", st.Tools, len(want))
	}
	if !strings.Contains(r.texts(), `warning: MCP server "t": tool "longlonglong`) ||
		!strings.Contains(r.texts(), "is longer than the 64 characters model providers allow") {
		t.Errorf("no notice for the tool whose name is too long:\n%s", r.texts())
	}

	echo := find(m, "t__echo").Declaration()
	if !echo.Untrusted || echo.Source != "tool://t/echo" || echo.Description != "Echoes its text." ||
		!echo.Annotations.ReadOnly || echo.Retry != nil || echo.Idempotent() {
		t.Errorf("echo declaration %+v", echo)
	}
	if !strings.Contains(string(echo.Parameters), `"required":["text"]`) {
		t.Errorf("echo schema %s", echo.Parameters)
	}
	if d := find(m, "t__dotted_name").Declaration(); d.Source != "tool://t/dotted.name" {
		t.Errorf("dotted source %q", d.Source)
	}
	if _, text := call(t, m, "t__dotted_name", `{}`); text != "dotted" {
		t.Errorf("the sanitised tool answered %q", text)
	}
	for _, tl := range m.Tools() {
		if _, ok := tl.(tool.Footprinter); ok {
			t.Errorf("%s computes its own footprint", tl.Declaration().Name)
		}
	}

	// The runtime gives the hints their untrusted meaning.
	cat, left := art.BuildCatalog(m.Tools()...)
	if len(left) > 0 {
		t.Fatalf("left out: %v", left)
	}
	for name, want := range map[string]tool.Touches{
		"t__echo": tool.Independent(),
		"t__fail": tool.Writes(tool.Anything()),
		"t__die":  tool.Writes(tool.Anything()),
	} {
		p, err := cat.Prepare(tool.Call{ID: "1", Name: name, Arguments: map[bool]string{true: `{"text":"x"}`, false: `{}`}[name == "t__echo"]})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if p.Touches.String() != want.String() {
			t.Errorf("%s touches %s, want %s", name, p.Touches, want)
		}
	}
}

func TestResults(t *testing.T) {
	m, _ := start(t, mcp.Options{}, stdio("t"))
	ret, text := call(t, m, "t__echo", `{"text":"hello there"}`)
	if !ret.Outcome().IsSuccess() || text != "hello there" {
		t.Errorf("echo: %v %q", ret.Outcome(), text)
	}
	ret, text = call(t, m, "t__structured", `{}`)
	if !ret.Outcome().IsSuccess() || text != `{"answer":42}` {
		t.Errorf("structured: %v %q", ret.Outcome(), text)
	}

	ret, text = call(t, m, "t__fail", `{}`)
	if !ret.Outcome().IsErrorKind(tool.KindOther) || text != "the thing went wrong: disk on fire" {
		t.Errorf("isError: %v %q", ret.Outcome(), text)
	}
	if f := ret.Outcome().Failure(); !strings.Contains(f.Message, "disk on fire") {
		t.Errorf("failure message %q", f.Message)
	}
	if st := status(t, m, "t"); st.State != mcp.StateReady {
		t.Errorf("an isError result changed the server: %+v", st)
	}
	if _, text := call(t, m, "t__echo", `{"text":"still here"}`); text != "still here" {
		t.Errorf("after isError: %q", text)
	}
}

func TestEnvExpansion(t *testing.T) {
	cfg, err := mcp.ParseConfig("x/.mcp.json", []byte(`{"mcpServers": {"t": {"command": "`+testServer+`",
		"env": {"GREETING": "hello ${AGENTTUI_TEST_NAME}", "PLAIN": "p"}}}}`),
		func(k string) (string, bool) {
			return map[string]string{"AGENTTUI_TEST_NAME": "world"}[k], k == "AGENTTUI_TEST_NAME"
		})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := start(t, mcp.Options{}, cfg.Servers...)
	if _, text := call(t, m, "t__env", `{"name":"GREETING"}`); text != "hello world" {
		t.Errorf("GREETING=%q", text)
	}
	if _, text := call(t, m, "t__env", `{"name":"PATH"}`); text == "" {
		t.Error("the server does not inherit the environment")
	}
}

func TestServerKilledMidCallIsRestartedOnceThenDown(t *testing.T) {
	m, r := start(t, mcp.Options{}, stdio("t"), stdio("other"))
	first := status(t, m, "t").PID

	ret, text := call(t, m, "t__die", `{}`)
	if !ret.Outcome().IsErrorKind(tool.KindOther) || !strings.Contains(text, `The MCP server "t" stopped while running this call`) ||
		!strings.Contains(text, "started again at the next call") {
		t.Fatalf("first death: %v %q", ret.Outcome(), text)
	}
	if st := status(t, m, "t"); st.State != mcp.StateStopped || !strings.Contains(st.Err, "stopped") {
		t.Errorf("after the first death: %+v", st)
	}
	if !gone(first, 10*time.Second) {
		t.Errorf("the dead server's process %d is still there", first)
	}
	if find(m, "t__echo") == nil {
		t.Error("a stopped server's tools are no longer offered")
	}

	// The next call restarts it.
	ret, text = call(t, m, "t__pid", `{}`)
	if !ret.Outcome().IsSuccess() || text == strconv.Itoa(first) {
		t.Fatalf("after the restart: %v %q (first pid %d)", ret.Outcome(), text, first)
	}
	if st := status(t, m, "t"); st.State != mcp.StateReady || strconv.Itoa(st.PID) != text {
		t.Errorf("after the restart: %+v, pid %s", st, text)
	}
	awaitChange(t, r, "the restart is reported", func() bool {
		return strings.Contains(r.texts(), `info: MCP server "t" was restarted`)
	})

	// A second death marks it down and takes its tools away.
	ret, text = call(t, m, "t__die", `{}`)
	if !ret.Outcome().IsErrorKind(tool.KindOther) || !strings.Contains(text, "now down") {
		t.Fatalf("second death: %v %q", ret.Outcome(), text)
	}
	// The call can return before the notice is sent when the process
	// watcher noticed the death first, so the test waits for both.
	awaitChange(t, r, "the tools of t are gone and the server is reported down", func() bool {
		return find(m, "t__echo") == nil && strings.Contains(r.texts(), `warning: MCP server "t" is down`)
	})
	if st := status(t, m, "t"); st.State != mcp.StateDown || st.Tools != 0 || st.PID != 0 {
		t.Errorf("after the second death: %+v", st)
	}

	if find(m, "other__echo") == nil {
		t.Fatal("the other server lost its tools")
	}
	if _, text := call(t, m, "other__echo", `{"text":"fine"}`); text != "fine" {
		t.Errorf("the other server: %q", text)
	}
}

func TestDownServerFailsAtOnce(t *testing.T) {
	m, _ := start(t, mcp.Options{}, stdio("t"))
	die := find(m, "t__die")
	echo := find(m, "t__echo")
	callTool(t, die, `{}`)
	callTool(t, die, `{}`) // restarted, then dies again
	if st := status(t, m, "t"); st.State != mcp.StateDown {
		t.Fatalf("status %+v", st)
	}
	ret, text := callTool(t, echo, `{"text":"x"}`)
	if !ret.Outcome().IsErrorKind(tool.KindOther) || !strings.Contains(text, `The MCP server "t" is down`) ||
		!strings.Contains(text, "so this call did not run") {
		t.Errorf("call to a down server: %v %q", ret.Outcome(), text)
	}
}

func TestStartTimeoutAndFailures(t *testing.T) {
	m, r := start(t, mcp.Options{StartTimeout: 500 * time.Millisecond},
		stdio("mute", "-noinit"),
		stdio("crash", "-crash"),
		mcp.ServerConfig{Name: "missing", Transport: mcp.TransportStdio, Command: "/nonexistent/agenttui-no-such-server"},
		stdio("good"))
	mute := status(t, m, "mute")
	if mute.State != mcp.StateFailed || !strings.Contains(mute.Err, "did not answer within 500ms") || mute.PID != 0 {
		t.Errorf("mute: %+v", mute)
	}
	crash := status(t, m, "crash")
	if crash.State != mcp.StateFailed || !strings.Contains(crash.Err, "fatal: cannot open the database") {
		t.Errorf("crash: %+v", crash)
	}
	missing := status(t, m, "missing")
	if missing.State != mcp.StateFailed || !strings.Contains(missing.Err, "no such file or directory") {
		t.Errorf("missing: %+v", missing)
	}
	if good := status(t, m, "good"); good.State != mcp.StateReady || good.Tools == 0 {
		t.Errorf("good: %+v", good)
	}
	notices := r.texts()
	t.Logf("notices:\n%s", notices)
	for _, want := range []string{
		`warning: MCP server "mute" did not start: it did not answer within 500ms; its tools are not available`,
		`warning: MCP server "crash" did not start:`,
		`warning: MCP server "missing" did not start:`,
	} {
		if !strings.Contains(notices, want) {
			t.Errorf("no notice %q in:\n%s", want, notices)
		}
	}
	for _, tl := range m.Tools() {
		if !strings.HasPrefix(tl.Declaration().Name, "good__") {
			t.Errorf("tool %s of a failed server is offered", tl.Declaration().Name)
		}
	}
	if _, text := call(t, m, "good__echo", `{"text":"ok"}`); text != "ok" {
		t.Errorf("good: %q", text)
	}
}

func TestToolListChange(t *testing.T) {
	m, r := start(t, mcp.Options{}, stdio("t"))
	oldFail := find(m, "t__fail")
	if _, text := call(t, m, "t__change", `{}`); text != "changed" {
		t.Fatalf("change: %q", text)
	}
	awaitChange(t, r, "t__added_later is offered and t__fail is not", func() bool {
		return find(m, "t__added_later") != nil && find(m, "t__fail") == nil
	})
	if _, text := call(t, m, "t__added_later", `{}`); text != "I am new" {
		t.Errorf("new tool: %q", text)
	}
	if d := find(m, "t__added_later").Declaration(); !d.Untrusted || d.Source != "tool://t/added_later" {
		t.Errorf("new tool declaration %+v", d)
	}
	// A call through the old catalogue to a tool the server removed is
	// refused by the server, which stays up.
	ret, text := callTool(t, oldFail, `{}`)
	t.Logf("removed tool: %q", text)
	if !ret.Outcome().IsErrorKind(tool.KindOther) || !strings.Contains(text, `The MCP server "t" refused the call to fail`) {
		t.Errorf("removed tool: %v %q", ret.Outcome(), text)
	}
	if st := status(t, m, "t"); st.State != mcp.StateReady {
		t.Errorf("after a refused call: %+v", st)
	}
}

func TestMalformedSchemaLeavesOneToolOut(t *testing.T) {
	m, _ := start(t, mcp.Options{}, stdio("t", "-badschema"))
	cat, left := art.BuildCatalog(m.Tools()...)
	if len(left) != 1 || !strings.Contains(left[0].Error(), "t__broken") {
		t.Fatalf("left out: %v", left)
	}
	if _, ok := cat.Lookup("t__broken"); ok {
		t.Error("the broken tool is in the catalogue")
	}
	for _, n := range []string{"t__echo", "t__fail", "t__pid"} {
		if _, ok := cat.Lookup(n); !ok {
			t.Errorf("%s is missing from the catalogue", n)
		}
	}
}

func TestCancellationReachesTheServer(t *testing.T) {
	m, _ := start(t, mcp.Options{}, stdio("t"))
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan tool.Return, 1)
	hang := find(m, "t__hang")
	go func() { done <- hang.Call(ctx, json.RawMessage(`{"fifo":`+strconv.Quote(fifo)+`}`)) }()

	// Opened for reading and writing, the FIFO never reads as ended between
	// the server's two writes; each line is read as it comes.
	f, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewReader(f)
	readLine := func() string {
		line, err := lines.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the FIFO: %v", err)
		}
		return strings.TrimSpace(line)
	}
	if got := readLine(); got != "started" {
		t.Fatalf("fifo said %q", got)
	}
	cancel()
	ret := <-done
	if !ret.Outcome().IsErrorKind(tool.KindCancelled) || !strings.Contains(ret.Output.(string), "cancelled before the MCP server answered") {
		t.Errorf("cancelled call: %v %v", ret.Outcome(), ret.Output)
	}
	if got := readLine(); got != "cancelled" {
		t.Errorf("the server did not see the cancellation: %q", got)
	}
	if st := status(t, m, "t"); st.State != mcp.StateReady {
		t.Errorf("after cancelling: %+v", st)
	}
}

func TestServerKilledFromOutsideMidCall(t *testing.T) {
	m, _ := start(t, mcp.Options{}, stdio("t"))
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	f, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pid := status(t, m, "t").PID
	done := make(chan tool.Return, 1)
	hang := find(m, "t__hang")
	go func() { done <- hang.Call(context.Background(), json.RawMessage(`{"fifo":`+strconv.Quote(fifo)+`}`)) }()
	if line, err := bufio.NewReader(f).ReadString('\n'); err != nil || line != "started\n" {
		t.Fatalf("fifo: %q, %v", line, err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	ret := <-done
	text, _ := ret.Output.(string)
	if !ret.Outcome().IsErrorKind(tool.KindOther) ||
		!strings.Contains(text, `The MCP server "t" stopped while running this call (its process ended: signal: killed)`) {
		t.Errorf("killed mid-call: %v %q", ret.Outcome(), text)
	}
	if _, text := call(t, m, "t__echo", `{"text":"again"}`); text != "again" {
		t.Errorf("after the restart: %q", text)
	}
}

func TestCloseLeavesNoProcess(t *testing.T) {
	m, _ := start(t, mcp.Options{}, stdio("a"), stdio("b"))
	pids := []int{status(t, m, "a").PID, status(t, m, "b").PID}
	_, text := call(t, m, "a__spawn", `{}`)
	child, err := strconv.Atoi(text)
	if err != nil {
		t.Fatalf("spawn: %q", text)
	}
	pids = append(pids, child)
	echo := find(m, "a__echo")
	for _, pid := range pids {
		if !alive(pid) {
			t.Fatalf("process %d is not running before Close", pid)
		}
	}
	m.Close()
	for _, pid := range pids {
		if !gone(pid, 10*time.Second) {
			t.Errorf("process %d outlived Close", pid)
		}
	}
	if len(m.Tools()) != 0 {
		t.Error("a closed manager offers tools")
	}
	ret, text := callTool(t, echo, `{"text":"x"}`)
	if !ret.Outcome().IsError() || !strings.Contains(text, `The MCP server "a" was shut down`) {
		t.Errorf("call after Close: %v %q", ret.Outcome(), text)
	}
}

func TestNoConfig(t *testing.T) {
	m := mcp.Start(nil, mcp.Options{})
	<-m.Ready()
	if len(m.Tools()) != 0 || len(m.Servers()) != 0 {
		t.Error("an empty manager has something")
	}
	m.Close()
}

// TestOversizeAnswers asks the server for answers of 1 MB, 9 MB and 20 MB:
// the first two arrive whole (the runtime bounds what the model reads), the
// third is larger than a message may be and fails, saying how large it
// was; the server is the same process throughout and answers the next
// call.
func TestOversizeAnswers(t *testing.T) {
	m, _ := start(t, mcp.Options{}, stdio("t"))
	pid := status(t, m, "t").PID
	for _, n := range []int{1 << 20, 9 << 20} {
		ret, text := call(t, m, "t__big", fmt.Sprintf(`{"bytes":%d}`, n))
		if !ret.Outcome().IsSuccess() || len(text) != n {
			t.Fatalf("%d bytes: %v, %d bytes of text", n, ret.Outcome(), len(text))
		}
	}
	ret, text := call(t, m, "t__big", fmt.Sprintf(`{"bytes":%d}`, 20<<20))
	if ret.Outcome().IsSuccess() || !strings.Contains(text, "The call to big ran, but the MCP server \"t\" answered with more than this session can take") ||
		!strings.Contains(text, "larger than the 16 MiB a message may be") || !strings.Contains(text, "Ask the tool for less") {
		t.Fatalf("20 MB: %v %q", ret.Outcome(), text)
	}
	if st := status(t, m, "t"); st.State != mcp.StateReady || st.PID != pid {
		t.Fatalf("after the oversize answer: %+v (pid was %d)", st, pid)
	}
	if _, text := call(t, m, "t__echo", `{"text":"still here"}`); text != "still here" {
		t.Fatalf("the next call: %q", text)
	}
}

// TestVerifyKeepsAServerFromStarting starts a server that would leave a
// marker if it ran, with a Verify that refuses it: it never runs, and it
// fails with Verify's reason. A server Verify refuses only at its restart
// is down with that reason.
func TestVerifyKeepsAServerFromStarting(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "started")
	var refuseT atomic.Bool
	verify := func(s mcp.ServerConfig) error {
		if s.Name == "x" || s.Name == "t" && refuseT.Load() {
			return errors.New("its files changed since this workspace was trusted")
		}
		return nil
	}
	m, r := start(t, mcp.Options{Verify: verify},
		mcp.ServerConfig{Name: "x", Transport: mcp.TransportStdio, Command: "sh", Args: []string{"-c", "touch " + marker}},
		stdio("t"))
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the refused server ran")
	}
	if st := status(t, m, "x"); st.State != mcp.StateFailed || !strings.Contains(st.Err, "its files changed") {
		t.Errorf("the refused server: %+v", st)
	}
	awaitChange(t, r, "the refusal is said", func() bool {
		return strings.Contains(r.texts(), `MCP server "x" did not start: its files changed since this workspace was trusted`)
	})

	refuseT.Store(true)
	callTool(t, find(m, "t__die"), `{}`)
	ret, text := call(t, m, "t__echo", `{"text":"x"}`)
	if ret.Outcome().IsSuccess() || !strings.Contains(text, "its files changed") {
		t.Errorf("a call after the refused restart: %v %q", ret.Outcome(), text)
	}
	if st := status(t, m, "t"); st.State != mcp.StateDown {
		t.Errorf("the server refused at its restart: %+v", st)
	}
}
