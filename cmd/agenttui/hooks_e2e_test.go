package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hookScript writes an executable shell script into dir and returns its
// path.
func hookScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// hookConfig writes a configuration file whose "hooks" is hooksJSON and
// returns its path; named with --config, its hooks are the person's own.
func hookConfig(t *testing.T, hooksJSON string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(p, []byte(`{"hooks": `+hooksJSON+`}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// preToolUse is a "hooks" object with one PreToolUse command on run_shell.
func preToolUse(command string, extra string) string {
	return `{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": ` + jsonString(command) + extra + `}]}]}`
}

// runHooked runs scenario body headless in auto mode in ws with the hooks
// configuration cfg, and returns the result and its events.
func runHooked(t *testing.T, ws, cfg, body, goal string) (result, []map[string]any) {
	t.Helper()
	res := runBinary(t, ws, "", "run", "--json", "--mode", "auto", "--config", cfg, "--scenario", writeScenario(t, body), goal)
	return res, events(t, res.stdout)
}

// callEvent returns the first event of type typ about call index of turn.
func callEvent(t *testing.T, evs []map[string]any, typ string, turn, index int) map[string]any {
	t.Helper()
	for _, ev := range evs {
		if ev["type"] == typ && ev["turn"] == float64(turn) && ev["index"] == float64(index) && ev["task"] == nil {
			return ev
		}
	}
	t.Fatalf("no %s event for call %d of turn %d", typ, index, turn)
	return nil
}

// noticeWith returns whether a notice says want.
func noticeWith(evs []map[string]any, want string) bool {
	for _, ev := range ofType(evs, "notice") {
		if strings.Contains(ev["text"].(string), want) {
			return true
		}
	}
	return false
}

func TestHeadlessPreToolUseHookDeniesRmRf(t *testing.T) {
	ws := workspaceWithNotes(t)
	if err := os.Mkdir(filepath.Join(ws, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	guard := hookScript(t, t.TempDir(), "guard.sh", `if grep -q 'rm -rf'; then echo "no recursive deletes here" >&2; exit 2; fi
exit 0
`)
	res, evs := runHooked(t, ws, hookConfig(t, preToolUse(guard, "")), `{"steps": [
	  {"calls": [{"name": "run_shell", "args": {"command": "rm -rf build"}},
	             {"name": "run_shell", "args": {"command": "echo still here"}}]},
	  {"expect": ["did not allow this call", "no recursive deletes here", "still here"],
	   "calls": [{"name": "finish", "args": {"summary": "checked"}}]}]}`, "clean up")
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
	}
	d := callEvent(t, evs, "call_decision", 1, 0)
	if d["decision"] != "skip" || d["by"] != "hook:"+guard {
		t.Errorf("the rm -rf call's decision is %v", d)
	}
	f := callEvent(t, evs, "call_finished", 1, 0)
	if f["outcome"] != "skipped" || !strings.Contains(f["result"].(string), "no recursive deletes here") {
		t.Errorf("the rm -rf call finished %v", f)
	}
	if _, err := os.Stat(filepath.Join(ws, "build")); err != nil {
		t.Errorf("the denied command ran: %v", err)
	}
	if f := callEvent(t, evs, "call_finished", 1, 1); f["outcome"] != "success" {
		t.Errorf("the other call did not run: %v", f)
	}
}

func TestHeadlessPreToolUseHookRewritesArguments(t *testing.T) {
	ws := workspaceWithNotes(t)
	rewrite := hookScript(t, t.TempDir(), "dry.sh", `if grep -q '"echo original"'; then
  printf '%s\n' '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "echo rewritten by the hook"}}}'
fi
exit 0
`)
	res, evs := runHooked(t, ws, hookConfig(t, preToolUse(rewrite, "")), `{"steps": [
	  {"calls": [{"name": "run_shell", "args": {"command": "echo original"}}]},
	  {"expect": ["rewritten by the hook", "rewrote this call's arguments"],
	   "calls": [{"name": "finish", "args": {"summary": "ok"}}]}]}`, "say something")
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
	}
	reply := ofType(evs, "reply")[0]
	c := reply["calls"].([]any)[0].(map[string]any)
	if got := c["args"].(map[string]any)["command"]; got != "echo rewritten by the hook" {
		t.Errorf("the reply event's arguments are %v", c["args"])
	}
	if c["rewritten_by"] != "hook:"+rewrite || c["raw"] != `{"command":"echo original"}` {
		t.Errorf("the reply event does not say the hook rewrote the call: %v", c)
	}
	if ts := c["touches"].(map[string]any); ts["kind"] == nil {
		t.Errorf("the rewritten call has no footprint: %v", c)
	}
	f := callEvent(t, evs, "call_finished", 1, 0)
	if f["outcome"] != "success" || !strings.HasPrefix(f["result"].(string), "rewritten by the hook") {
		t.Errorf("the call did not run with the rewritten arguments: %v", f)
	}
}

func TestHeadlessPreToolUseHookAskIsSkippedWithItsReason(t *testing.T) {
	ws := workspaceWithNotes(t)
	ask := hookScript(t, t.TempDir(), "ask.sh", `cat >/dev/null
printf '%s\n' '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "network commands need a look"}}'
`)
	res, evs := runHooked(t, ws, hookConfig(t, preToolUse(ask, "")), `{"steps": [
	  {"calls": [{"name": "run_shell", "args": {"command": "echo curl"}}]},
	  {"expect": ["network commands need a look", "headless"],
	   "calls": [{"name": "finish", "args": {"summary": "ok"}}]}]}`, "fetch")
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
	}
	d := callEvent(t, evs, "call_decision", 1, 0)
	if d["decision"] != "skip" || d["by"] != "headless" || !strings.Contains(d["reason"].(string), "hook "+ask+" asks before this call: network commands need a look") {
		t.Errorf("the asked call's decision is %v", d)
	}
	if f := callEvent(t, evs, "call_finished", 1, 0); f["outcome"] != "skipped" || f["started"] == true {
		t.Errorf("the asked call ran: %v", f)
	}
}

func TestHeadlessPostToolUseContextReachesTheModel(t *testing.T) {
	ws := workspaceWithNotes(t)
	post := hookScript(t, t.TempDir(), "post.sh", `cat >/dev/null
printf '%s\n' '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "lint: 0 problems"}}'
`)
	cfg := hookConfig(t, `{"PostToolUse": [{"matcher": "run_shell", "hooks": [{"type": "command", "command": `+jsonString(post)+`}]}]}`)
	res, evs := runHooked(t, ws, cfg, `{"steps": [
	  {"calls": [{"name": "run_shell", "args": {"command": "echo formatted"}}]},
	  {"expect": ["formatted", "Context from the person's PostToolUse hooks:\nlint: 0 problems"],
	   "calls": [{"name": "finish", "args": {"summary": "ok"}}]}]}`, "format")
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
	}
	hooks := ofType(evs, "hook")
	if len(hooks) != 1 || hooks[0]["event"] != "PostToolUse" || hooks[0]["context"] != "lint: 0 problems" {
		t.Errorf("hook events: %v", hooks)
	}
}

func TestHeadlessHookThatHangsIsKilledAndTheCallRuns(t *testing.T) {
	ws := workspaceWithNotes(t)
	dir := t.TempDir()
	hang := hookScript(t, dir, "hang.sh", `echo $$ > `+filepath.Join(dir, "pid")+`
exec sleep 30
`)
	res, evs := runHooked(t, ws, hookConfig(t, preToolUse(hang, `, "timeout": 0.5`)), `{"steps": [
	  {"calls": [{"name": "run_shell", "args": {"command": "echo ran anyway"}}]},
	  {"expect": ["ran anyway"], "calls": [{"name": "finish", "args": {"summary": "ok"}}]}]}`, "go")
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
	}
	if !noticeWith(evs, "ran past its time limit of 500ms and was killed") {
		t.Errorf("no notice that the hook was killed: %v", ofType(evs, "notice"))
	}
	h := ofType(evs, "hook")
	if len(h) != 1 || h[0]["timed_out"] != true {
		t.Errorf("hook events: %v", h)
	}
	if f := callEvent(t, evs, "call_finished", 1, 0); f["outcome"] != "success" {
		t.Errorf("the call did not run after its hook was killed: %v", f)
	}
}

