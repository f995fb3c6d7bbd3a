package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	art "github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/mcp"
	"github.com/agenttui/agenttui/runtime/tool"
)

// testServer is the test server binary (testdata/testserver), built once.
var testServer string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agenttui-mcp-test-")
	if err != nil {
		panic(err)
	}
	testServer = filepath.Join(dir, "testserver")
	build := exec.Command("go", "build", "-o", testServer, "./testdata/testserver")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("building the test server: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// stdio returns the configuration of a test server named name.
func stdio(name string, args ...string) mcp.ServerConfig {
	return mcp.ServerConfig{Name: name, Transport: mcp.TransportStdio, Command: testServer, Args: args}
}

// recorder collects a manager's notices and counts its changes.
type recorder struct {
	mu      sync.Mutex
	notices []art.Notice
	changes chan struct{}
}

func newRecorder() *recorder { return &recorder{changes: make(chan struct{}, 100)} }

func (r *recorder) notice(n art.Notice) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notices = append(r.notices, n)
	// A notice can follow the change a test waits on (the server reports
	// a restart after its waiting calls have been let through), so it wakes
	// awaitChange too. The send never blocks: a full buffer already holds a
	// wake-up.
	select {
	case r.changes <- struct{}{}:
	default:
	}
}

func (r *recorder) changed() { r.changes <- struct{}{} }

// texts returns the notices so far, one per line.
func (r *recorder) texts() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, n := range r.notices {
		b.WriteString(n.Level + ": " + n.Text + "\n")
	}
	return b.String()
}

// start starts a manager over servers, waits until it is ready, and closes
// it at the end of the test, checking that no process is left behind.
func start(t *testing.T, opts mcp.Options, servers ...mcp.ServerConfig) (*mcp.Manager, *recorder) {
	t.Helper()
	r := newRecorder()
	opts.Notice, opts.OnChange = r.notice, r.changed
	if opts.StopGrace == 0 {
		opts.StopGrace = 2 * time.Second
	}
	m := mcp.Start(&mcp.Config{Path: filepath.Join(t.TempDir(), ".mcp.json"), Servers: servers}, opts)
	t.Cleanup(func() {
		m.Close()
		checkNoChildren(t)
	})
	select {
	case <-m.Ready():
	case <-time.After(30 * time.Second):
		t.Fatal("the servers did not start or fail within 30s")
	}
	return m, r
}

// status returns the status of the server called name.
func status(t *testing.T, m *mcp.Manager, name string) mcp.ServerStatus {
	t.Helper()
	for _, s := range m.Servers() {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no server %s in %v", name, m.Servers())
	return mcp.ServerStatus{}
}

// find returns the manager's tool called name, or nil.
func find(m *mcp.Manager, name string) tool.Tool {
	for _, tl := range m.Tools() {
		if tl.Declaration().Name == name {
			return tl
		}
	}
	return nil
}

// call calls the manager's tool name with args and returns its result and
// output text.
func call(t *testing.T, m *mcp.Manager, name, args string) (tool.Return, string) {
	t.Helper()
	tl := find(m, name)
	if tl == nil {
		t.Fatalf("no tool %s among %v", name, names(m.Tools()))
	}
	return callTool(t, tl, args)
}

func callTool(t *testing.T, tl tool.Tool, args string) (tool.Return, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ret := tl.Call(ctx, json.RawMessage(args))
	text, ok := ret.Output.(string)
	if !ok {
		t.Fatalf("output %T, want a string", ret.Output)
	}
	return ret, text
}

func names(tools []tool.Tool) []string {
	var out []string
	for _, tl := range tools {
		out = append(out, tl.Declaration().Name)
	}
	return out
}

// awaitChange waits for an OnChange call after which cond holds.
func awaitChange(t *testing.T, r *recorder, what string, cond func() bool) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for !cond() {
		select {
		case <-r.changes:
		case <-timeout:
			t.Fatalf("no change such that %s within 30s; notices:\n%s", what, r.texts())
		}
	}
}

// alive reports whether process pid exists and is not a zombie. A zombie
// whose parent is not this process (an orphan the init process has not
// reaped yet) is dead for our purposes.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	if runtime.GOOS != "linux" {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name, which is in parentheses.
	rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
	return !strings.HasPrefix(strings.TrimSpace(rest), "Z")
}

// checkNoChildren fails the test when this process has a child left, alive
// or a zombie nobody reaped. Only Linux lists them.
func checkNoChildren(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(self) {
			cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			t.Errorf("process %d (%s, state %s) was left behind", pid, strings.ReplaceAll(string(cmdline), "\x00", " "), fields[0])
		}
	}
}
