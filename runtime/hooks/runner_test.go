//go:build unix

package hooks

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// script writes an executable shell script named name into dir and returns
// its path.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// one returns a Config with one group for ev holding the given commands.
func one(ev Event, matcher string, cmds ...Command) Config {
	return Config{ev: {{Matcher: matcher, Hooks: cmds}}}
}

// shellInput returns a PreToolUse input for run_shell with the command c.
func shellInput(c string) Input {
	args, _ := json.Marshal(map[string]string{"command": c})
	return Input{SessionID: "s1", HookEventName: PreToolUse, ToolName: "run_shell", ToolInput: args, ToolUseID: "call_1"}
}

func TestPreToolUseExit2Denies(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	guard := script(t, dir, "guard.sh", `input=$(cat)
case "$input" in
*'rm -rf'*) echo "no rm -rf here" >&2; exit 2;;
esac
exit 0
`)
	r := &Runner{Config: one(PreToolUse, "Bash", cmd(guard)), Dir: dir}

	v := r.Run(t.Context(), shellInput("rm -rf /"))
	if v.Decision != Deny || v.Reason != "no rm -rf here" || v.By != "hook:"+guard {
		t.Fatalf("rm -rf: got %+v", v)
	}
	if len(v.Runs) != 1 || v.Runs[0].Exit != 2 || v.Runs[0].Error != "" || v.Runs[0].Duration <= 0 {
		t.Fatalf("rm -rf: runs %+v", v.Runs)
	}

	v = r.Run(t.Context(), shellInput("ls"))
	if v.Decision != None || v.Reason != "" || v.By != "" {
		t.Fatalf("ls: got %+v", v)
	}
	if len(v.Runs) != 1 || v.Runs[0].Exit != 0 || v.Runs[0].Error != "" {
		t.Fatalf("ls: runs %+v", v.Runs)
	}
}

func TestPreToolUseJSONAnswers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ask := script(t, dir, "ask.sh", `cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"look first"}}'
`)
	allow := script(t, dir, "allow.sh", `echo '{"hookSpecificOutput":{"permissionDecision":"allow","permissionDecisionReason":"fine"}}'`)
	rewrite := script(t, dir, "rewrite.sh", `echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls -la"},"additionalContext":"listed long"},"systemMessage":"rewrote ls"}'`)
	deny := script(t, dir, "deny.sh", `echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"not today"}}'`)
	approve := script(t, dir, "approve.sh", `echo '{"decision":"approve","reason":"old style"}'`)
	block := script(t, dir, "block.sh", `echo '{"decision":"block","reason":"old block"}'`)
	halt := script(t, dir, "halt.sh", `echo '{"continue":false,"stopReason":"halted"}'`)
	unknown := script(t, dir, "unknown.sh", `echo '{"hookSpecificOutput":{"permissionDecision":"maybe"}}'`)
	notObject := script(t, dir, "notobject.sh", `echo '{"hookSpecificOutput":{"updatedInput":["ls"]}}'`)
	broken := script(t, dir, "broken.sh", `echo '{"decision": '`)

	tests := []struct {
		name     string
		cmds     []Command
		decision Decision
		by       string
		reason   string
		updated  string
		context  string
		errs     []string
	}{
		{name: "ask", cmds: []Command{cmd(ask)}, decision: Ask, by: ask, reason: "look first"},
		{name: "allow", cmds: []Command{cmd(allow)}, decision: Allow, by: allow, reason: "fine"},
		{name: "approve", cmds: []Command{cmd(approve)}, decision: Allow, by: approve, reason: "old style"},
		{name: "continue false", cmds: []Command{cmd(halt)}, decision: Deny, by: halt, reason: "halted"},
		{name: "decision block", cmds: []Command{cmd(block)}, decision: Deny, by: block, reason: "old block"},
		{name: "rewrite", cmds: []Command{cmd(rewrite)}, decision: Allow, by: rewrite, updated: `{"command":"ls -la"}`, context: "listed long"},
		{name: "ask beats allow", cmds: []Command{cmd(allow), cmd(ask)}, decision: Ask, by: ask, reason: "look first"},
		{name: "first of equals speaks", cmds: []Command{cmd(allow), cmd(approve)}, decision: Allow, by: allow, reason: "fine"},
		{name: "deny drops the rewrite", cmds: []Command{cmd(rewrite), cmd(deny)}, decision: Deny, by: deny, reason: "not today", context: "listed long"},
		{name: "unknown permissionDecision", cmds: []Command{cmd(unknown)}, errs: []string{`answered an unknown permissionDecision "maybe"`}},
		{name: "updatedInput not an object", cmds: []Command{cmd(notObject)}, errs: []string{"answered an updatedInput that is not a JSON object"}},
		{name: "broken JSON", cmds: []Command{cmd(broken)}, errs: []string{"printed JSON that does not parse: unexpected end of JSON input"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := &Runner{Config: one(PreToolUse, "", tt.cmds...), Dir: dir}
			v := r.Run(t.Context(), shellInput("ls"))
			wantBy := ""
			if tt.by != "" {
				wantBy = By(tt.by)
			}
			if v.Decision != tt.decision || v.By != wantBy || v.Reason != tt.reason {
				t.Errorf("decision %q by %q reason %q; want %q by %q reason %q", v.Decision, v.By, v.Reason, tt.decision, wantBy, tt.reason)
			}
			if string(v.UpdatedInput) != tt.updated {
				t.Errorf("updated input %s; want %s", v.UpdatedInput, tt.updated)
			}
			if tt.updated != "" && v.UpdatedBy != By(rewrite) {
				t.Errorf("updated by %q", v.UpdatedBy)
			}
			if v.Context != tt.context {
				t.Errorf("context %q; want %q", v.Context, tt.context)
			}
			var errs []string
			for _, run := range v.Runs {
				if run.Error != "" {
					errs = append(errs, run.Error)
				}
			}
			if strings.Join(errs, "|") != strings.Join(tt.errs, "|") {
				t.Errorf("errors %q; want %q", errs, tt.errs)
			}
		})
	}
}

