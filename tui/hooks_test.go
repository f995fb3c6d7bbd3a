package tui

import (
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/tui/trust"
)

func TestHooksShowWhatTheyHoldUpAndWhenTheySendTheAgentOn(t *testing.T) {
	h := newHarness(t, Options{})
	h.feed(runtime.HooksRunning{Event: "PreToolUse", Turn: 1, Calls: []int{0}})
	mustContain(t, h.view(), "running your PreToolUse hooks before the calls are planned")
	h.feed(runtime.HookRan{Event: "PreToolUse", Command: "./guard.sh"})
	mustNotContain(t, h.view(), "running your PreToolUse hooks")
	h.feed(runtime.RunContinued{Turn: 1, By: "hook:./tests.sh\x1b[2J", Reason: "the tests fail", Text: "…"})
	mustContain(t, h.view(), "your Stop hook ./tests.sh␛", "sent the agent on: the tests fail")
	h.feed(runtime.RunContinued{Turn: 2, By: "hook:./ci.sh", Workspace: true, Reason: "lint first", Text: "…"})
	mustContain(t, h.view(), "the workspace's Stop hook ./ci.sh sent the agent on: lint first")
}

// TestTrustAskedAgainWhileASessionRuns delivers the question a session
// asks when a trusted hook is found changed: the screen shows it over the
// running session, keys answer only after the grace period, the answer is
// said in the transcript, and nothing opens again.
func TestTrustAskedAgainWhileASessionRuns(t *testing.T) {
	opened := 0
	h := newHarness(t, Options{Open: func() { opened++ }})
	h.feed(Opened{ID: "s1", Model: "scenario:test"})
	h.startRun("read the notes")
	var answers []bool
	h.feed(&TrustRequest{
		Question: trust.Question{Workspace: ws, File: ws + "/agenttui.json", Lines: []string{"PreToolUse run_shell: ./hooks/pre.sh"}, Changed: true},
		Answer: func(trusted bool) string {
			answers = append(answers, trusted)
			return "the hooks of agenttui.json no longer run in this console"
		},
	})
	mustContain(t, h.view(), "This workspace defines hooks", "They changed since you trusted them.", "./hooks/pre.sh")
	h.key("n")
	if len(answers) != 0 {
		t.Fatal("a key answered before the grace period was over")
	}
	for h.wake() {
	}
	h.clock.advance(time.Second)
	if cmd := h.update(keyMsg("n")); cmd != nil {
		cmd()
	}
	if len(answers) != 1 || answers[0] {
		t.Fatalf("answers %v", answers)
	}
	s := h.view()
	mustNotContain(t, s, "They changed since you trusted them.")
	mustContain(t, s, "the hooks of agenttui.json no longer run in this console")
	if opened != 0 {
		t.Errorf("answering the question asked again opened the session %d times", opened)
	}
}
