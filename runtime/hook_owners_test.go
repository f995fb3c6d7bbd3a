package runtime

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/agenttui/agenttui/runtime/hooks"
	"github.com/agenttui/agenttui/runtime/model"
)

// hookScripts writes the hook scripts of a workspace into dir/hooks: a
// PreToolUse hook that refuses every call, PostToolUse hooks that give
// context, and a Stop hook that sends the agent on once.
func hookScripts(t *testing.T, dir string) {
	t.Helper()
	scripts := map[string]string{
		"pre.sh":     "#!/bin/sh\necho 'no shell in this workspace' >&2\nexit 2\n",
		"lint.sh":    "#!/bin/sh\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PostToolUse\",\"additionalContext\":\"lint: 0 problems\"}}'\n",
		"mine.sh":    "#!/bin/sh\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PostToolUse\",\"additionalContext\":\"my notes say go on\"}}'\n",
		"stop.sh":    "#!/bin/sh\n[ -e .stopped ] && exit 0\ntouch .stopped\necho 'the tests have not run' >&2\nexit 2\n",
		"rewrite.sh": "#!/bin/sh\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"updatedInput\":{\"command\":\"ls -a\"}}}'\n",
	}
	if err := os.MkdirAll(filepath.Join(dir, "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, "hooks", name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// hookOn returns the config of one command hooked on ev for run_shell.
func hookOn(ev hooks.Event, command string) hooks.Config {
	return hooks.Config{ev: {{Matcher: "run_shell", Hooks: []hooks.Command{{Type: "command", Command: command}}}}}
}

// TestHooksAreNamedAsWhoseTheyAre runs real hook commands, some from the
// workspace's own configuration and some the person's, and checks the
// exact text the model reads about each: a hook of the workspace's is the
// workspace's, one of the person's the person's, and context from both
// says so.
func TestHooksAreNamedAsWhoseTheyAre(t *testing.T) {
	run := func(t *testing.T, cfg hooks.Config, steps ...model.Step) (*Session, string) {
		t.Helper()
		dir := t.TempDir()
		hookScripts(t, dir)
		var ran []string
		var mu sync.Mutex
		a := newAgent(t, script(t, steps...), nil, shellTool(&ran, &mu))
		// The person trusted the workspace's hooks as they are.
		trust := hooks.NewTrust(nil)
		trust.Grant(hooks.Take(dir, cfg))
		a.HookCommands = &hooks.Runner{Config: cfg, Dir: dir, Trust: trust}
		s := NewSession("s")
		if out := a.Run(context.Background(), s, "look around"); out.Status != StatusSucceeded {
			t.Fatalf("outcome %+v", out)
		}
		return s, dir
	}
	ls := model.Step{Calls: []model.ScriptedCall{call("run_shell", `{"command":"ls"}`)}}
	for _, tc := range []struct {
		name string
		cfg  hooks.Config
		want string
	}{
		{"workspace's deny", hookOn(hooks.PreToolUse, "./hooks/pre.sh").MarkWorkspace(),
			"Skipped: the workspace's PreToolUse hook `./hooks/pre.sh` did not allow this call, so it was not run. " +
				"The hook's reason: no shell in this workspace"},
		{"person's deny", hookOn(hooks.PreToolUse, "./hooks/pre.sh"),
			"Skipped: the person's PreToolUse hook `./hooks/pre.sh` did not allow this call, so it was not run. " +
				"The hook's reason: no shell in this workspace"},
		{"workspace's rewrite", hookOn(hooks.PreToolUse, "./hooks/rewrite.sh").MarkWorkspace(),
			"ran ls -a\n\nNote: the workspace's PreToolUse hook `./hooks/rewrite.sh` rewrote this call's arguments before it ran; " +
				`it ran with {"command":"ls -a"}.`},
		{"workspace's context", hookOn(hooks.PostToolUse, "./hooks/lint.sh").MarkWorkspace(),
			"ran ls\n\nContext from the workspace's PostToolUse hooks:\nlint: 0 problems"},
		{"person's context", hookOn(hooks.PostToolUse, "./hooks/mine.sh"),
			"ran ls\n\nContext from the person's PostToolUse hooks:\nmy notes say go on"},
		{"context of both", hookOn(hooks.PostToolUse, "./hooks/mine.sh").Merge(hookOn(hooks.PostToolUse, "./hooks/lint.sh").MarkWorkspace()),
			"ran ls\n\nContext from the person's and the workspace's PostToolUse hooks:\nmy notes say go on\n\nlint: 0 problems"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := run(t, tc.cfg, ls, finishStep("done"))
			if got := resultsOf(t, s, 1)[0].Content; got != tc.want {
				t.Errorf("the model reads\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name string
		cfg  hooks.Config
		want string
	}{
		{"workspace's stop", hooks.Config{hooks.Stop: {{Hooks: []hooks.Command{{Type: "command", Command: "./hooks/stop.sh"}}}}}.MarkWorkspace(),
			"The workspace's Stop hook `./hooks/stop.sh` did not let the run end yet: the tests have not run\n" +
				"Go on with the work, and finish when it is done."},
		{"person's stop", hooks.Config{hooks.Stop: {{Hooks: []hooks.Command{{Type: "command", Command: "./hooks/stop.sh"}}}}},
			"The person's Stop hook `./hooks/stop.sh` did not let the run end yet: the tests have not run\n" +
				"Go on with the work, and finish when it is done."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := run(t, tc.cfg, finishStep("done too soon"), finishStep("done"))
			var told []string
			for _, m := range s.Messages {
				if m.Role == model.RoleUser && m.Text == tc.want {
					return
				}
				if m.Role == model.RoleUser {
					told = append(told, m.Text)
				}
			}
			t.Errorf("the model was not told %q; the user messages are %q", tc.want, told)
		})
	}
}