func TestOtherEvents(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := func(name, body string) string { return script(t, dir, name, body) }
	postContext := s("post.sh", `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"the tests still pass"}}'`)
	postBlock := s("postblock.sh", `echo '{"decision":"block","reason":"the output leaks a key"}'`)
	promptBlock := s("promptblock.sh", `echo "no secrets in prompts" >&2; exit 2`)
	promptText := s("prompttext.sh", `echo "it is Tuesday"`)
	promptPlainPre := s("plain.sh", `echo "plain text"`)
	stopBlock := s("stop.sh", `echo '{"decision":"block","reason":"the tests fail; fix them"}'`)
	stopNoReason := s("stopnoreason.sh", `echo '{"decision":"block"}'`)
	stopHalt := s("stophalt.sh", `echo '{"decision":"block","reason":"go on","continue":false,"stopReason":"enough"}'`)
	startText := s("start.sh", `echo "branch main, 3 changes"`)
	startJSON := s("startjson.sh", `echo '{"hookSpecificOutput":{"additionalContext":"from JSON"},"systemMessage":"hello"}'`)
	startExit2 := s("start2.sh", `echo "cannot block a start" >&2; exit 2`)
	exit3 := s("exit3.sh", `echo "first line" >&2; echo "second line" >&2; exit 3`)
	exit3Quiet := s("exit3quiet.sh", `exit 3`)

	ok := func(run Run) string { return run.Error }
	tests := []struct {
		name     string
		ev       Event
		cmds     []Command
		decision Decision
		reason   string
		context  string
		message  string
		err      string
	}{
		{name: "post context", ev: PostToolUse, cmds: []Command{cmd(postContext)}, context: "the tests still pass"},
		{name: "post block", ev: PostToolUse, cmds: []Command{cmd(postBlock)}, decision: Block, reason: "the output leaks a key"},
		{name: "post plain text ignored", ev: PostToolUse, cmds: []Command{cmd(promptPlainPre)}},
		{name: "prompt exit 2", ev: UserPromptSubmit, cmds: []Command{cmd(promptBlock)}, decision: Block, reason: "no secrets in prompts"},
		{name: "prompt plain context", ev: UserPromptSubmit, cmds: []Command{cmd(promptText)}, context: "it is Tuesday"},
		{name: "stop block", ev: Stop, cmds: []Command{cmd(stopBlock)}, decision: Block, reason: "the tests fail; fix them"},
		{name: "stop block without reason", ev: Stop, cmds: []Command{cmd(stopNoReason)}, err: "asked to go on without a reason"},
		{name: "stop continue false stops", ev: Stop, cmds: []Command{cmd(stopHalt)}, message: "enough"},
		{name: "stop plain text ignored", ev: Stop, cmds: []Command{cmd(promptPlainPre)}},
		{name: "start plain context", ev: SessionStart, cmds: []Command{cmd(startText)}, context: "branch main, 3 changes"},
		{name: "start JSON context", ev: SessionStart, cmds: []Command{cmd(startJSON)}, context: "from JSON", message: "hello"},
		{name: "start exit 2", ev: SessionStart, cmds: []Command{cmd(startExit2)}, message: "cannot block a start"},
		{name: "exit 3", ev: PreToolUse, cmds: []Command{cmd(exit3)}, err: "exited with status 3: first line"},
		{name: "exit 3 quiet", ev: Stop, cmds: []Command{cmd(exit3Quiet)}, err: "exited with status 3"},
		{name: "exit 3 deny", ev: PreToolUse, cmds: []Command{{Type: "command", Command: exit3, OnError: OnErrorDeny}},
			decision: Deny, reason: "the hook failed (exited with status 3: first line) and its entry says on_error: deny", err: "exited with status 3: first line"},
		{name: "exit 3 deny at a stop", ev: Stop, cmds: []Command{{Type: "command", Command: exit3Quiet, OnError: OnErrorDeny}},
			decision: Block, reason: "the hook failed (exited with status 3) and its entry says on_error: deny", err: "exited with status 3"},
		{name: "exit 3 deny at a start", ev: SessionStart, cmds: []Command{{Type: "command", Command: exit3Quiet, OnError: OnErrorDeny}},
			err: "exited with status 3"},
		{name: "exit 3 ignore", ev: PreToolUse, cmds: []Command{{Type: "command", Command: exit3, OnError: "ignore"}}, err: "exited with status 3: first line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := &Runner{Config: one(tt.ev, "", tt.cmds...), Dir: dir}
			in := Input{SessionID: "s1", HookEventName: tt.ev, Prompt: "hi"}
			if tt.ev.ToolEvent() {
				in = shellInput("ls")
				in.HookEventName = tt.ev
			}
			v := r.Run(t.Context(), in)
			if v.Decision != tt.decision || v.Reason != tt.reason || v.Context != tt.context {
				t.Errorf("decision %q reason %q context %q; want %q, %q, %q", v.Decision, v.Reason, v.Context, tt.decision, tt.reason, tt.context)
			}
			if len(v.Runs) != 1 {
				t.Fatalf("runs %+v", v.Runs)
			}
			if got := ok(v.Runs[0]); got != tt.err {
				t.Errorf("error %q; want %q", got, tt.err)
			}
			if v.Runs[0].Message != tt.message {
				t.Errorf("message %q; want %q", v.Runs[0].Message, tt.message)
			}
		})
	}
}

