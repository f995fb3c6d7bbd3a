package tui

import (
	"testing"

	"github.com/agenttui/agenttui/runtime"
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
