package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

var (
	mcpServerOnce sync.Once
	mcpServerBin  string
	mcpServerErr  error
)

// mcpTestServer builds runtime/mcp's test server once and returns its path.
func mcpTestServer(t *testing.T) string {
	t.Helper()
	mcpServerOnce.Do(func() {
		mcpServerBin = filepath.Join(filepath.Dir(binary), "mcp-testserver")
		build := exec.Command("go", "build", "-o", mcpServerBin, "../../runtime/mcp/testdata/testserver")
		out, err := build.CombinedOutput()
		if err != nil {
			mcpServerErr = errors.New(err.Error() + ": " + string(out))
		}
	})
	if mcpServerErr != nil {
		t.Fatalf("building the MCP test server: %v", mcpServerErr)
	}
	return mcpServerBin
}

func writeFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestHeadlessWithMCPServers(t *testing.T) {
	server := mcpTestServer(t)
	ws := workspaceWithNotes(t)
	writeFile(t, filepath.Join(ws, ".mcp.json"), `{"mcpServers": {
		"good": {"command": `+strconv.Quote(server)+`},
		"broken": {"command": "/nonexistent/agenttui-no-such-mcp-server", "args": ["--serve"]}
	}}`)
	trustWorkspace(t, ws)
	sc := filepath.Join(t.TempDir(), "mcp.json")
	writeFile(t, sc, `{"name": "mcp", "steps": [
		{"calls": [{"name": "good__echo", "args": {"text": "hello from mcp"}}, {"name": "good__pid"}]},
		{"expect": ["hello from mcp"], "calls": [{"name": "finish", "args": {"summary": "used the MCP tool"}}]}
	]}`)

	r := runBinary(t, ws, "", "run", "--scenario", sc, "--json", "--mode", "auto", "use the MCP tool")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s\nstdout:\n%s", r.code, r.stderr, r.stdout)
	}
	evs := events(t, r.stdout)
	if o := lastOutcome(t, evs); o["status"] != "succeeded" || o["summary"] != "used the MCP tool" {
		t.Fatalf("outcome %v", o)
	}
	var brokenNotice bool
	results := map[float64]map[string]any{}
	for _, ev := range evs {
		switch ev["type"] {
		case "notice":
			text, _ := ev["text"].(string)
			if strings.Contains(text, `"broken"`) && strings.Contains(text, "did not start") {
				brokenNotice = true
			}
			if strings.Contains(text, `"good"`) {
				t.Errorf("a notice about the working server: %v", ev)
			}
		case "call_finished":
			if ev["turn"] == float64(1) {
				results[ev["index"].(float64)] = ev
			}
		}
	}
	if !brokenNotice {
		t.Errorf("no notice reports the broken server; stream:\n%s", r.stdout)
	}
	if echo := results[0]; echo["name"] != "good__echo" || echo["outcome"] != "success" || echo["result"] != "hello from mcp" {
		t.Errorf("the MCP call: %v", echo)
	}
	pid, err := strconv.Atoi(results[1]["result"].(string))
	if err != nil {
		t.Fatalf("good__pid answered %v", results[1])
	}
	// The binary has exited; its server must have gone with it.
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the MCP server (pid %d) outlived agenttui: %v", pid, err)
	}
}

func TestHeadlessBadMCPConfig(t *testing.T) {
	ws := workspaceWithNotes(t)
	writeFile(t, filepath.Join(ws, ".mcp.json"), `{"mcpServers": {"fs": {"command": "x", "cwd": "/tmp"}}}`)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"workspace config", []string{"run", "--scenario", scenario(t, "succeeds.json"), "goal"},
			`.mcp.json: server "fs": unknown key "cwd" for a stdio server`},
		{"missing --mcp-config", []string{"run", "--scenario", scenario(t, "succeeds.json"), "--mcp-config", "nope.json", "goal"},
			"nope.json: the MCP configuration file does not exist"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runBinary(t, ws, "", c.args...)
			lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
			if r.code != 2 || len(lines) != 1 || !strings.Contains(lines[0], c.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and one line containing %q", r.code, r.stderr, c.want)
			}
			if r.stdout != "" {
				t.Errorf("something started: %q", r.stdout)
			}
		})
	}
}