func TestTimeoutKills(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hang := script(t, dir, "hang.sh", "sleep 30\n")
	r := &Runner{Config: one(PreToolUse, "", Command{Type: "command", Command: hang, Timeout: 0.3}), Dir: dir}
	v := r.Run(t.Context(), shellInput("ls"))
	run := v.Runs[0]
	if !run.TimedOut || run.Exit != -1 || run.Error != "ran past its time limit of 300ms and was killed" {
		t.Fatalf("got %+v", run)
	}
	if v.Decision != None {
		t.Fatalf("a hook that timed out decided %q", v.Decision)
	}

	r.Config = one(PreToolUse, "", Command{Type: "command", Command: hang, Timeout: 0.3, OnError: OnErrorDeny})
	v = r.Run(t.Context(), shellInput("ls"))
	if v.Decision != Deny || !strings.HasPrefix(v.Reason, "the hook failed (ran past its time limit") {
		t.Fatalf("on_error deny: got %q %q", v.Decision, v.Reason)
	}
}

func TestRunnerTimeout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hang := script(t, dir, "hang.sh", "sleep 30\n")
	r := &Runner{Config: one(Stop, "", cmd(hang)), Dir: dir, Timeout: 200 * time.Millisecond}
	run := r.Run(t.Context(), Input{HookEventName: Stop}).Runs[0]
	if !run.TimedOut || run.Error != "ran past its time limit of 200ms and was killed" {
		t.Fatalf("got %+v", run)
	}
}

