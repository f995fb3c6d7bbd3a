package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	art "github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/mcp"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// fsServerDir holds package.json and package-lock.json pinning the
// reference filesystem server. The tests never install it (go test must not
// reach the network); .ci/run does, with fsServerInstall.
const fsServerDir = "testdata/fsserver"

// fsServerInstall is the command, run from the module root, that installs
// the reference server; a skipped test names it.
const fsServerInstall = "npm ci --no-audit --no-fund --prefix runtime/mcp/testdata/fsserver"

var (
	fsServerOnce sync.Once
	fsServerPath string
	fsServerWhy  string
)

// fsServer returns the path of the reference filesystem server's entry
// point. When node or the installed server is missing the test is skipped
// with one line saying how to get it; under CI (CI set) it fails instead,
// since CI is meant to run it.
func fsServer(t *testing.T) string {
	t.Helper()
	fsServerOnce.Do(func() {
		entry, _ := filepath.Abs(filepath.Join(fsServerDir, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js"))
		if _, err := exec.LookPath("node"); err != nil {
			fsServerWhy = "needs Node.js to run the reference MCP server; install Node.js, then run: " + fsServerInstall
			return
		}
		if _, err := os.Stat(entry); err != nil {
			fsServerWhy = "needs the reference MCP server from npm, which is not installed; run: " + fsServerInstall + " (.ci/run does)"
			return
		}
		fsServerPath = entry
	})
	if fsServerPath == "" {
		if os.Getenv("CI") != "" {
			t.Fatal(fsServerWhy)
		}
		t.Skip(fsServerWhy)
	}
	return fsServerPath
}

// barrier holds each call of the wrapped tool until n calls are inside it
// at once, which can only happen when they run side by side. A call that
// waits in vain fails when its context ends.
type barrier struct {
	tool.Tool
	mu      sync.Mutex
	n       int
	arrived int
	all     chan struct{}
}

func (b *barrier) Call(ctx context.Context, args json.RawMessage) tool.Return {
	b.mu.Lock()
	b.arrived++
	if b.arrived == b.n {
		close(b.all)
	}
	b.mu.Unlock()
	select {
	case <-b.all:
	case <-ctx.Done():
		return tool.Fail(tool.Timeout("the reads never ran side by side"), "the reads never ran side by side")
	}
	return b.Tool.Call(ctx, args)
}

func TestReferenceFilesystemServer(t *testing.T) {
	entry := fsServer(t)
	ws, outside := t.TempDir(), t.TempDir()
	for name, text := range map[string]string{"a.txt": "contents of a", "b.txt": "contents of b"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, notices := start(t, mcp.Options{StartTimeout: time.Minute},
		mcp.ServerConfig{Name: "fs", Transport: mcp.TransportStdio, Command: "node", Args: []string{entry, ws}})
	if st := status(t, m, "fs"); st.State != mcp.StateReady {
		t.Fatalf("the reference server did not start: %+v\n%s", st, notices.texts())
	}

	var tools []tool.Tool
	reads := &barrier{n: 2, all: make(chan struct{})}
	for _, tl := range m.Tools() {
		d := tl.Declaration()
		if !d.Untrusted || d.Source != "tool://fs/"+strings.TrimPrefix(d.Name, "fs__") {
			t.Errorf("%s: untrusted %v, source %q", d.Name, d.Untrusted, d.Source)
		}
		if d.Name == "fs__read_text_file" {
			reads.Tool = tl
			tl = reads
		}
		tools = append(tools, tl)
	}
	cat, left := art.BuildCatalog(tools...)
	if len(left) > 0 {
		t.Errorf("tools left out of the catalogue: %v", left)
	}
	for _, n := range []string{"fs__read_text_file", "fs__write_file", "fs__list_directory"} {
		if _, ok := cat.Lookup(n); !ok {
			t.Fatalf("%s is not in the catalogue: %v", n, cat.Names())
		}
	}

	arg := func(v map[string]string) json.RawMessage { b, _ := json.Marshal(v); return b }
	sc := &model.Scenario{Name: "fs", Steps: []model.Step{
		{Text: "Reading both files, then writing.", Calls: []model.ScriptedCall{
			{Name: "fs__read_text_file", Args: arg(map[string]string{"path": filepath.Join(ws, "a.txt")})},
			{Name: "fs__read_text_file", Args: arg(map[string]string{"path": filepath.Join(ws, "b.txt")})},
			{Name: "fs__write_file", Args: arg(map[string]string{"path": filepath.Join(ws, "c.txt"), "content": "a and b"})},
			{Name: "fs__write_file", Args: arg(map[string]string{"path": filepath.Join(outside, "x.txt"), "content": "escape"})},
		}},
		{Expect: []string{"contents of a", "contents of b", "Successfully wrote"}, Calls: []model.ScriptedCall{
			{Name: "finish", Args: json.RawMessage(`{"summary":"wrote c.txt"}`)},
		}},
	}}
	var mu sync.Mutex
	var evs []art.Event
	agent := &art.Agent{
		Model:   model.NewScripted("fs-test", sc),
		Catalog: cat,
		Sink:    func(e art.Event) { mu.Lock(); evs = append(evs, e); mu.Unlock() },
		Budgets: art.Budgets{CallTimeout: 30 * time.Second},
	}
	out := agent.Run(context.Background(), art.NewSession("fs"), "combine the files")
	if out.Status != art.StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}

	mu.Lock()
	defer mu.Unlock()
	var reply *art.ReplyReceived
	finished := map[int]art.CallFinished{}
	var order []string // call_started and call_finished of turn 1, in order
	for _, e := range evs {
		switch ev := e.(type) {
		case art.ReplyReceived:
			if ev.Turn == 1 {
				reply = &ev
			}
		case art.CallStarted:
			if ev.Turn == 1 {
				order = append(order, "start "+string(rune('0'+ev.Index)))
			}
		case art.CallFinished:
			if ev.Turn == 1 {
				finished[ev.Index] = ev
				order = append(order, "finish "+string(rune('0'+ev.Index)))
			}
		}
	}
	if reply == nil || len(reply.Calls) != 4 {
		t.Fatalf("reply %+v", reply)
	}
	plan := []struct {
		touches  string
		waitsFor []int
		batch    int
	}{
		{"independent", nil, 1},
		{"independent", nil, 1},
		{"writes anything", []int{0, 1}, 2},
		{"writes anything", []int{0, 1, 2}, 3},
	}
	for i, want := range plan {
		c := reply.Calls[i]
		if c.Touches == nil || c.Touches.String() != want.touches || !slices.Equal(c.WaitsFor, want.waitsFor) || c.Batch != want.batch {
			t.Errorf("call %d (%s): touches %v, waits for %v, batch %d; want %s, %v, %d", i, c.Name, c.Touches, c.WaitsFor, c.Batch,
				want.touches, want.waitsFor, want.batch)
		}
	}
	// Both reads were inside the tool at once (the barrier let them through),
	// and the write started only after both had finished.
	pos := func(s string) int { return slices.Index(order, s) }
	if pos("start 2") < pos("finish 0") || pos("start 2") < pos("finish 1") || pos("start 3") < pos("finish 2") {
		t.Errorf("order of turn 1: %v", order)
	}
	for i := range 3 {
		if finished[i].Outcome != "success" {
			t.Errorf("call %d: %s %q", i, finished[i].Outcome, finished[i].Result)
		}
	}
	escape := finished[3]
	t.Logf("turn 1: %v; the escaping write read: %q", order, escape.Result)
	if escape.Outcome != "error" || escape.Kind == nil || *escape.Kind != "other" || !strings.Contains(escape.Result, "Access denied") {
		t.Errorf("the write outside the allowed folder: %s %v %q", escape.Outcome, escape.Kind, escape.Result)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "c.txt")); err != nil || string(b) != "a and b" {
		t.Errorf("c.txt: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(outside, "x.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Error("the server wrote outside its allowed folder")
	}
}