func TestHeadlessHookErrorLetsTheCallRun(t *testing.T) {
	ws := workspaceWithNotes(t)
	broken := hookScript(t, t.TempDir(), "broken.sh", `cat >/dev/null
echo "config missing" >&2
exit 3
`)
	res, evs := runHooked(t, ws, hookConfig(t, preToolUse(broken, "")), `{"steps": [
	  {"calls": [{"name": "run_shell", "args": {"command": "echo ran"}}]},
	  {"expect": ["ran"], "calls": [{"name": "finish", "args": {"summary": "ok"}}]}]}`, "go")
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
	}
	if !noticeWith(evs, "exited with status 3: config missing") {
		t.Errorf("no notice of the hook error: %v", ofType(evs, "notice"))
	}
	if d := callEvent(t, evs, "call_decision", 1, 0); d["decision"] != "run" || d["by"] != "mode:auto" {
		t.Errorf("the call's decision is %v", d)
	}
	if f := callEvent(t, evs, "call_finished", 1, 0); f["outcome"] != "success" {
		t.Errorf("the call did not run: %v", f)
	}
	// The same hook marked on_error deny blocks the call instead.
	res, evs = runHooked(t, ws, hookConfig(t, preToolUse(broken, `, "on_error": "deny"`)), `{"steps": [
	  {"calls": [{"name": "run_shell", "args": {"command": "echo ran"}}]},
	  {"expect": ["on_error: deny"], "calls": [{"name": "finish", "args": {"summary": "ok"}}]}]}`, "go")
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
	}
	if f := callEvent(t, evs, "call_finished", 1, 0); f["outcome"] != "skipped" {
		t.Errorf("on_error deny let the call run: %v", f)
	}
}