// grandchild runs a hook that starts a grandchild which writes its pid to
// a FIFO and then sleeps, and checks that the grandchild is dead once Run
// returns: the FIFO reads end of file only when no process holds it open
// for writing. stop ends the run once the grandchild is known to be up.
func grandchild(t *testing.T, ctx context.Context, timeout float64, stop func()) Run {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	rd, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	// The test holds the FIFO open for writing until the grandchild has
	// opened it too, so that reading it cannot end before then.
	wr, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer wr.Close()
	hook := script(t, dir, "parent.sh", `sh -c 'echo $$; exec sleep 300' >"$1" &
wait
`)
	r := &Runner{Config: one(Stop, "", Command{Type: "command", Command: hook + " " + fifo, Timeout: timeout}), Dir: dir}
	done := make(chan Verdict, 1)
	go func() { done <- r.Run(ctx, Input{HookEventName: Stop}) }()

	// Generous bounds: they only keep a broken runner from hanging the
	// test, and are never waited out when it works.
	if err := rd.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(rd)
	line, err := br.ReadString('\n')
	if err != nil {
		t.Fatalf("the grandchild did not start: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("pid %q: %v", line, err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	wr.Close()
	stop()
	v := <-done

	if err := rd.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if rest, err := io.ReadAll(br); err != nil || len(rest) > 0 {
		t.Fatalf("the grandchild %d still holds the FIFO: %q, %v", pid, rest, err)
	}
	return v.Runs[0]
}

func TestTimeoutKillsGrandchild(t *testing.T) {
	t.Parallel()
	// The limit is the point here, yet it leaves ample time for the hook
	// to start its child before it is killed.
	run := grandchild(t, t.Context(), 3, func() {})
	if !run.TimedOut || run.Exit != -1 || run.Error != "ran past its time limit of 3s and was killed" {
		t.Fatalf("got %+v", run)
	}
}

func TestCancelKillsGrandchild(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	run := grandchild(t, ctx, 0, cancel)
	if run.TimedOut || run.Exit != -1 || run.Error != "stopped with the run" {
		t.Fatalf("got %+v", run)
	}
}

func TestLeftBehindDoesNotHold(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// The hook answers and exits, leaving a process that holds its output
	// open: Run gives up on the output shortly after, and keeps the answer.
	hook := script(t, dir, "bg.sh", `sleep 300 &
echo $! >"$1"
echo '{"systemMessage":"done"}'
`)
	pidFile := filepath.Join(dir, "pid")
	r := &Runner{Config: one(Stop, "", cmd(hook+" "+pidFile)), Dir: dir}
	v := r.Run(t.Context(), Input{HookEventName: Stop})
	if b, err := os.ReadFile(pidFile); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if run := v.Runs[0]; run.Exit != 0 || run.Error != "" || run.Message != "done" {
		t.Fatalf("got %+v", run)
	}
}

func TestSideBySide(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Each hook marks that it has started, then waits for the other's
	// mark: run one after the other, the first would give up and fail.
	wait := script(t, dir, "wait.sh", `touch "$1"
i=0
while [ ! -e "$2" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done
[ -e "$2" ] || { echo "never saw $2" >&2; exit 3; }
echo "$(basename "$1") saw $(basename "$2")"
`)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	r := &Runner{Config: Config{UserPromptSubmit: {
		{Hooks: []Command{cmd(wait + " " + a + " " + b)}},
		{Hooks: []Command{cmd(wait + " " + b + " " + a)}},
	}}, Dir: dir}
	v := r.Run(t.Context(), Input{HookEventName: UserPromptSubmit, Prompt: "go"})
	for _, run := range v.Runs {
		if run.Error != "" {
			t.Fatalf("%s: %s", run.Command, run.Error)
		}
	}
	if v.Context != "a saw b\n\nb saw a" {
		t.Fatalf("context %q", v.Context)
	}
	if v.Runs[0].Command != wait+" "+a+" "+b {
		t.Fatalf("runs not in the configuration's order: %+v", v.Runs)
	}
}

func TestInputAndEnvironment(t *testing.T) {
	t.Parallel()
	ws, out := t.TempDir(), t.TempDir()
	spy := script(t, out, "spy.sh", `cat >"$1/in.json"
printf '%s' "$CLAUDE_PROJECT_DIR" >"$1/claude.txt"
printf '%s' "$AGENTTUI_PROJECT_DIR" >"$1/agenttui.txt"
printf '%s' "$EXTRA" >"$1/extra.txt"
pwd -P >"$1/pwd.txt"
`)
	r := &Runner{
		Config:     one(PreToolUse, "Bash", cmd(spy+" "+out)),
		Dir:        ws,
		Transcript: func(s string) string { return "/journal/" + s + ".jsonl" },
		Mode:       func() string { return "auto" },
		Env:        []string{"EXTRA=yes"},
	}
	in := shellInput("")
	in.ToolInput = json.RawMessage(`{"command": "ls && echo <x>"}`)
	in.Task = []string{"2.1"}
	if v := r.Run(t.Context(), in); v.Runs[0].Error != "" {
		t.Fatal(v.Runs[0].Error)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	raw := read("in.json")
	if strings.Count(raw, "\n") != 1 || !strings.HasSuffix(raw, "\n") {
		t.Fatalf("the input is not one line: %q", raw)
	}
	var got struct {
		SessionID      string          `json:"session_id"`
		TranscriptPath string          `json:"transcript_path"`
		Cwd            string          `json:"cwd"`
		HookEventName  string          `json:"hook_event_name"`
		PermissionMode string          `json:"permission_mode"`
		ToolName       string          `json:"tool_name"`
		ToolInput      json.RawMessage `json:"tool_input"`
		ToolUseID      string          `json:"tool_use_id"`
		Task           []string        `json:"task"`
	}
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		t.Fatal(err)
	}
	if got.SessionID != "s1" || got.TranscriptPath != "/journal/s1.jsonl" || got.Cwd != ws ||
		got.HookEventName != "PreToolUse" || got.PermissionMode != "auto" || got.ToolName != "run_shell" ||
		got.ToolUseID != "call_1" || len(got.Task) != 1 || got.Task[0] != "2.1" {
		t.Errorf("input %+v", got)
	}
	// Not HTML-escaped: a script that greps for "&&" finds it.
	if string(got.ToolInput) != `{"command":"ls && echo <x>"}` {
		t.Errorf("tool_input %s", got.ToolInput)
	}
	if read("claude.txt") != ws || read("agenttui.txt") != ws || read("extra.txt") != "yes" {
		t.Errorf("environment %q %q %q", read("claude.txt"), read("agenttui.txt"), read("extra.txt"))
	}
	real, err := filepath.EvalSymlinks(ws)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(read("pwd.txt")) != real {
		t.Errorf("working folder %q; want %q", read("pwd.txt"), real)
	}
}

func TestOutputBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	loud := script(t, dir, "loud.sh", `head -c 1048576 /dev/zero | tr '\0' x >&2
head -c 1048576 /dev/zero | tr '\0' y
exit 2
`)
	r := &Runner{Config: one(UserPromptSubmit, "", cmd(loud)), Dir: dir}
	v := r.Run(t.Context(), Input{HookEventName: UserPromptSubmit})
	if v.Decision != Block || len(v.Reason) != maxReason || strings.Trim(v.Reason, "x") != "" {
		t.Fatalf("decision %q, reason of %d bytes", v.Decision, len(v.Reason))
	}

	// MaxOutput bounds what is read: cut short, the JSON does not parse.
	long := script(t, dir, "long.sh", `echo '{"hookSpecificOutput":{"additionalContext":"more than ten bytes"}}'`)
	r = &Runner{Config: one(UserPromptSubmit, "", cmd(long)), Dir: dir, MaxOutput: 10}
	v = r.Run(t.Context(), Input{HookEventName: UserPromptSubmit})
	if !strings.HasPrefix(v.Runs[0].Error, "printed JSON that does not parse") {
		t.Fatalf("got %+v", v.Runs[0])
	}
}

func TestCouldNotStart(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "gone")
	r := &Runner{Config: one(Stop, "", Command{Type: "command", Command: "true", OnError: OnErrorDeny}), Dir: dir}
	v := r.Run(t.Context(), Input{HookEventName: Stop})
	if run := v.Runs[0]; !strings.HasPrefix(run.Error, "could not start: ") || run.Exit != -1 {
		t.Fatalf("got %+v", run)
	}
	if v.Decision != Block || !strings.HasPrefix(v.Reason, "the hook failed (could not start: ") {
		t.Fatalf("on_error deny: %q %q", v.Decision, v.Reason)
	}
}

