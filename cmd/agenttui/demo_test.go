package main

import (
	"encoding/json"
	"github.com/agenttui/agenttui/internal/launch"
	"strconv"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/internal/session"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/runtime/workspace/sandbox"
)

// callKey identifies a call in the event stream.
type callKey struct{ turn, index int }

// demoStream runs the demo headless and returns its events.
func demoStream(t *testing.T, mode string) []map[string]any {
	t.Helper()
	r := runBinary(t, t.TempDir(), "", "run", "--model", "demo", "--mode", mode, "--json",
		"--answer", "Keep zero pages for an empty list", "Customers say the last page is missing")
	if r.code != 0 {
		t.Fatalf("the demo in %s mode exited %d: %s", mode, r.code, r.stderr)
	}
	return events(t, r.stdout)
}

func num(v any) int {
	f, _ := v.(float64)
	return int(f)
}

func TestDemoPlaysEveryFeatureHeadless(t *testing.T) {
	evs := demoStream(t, "auto")
	if o := lastOutcome(t, evs); o["status"] != "succeeded" {
		t.Fatalf("the demo ended %v", o)
	}
	replies := map[int]map[string]any{}
	finished := map[callKey]map[string]any{}
	position := map[string]int{} // "started 4/1" → position in the stream
	var invalid []map[string]any
	refusedMidway := false
	for i, ev := range evs {
		switch ev["type"] {
		case "reply":
			replies[num(ev["turn"])] = ev
		case "call_finished":
			finished[callKey{num(ev["turn"]), num(ev["index"])}] = ev
			position["finished "+key(ev)] = i
		case "call_started":
			position["started "+key(ev)] = i
		case "invalid_reply":
			invalid = append(invalid, ev)
		case "run_finished":
			if i < len(evs)-1 && ev["outcome"].(map[string]any)["status"] == "refused" {
				refusedMidway = true
			}
		}
	}
	calls := func(turn int) []any { return replies[turn]["calls"].([]any) }
	field := func(turn, index int, name string) any { return calls(turn)[index].(map[string]any)[name] }

	// A batch of parallel reads: turn 1's four calls all read, all in batch 1.
	for i := range calls(1) {
		touches := field(1, i, "touches").(map[string]any)
		if touches["kind"] != "reads" || num(field(1, i, "batch")) != 1 {
			t.Errorf("turn 1 call %d: %v in batch %v", i, touches, field(1, i, "batch"))
		}
	}
	if len(calls(1)) < 3 {
		t.Errorf("turn 1 has %d calls", len(calls(1)))
	}
	// A write waiting behind the read it conflicts with while an unrelated
	// read runs beside it.
	if w := field(4, 1, "waits_for").([]any); len(w) != 1 || num(w[0]) != 0 || num(field(4, 1, "batch")) != 2 {
		t.Errorf("the edit should wait for the read of the same file: %v", field(4, 1, "waits_for"))
	}
	if num(field(4, 2, "batch")) != 1 || len(field(4, 2, "waits_for").([]any)) != 0 {
		t.Error("the unrelated read should run in the first batch")
	}
	if position["started 4/1"] < position["finished 4/0"] {
		t.Error("the edit started before the read it conflicts with finished")
	}
	// A tool-side denial and a not_found error.
	if f := finished[callKey{2, 2}]; f["outcome"] != "denied" || !strings.Contains(f["result"].(string), "outside the workspace") {
		t.Errorf("the escape attempt: %v", f)
	}
	if f := finished[callKey{2, 1}]; f["outcome"] != "error" || f["kind"] != "not_found" {
		t.Errorf("the missing file: %v", f)
	}
	// An invalid reply and its recovery, and an output-limit cut.
	if len(invalid) != 2 || num(invalid[0]["turn"]) != 3 || num(invalid[1]["turn"]) != 5 {
		t.Fatalf("invalid replies: %v", invalid)
	}
	if !strings.Contains(invalid[0]["results"].([]any)[0].(string), "must be a JSON object") {
		t.Errorf("invalid reply feedback: %v", invalid[0]["results"])
	}
	if f := finished[callKey{4, 1}]; f["outcome"] != "success" {
		t.Errorf("the recovered edit: %v", f)
	}
	if replies[5]["cut"] == nil || !strings.Contains(invalid[1]["results"].([]any)[0].(string), "output limit") {
		t.Errorf("the cut reply: %v / %v", replies[5]["cut"], invalid[1]["results"])
	}
	// The shell call ran (auto mode) and the clarification was asked and
	// answered.
	if f := finished[callKey{6, 1}]; f["name"] != "run_shell" || f["outcome"] != "success" {
		t.Errorf("the shell call: %v", f)
	}
	if !refusedMidway {
		t.Error("the clarification question did not end a run as refused")
	}
	// remember and finish with extracted data.
	if f := finished[callKey{8, 0}]; f["name"] != "remember" || f["outcome"] != "success" {
		t.Errorf("remember: %v", f)
	}
	data := lastOutcome(t, evs)["extracted_data"].(map[string]any)
	if data["fixed_file"] != "pager.go" || data["root_cause"] == nil {
		t.Errorf("extracted data %v", data)
	}
}

func TestDemoShellCallNeedsApproval(t *testing.T) {
	evs := demoStream(t, "reads")
	for _, ev := range evs {
		if ev["type"] == "call_decision" && num(ev["turn"]) == 6 && num(ev["index"]) == 1 {
			if ev["decision"] != "skip" || ev["by"] != "headless" || !strings.Contains(ev["reason"].(string), "needs approval") {
				t.Errorf("the shell call in reads mode: %v", ev)
			}
			return
		}
	}
	t.Fatal("no decision for the shell call")
}

func key(ev map[string]any) string {
	return strconv.Itoa(num(ev["turn"])) + "/" + strconv.Itoa(num(ev["index"]))
}

// TestPacedToolsKeepTheirSandbox checks that the console's demo, which paces
// its tools, still says its shell command runs in the sandbox.
func TestPacedToolsKeepTheirSandbox(t *testing.T) {
	o := &launch.Settings{Workspace: t.TempDir(), Sandbox: sandbox.Config{Mode: sandbox.WorkspaceWrite}}
	defer o.CloseShell()
	tools, err := session.WorkspaceTools(o.Workspace, o.ShellSandbox, func(t tool.Tool) tool.Tool { return pace(t, 0) })
	if err != nil {
		if sandbox.Detect().ABI < 1 {
			t.Skip("this kernel has no Landlock")
		}
		t.Fatal(err)
	}
	for _, tl := range tools {
		if tl.Declaration().Name != "run_shell" {
			continue
		}
		s, ok := tool.As[tool.Sandboxer](tl)
		if !ok {
			t.Fatal("the paced run_shell lost its sandbox")
		}
		if sb := s.Sandbox(json.RawMessage(`{"command":"true"}`)); sb == nil || !sb.Sandboxed {
			t.Errorf("sandbox %+v", sb)
		}
		return
	}
	t.Fatal("no run_shell")
}