func TestHeadlessUserPromptSubmitBlocksTheGoal(t *testing.T) {
	ws := workspaceWithNotes(t)
	block := hookScript(t, t.TempDir(), "prompt.sh", `if grep -q 'deploy'; then echo "deploys go through the release checklist" >&2; exit 2; fi
`)
	cfg := hookConfig(t, `{"UserPromptSubmit": [{"hooks": [{"type": "command", "command": `+jsonString(block)+`}]}]}`)
	res, evs := runHooked(t, ws, cfg, `{"steps": [
	  {"calls": [{"name": "run_shell", "args": {"command": "echo deploying > deployed.txt"}}]},
	  {"calls": [{"name": "finish", "args": {"summary": "deployed"}}]}]}`, "deploy to production")
	if res.code != 1 {
		t.Fatalf("exit %d, want 1 (failed)\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
	}
	out := lastOutcome(t, evs)
	attempts, _ := json.Marshal(out["attempts"])
	if out["status"] != "failed" || !strings.Contains(string(attempts), "deploys go through the release checklist") {
		t.Errorf("outcome %v", out)
	}
	if n := len(ofType(evs, "turn_started")) + len(ofType(evs, "reply")); n != 0 {
		t.Errorf("the model was asked after the input was blocked: %d events", n)
	}
	if _, err := os.Stat(filepath.Join(ws, "deployed.txt")); err == nil {
		t.Error("something ran after the input was blocked")
	}
	started := ofType(evs, "run_started")
	if len(started) != 1 || started[0]["blocked"] != "hook:"+block {
		t.Errorf("run_started does not say the hook blocked the input: %v", started)
	}
}

func TestHeadlessStopHookSendsTheAgentOnOnce(t *testing.T) {
	ws := workspaceWithNotes(t)
	dir := t.TempDir()
	stop := hookScript(t, dir, "stop.sh", `cat >/dev/null
if [ ! -e `+filepath.Join(dir, "once")+` ]; then
  touch `+filepath.Join(dir, "once")+`
  printf '%s\n' '{"decision": "block", "reason": "run the tests before you stop"}'
fi
`)
	cfg := hookConfig(t, `{"Stop": [{"hooks": [{"type": "command", "command": `+jsonString(stop)+`}]}]}`)
	res, evs := runHooked(t, ws, cfg, `{"steps": [
	  {"text": "All done."},
	  {"expect": ["run the tests before you stop"], "calls": [{"name": "run_shell", "args": {"command": "echo tests pass"}}]},
	  {"text": "Done, and the tests pass."}]}`, "fix it")
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
	}
	if out := lastOutcome(t, evs); out["summary"] != "Done, and the tests pass." {
		t.Errorf("outcome %v", out)
	}
	cont := ofType(evs, "run_continued")
	if len(cont) != 1 || cont[0]["reason"] != "run the tests before you stop" {
		t.Errorf("run_continued events: %v", cont)
	}
	if n := len(ofType(evs, "run_finished")); n != 1 {
		t.Errorf("%d run_finished events", n)
	}
}

func TestHeadlessHooksFireForTaskCalls(t *testing.T) {
	ws := workspaceWithNotes(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	record := hookScript(t, dir, "record.sh", `cat >> `+log+`
echo >> `+log+`
`)
	cfg := hookConfig(t, `{"PreToolUse": [{"matcher": "Read|read_file", "hooks": [{"type": "command", "command": `+jsonString(record)+`}]}]}`)
	res, _ := runHooked(t, ws, cfg, `{"steps": [
	  {"calls": [{"name": "task", "args": {"description": "read notes", "prompt": "What do the notes say?"}}]},
	  {"expect": ["milk"], "calls": [{"name": "finish", "args": {"summary": "ok"}}]}],
	  "tasks": {"read notes": {"steps": [
	    {"calls": [{"name": "read_file", "args": {"path": "notes.txt"}}]},
	    {"expect": ["milk"], "calls": [{"name": "finish", "args": {"summary": "the notes say milk"}}]}]}}}`, "survey")
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("the hook never ran for the task's call: %v", err)
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(string(data))), &in); err != nil {
		t.Fatalf("the hook's input %q: %v", data, err)
	}
	task, _ := json.Marshal(in["task"])
	if in["tool_name"] != "read_file" || string(task) != `["1.0"]` || in["agent_type"] == nil || in["hook_event_name"] != "PreToolUse" ||
		in["cwd"] != ws || in["permission_mode"] != "auto" {
		t.Errorf("the task call's hook input is %v", in)
	}
}

func TestHeadlessSkipsAnUntrustedWorkspacesHooks(t *testing.T) {
	ws := workspaceWithNotes(t)
	marker := filepath.Join(t.TempDir(), "ran")
	writeFile(t, filepath.Join(ws, "agenttui.json"), `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch `+marker+`"}]}]}}`)
	res := runBinary(t, ws, "", "run", "--json", "--scenario", writeScenario(t, `{"steps": [{"text": "hi"}]}`), "hello")
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
	}
	if !noticeWith(events(t, res.stdout), "has not been trusted to run") {
		t.Errorf("no notice that the workspace's hooks do not run: %s", res.stdout)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("an untrusted workspace's hook ran")
	}
}