func TestStoppedWithTheRun(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	r := &Runner{Config: one(Stop, "", cmd("true")), Dir: t.TempDir()}
	if run := r.Run(ctx, Input{HookEventName: Stop}).Runs[0]; run.Error != "stopped with the run" || run.TimedOut {
		t.Fatalf("got %+v", run)
	}
}

func TestRunSelects(t *testing.T) {
	t.Parallel()
	var nilRunner *Runner
	if v := nilRunner.Run(t.Context(), shellInput("ls")); v.Decision != None || v.Runs != nil {
		t.Fatalf("nil runner: %+v", v)
	}
	if nilRunner.Has(PreToolUse, "run_shell") {
		t.Fatal("nil runner has hooks")
	}
	c, err := Parse([]byte(`{"PreToolUse": [
		{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "echo edit"}]},
		{"matcher": "mcp__fs__.*", "hooks": [{"type": "command", "command": "echo fs"}]}],
		"Stop": [{"matcher": "nothing", "hooks": [{"type": "command", "command": "echo stop"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Config: c, Dir: t.TempDir()}
	ran := func(ev Event, tool string) []string {
		var out []string
		for _, run := range r.Run(t.Context(), Input{HookEventName: ev, ToolName: tool}).Runs {
			out = append(out, run.Command)
		}
		return out
	}
	if got := ran(PreToolUse, "write_file"); len(got) != 1 || got[0] != "echo edit" {
		t.Errorf("write_file ran %q", got)
	}
	if got := ran(PreToolUse, "fs__read"); len(got) != 1 || got[0] != "echo fs" {
		t.Errorf("fs__read ran %q", got)
	}
	if got := ran(PreToolUse, "run_shell"); got != nil || r.Has(PreToolUse, "run_shell") {
		t.Errorf("run_shell ran %q", got)
	}
	// A matcher means nothing to an event that is not about a tool.
	if got := ran(Stop, ""); len(got) != 1 || !r.Has(Stop, "") {
		t.Errorf("stop ran %q", got)
	}
}

func TestCombine(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("é", 3000) // 6000 bytes
	v := combine([]Run{
		{Command: "a", Decision: Allow, Context: big},
		{Command: "b", Decision: Block, Reason: "first block"},
		{Command: "c", Decision: Block, Reason: "second block", Context: big},
		{Command: "d", Decision: Ask, updated: `{"x":1}`},
	})
	if v.Decision != Block || v.By != "hook:b" || v.Reason != "first block" {
		t.Errorf("got %q by %q: %q", v.Decision, v.By, v.Reason)
	}
	// Block is not Deny: the rewrite is kept, for the caller to judge.
	if string(v.UpdatedInput) != `{"x":1}` || v.UpdatedBy != "hook:d" {
		t.Errorf("updated %s by %q", v.UpdatedInput, v.UpdatedBy)
	}
	note := "\n[hook context cut at 10000 bytes]"
	body, ok := strings.CutSuffix(v.Context, note)
	if !ok || len(body) > MaxContext || len(body) < MaxContext-3 || !utf8.ValidString(body) {
		t.Errorf("context of %d bytes, ends %q", len(v.Context), v.Context[max(0, len(v.Context)-40):])
	}
	if !strings.HasPrefix(body, big+"\n\n") {
		t.Error("the contexts are not in order")
	}
	if v := combine([]Run{{Command: "a", Context: "x"}, {Command: "b"}, {Command: "c", Context: "y"}}); v.Context != "x\n\ny" || v.Decision != None {
		t.Errorf("got %+v", v)
	}
}

func TestLimit(t *testing.T) {
	t.Parallel()
	r := &Runner{}
	for _, tt := range []struct {
		c    Command
		want time.Duration
	}{
		{Command{}, DefaultTimeout},
		{Command{Timeout: 1.5}, 1500 * time.Millisecond},
		{Command{Timeout: 1e300}, time.Duration(1<<63 - 1)},
	} {
		if got := r.limit(tt.c); got != tt.want {
			t.Errorf("limit(%v) = %v; want %v", tt.c.Timeout, got, tt.want)
		}
	}
	if got := (&Runner{Timeout: time.Second}).limit(Command{}); got != time.Second {
		t.Errorf("runner default: %v", got)
	}
}