// The journal records the tools a session really offered, MCP servers'
// included, so a resume says when they changed, and only then.
func TestResumeNoticesChangedMCPTools(t *testing.T) {
	server := mcpTestServer(t)
	sc := filepath.Join(t.TempDir(), "ask.json")
	writeFile(t, sc, `{"name": "ask", "steps": [
		{"calls": [{"name": "good__echo", "args": {"text": "hi"}}]},
		{"calls": [{"name": "ask_user", "args": {"question": "Which one?"}}]},
		{"calls": [{"name": "finish", "args": {"summary": "done"}}]}
	]}`)
	withServer := `{"mcpServers": {"good": {"command": ` + strconv.Quote(server) + `}}}`
	changed := func(t *testing.T, ws string) bool {
		t.Helper()
		r := runBinary(t, ws, "", "run", "--continue", "--answer", "that one", "--scenario", sc, "--json", "--mode", "auto")
		if r.code != 0 {
			t.Fatalf("resume: exit %d; stderr:\n%s\nstdout:\n%s", r.code, r.stderr, r.stdout)
		}
		for _, ev := range events(t, r.stdout) {
			if text, _ := ev["text"].(string); ev["type"] == "notice" && strings.Contains(text, "the tools changed") {
				return true
			}
		}
		return false
	}
	start := func(t *testing.T) string {
		t.Helper()
		ws := workspaceWithNotes(t)
		writeFile(t, filepath.Join(ws, ".mcp.json"), withServer)
		trustWorkspace(t, ws)
		r := runBinary(t, ws, "", "run", "--scenario", sc, "--json", "--mode", "auto", "echo then ask")
		if r.code != 3 {
			t.Fatalf("first run: exit %d, want 3 (refused); stderr:\n%s\nstdout:\n%s", r.code, r.stderr, r.stdout)
		}
		return ws
	}

	t.Run("same servers", func(t *testing.T) {
		if ws := start(t); changed(t, ws) {
			t.Error("the resume says the tools changed, but the same server offers the same tools")
		}
	})
	t.Run("server removed", func(t *testing.T) {
		ws := start(t)
		writeFile(t, filepath.Join(ws, ".mcp.json"), `{"mcpServers": {}}`)
		if !changed(t, ws) {
			t.Error("the resume does not say the tools changed after the MCP server was removed")
		}
	})
}

// TestToolResultsAreBounded calls an MCP tool for answers of 1 MB, 9 MB and
// 20 MB, another for binary bytes, and a shell command that prints random
// bytes: the model reads at most the bound of each (the start and the end,
// with a note saying how much was cut and how to get the rest), the 20 MB
// answer is reported as larger than a message may be, binary output reaches
// it as a one-line description, and the server is still up afterwards.
func TestToolResultsAreBounded(t *testing.T) {
	server := mcpTestServer(t)
	ws := workspaceWithNotes(t)
	writeFile(t, filepath.Join(ws, ".mcp.json"), `{"mcpServers": {"t": {"command": `+strconv.Quote(server)+`}}}`)
	writeFile(t, filepath.Join(ws, "agenttui.json"), `{"max_tool_result_bytes": 65536}`)
	trustWorkspace(t, ws)
	sc := filepath.Join(t.TempDir(), "big.json")
	writeFile(t, sc, `{"name": "big", "steps": [
		{"calls": [{"name": "t__big", "args": {"bytes": 1048576}}, {"name": "t__big", "args": {"bytes": 9437184}},
		           {"name": "t__big", "args": {"bytes": 20971520}}, {"name": "t__binary"},
		           {"name": "run_shell", "args": {"command": "head -c 300000 /dev/urandom"}}]},
		{"expect": ["of this result were cut here: the whole was 9.0 MiB", "To see the rest, ask the tool for less"],
		 "calls": [{"name": "t__echo", "args": {"text": "still up"}}]},
		{"expect": ["still up"], "calls": [{"name": "finish", "args": {"summary": "done"}}]}
	]}`)
	r := runBinary(t, ws, "", "run", "--scenario", sc, "--json", "--mode", "auto", "--sandbox", "off", "ask for too much")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s\nlast: %s", r.code, r.stderr, lastLines(r.stdout, 3))
	}
	var results []map[string]any
	for _, ev := range events(t, r.stdout) {
		if ev["type"] == "call_finished" && ev["turn"] == float64(1) {
			results = append(results, ev)
		}
	}
	if len(results) != 5 {
		t.Fatalf("%d results", len(results))
	}
	byIndex := map[float64]map[string]any{}
	for _, ev := range results {
		byIndex[ev["index"].(float64)] = ev
	}
	for i, whole := range []int{1 << 20, 9 << 20} {
		ev := byIndex[float64(i)]
		text := ev["result"].(string)
		if len(text) > 65536 || ev["whole"] != float64(whole) || !strings.Contains(text, "of this result were cut here") ||
			!strings.Contains(text, "To see the rest, ask the tool for less") || !strings.HasPrefix(text, "a line of text") {
			t.Errorf("the %d-byte answer: %d bytes read, whole %v:\n%.300s", whole, len(text), ev["whole"], text)
		}
	}
	if ev := byIndex[2]; ev["outcome"] != "error" || !strings.Contains(ev["result"].(string), "larger than the 16 MiB a message may be") {
		t.Errorf("the 20 MB answer: %v", ev)
	}
	for _, i := range []float64{3, 4} {
		text := byIndex[i]["result"].(string)
		if !strings.Contains(text, "[The output is binary, not text (") || len(text) > 1000 {
			t.Errorf("binary output %v reaches the model as %q", i, text)
		}
	}
}
