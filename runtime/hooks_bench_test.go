package runtime

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agenttui/agenttui/runtime/hooks"
	"github.com/agenttui/agenttui/runtime/model"
)

// oneReadReply returns a scripted model whose first reply makes one call of
// a read tool and whose second reply finishes.
func oneReadReply() model.Model {
	return model.NewScripted("bench", &model.Scenario{Name: "bench", Steps: []model.Step{
		{Calls: []model.ScriptedCall{call("read_file", `{"path":"f"}`)}},
		finishStep("done"),
	}}).WithoutDelays()
}

// benchHookConfig parses raw, the "hooks" object of a configuration.
func benchHookConfig(b *testing.B, raw string) hooks.Config {
	b.Helper()
	cfg, err := hooks.Parse([]byte(raw))
	if err != nil {
		b.Fatal(err)
	}
	return cfg
}

// benchOneCall runs a one-call reply of a trivial read tool once per
// iteration, with the hook commands of cfg (none when cfg is nil), and
// reports the time of a run per call: with one call a run, ms/call is the
// whole run (two model turns and the call), so what a hook adds to a call is
// the difference between the figures with and without it. Each iteration
// checks that every hook expected ran and exited 0 without an error, so
// that a hook that could not start is not measured as a fast one.
func benchOneCall(b *testing.B, cfg hooks.Config, hooksPerCall int) {
	cat, err := NewCatalog(pathTool("read_file", false, okBody("ok")))
	if err != nil {
		b.Fatal(err)
	}
	var ran, failed int
	var firstError string
	a := &Agent{Model: oneReadReply(), Catalog: cat, Sink: func(e Event) {
		if h, ok := e.(HookRan); ok {
			ran++
			if h.Exit != 0 || h.Error != "" {
				failed++
				if firstError == "" {
					firstError = h.Command + ": " + h.Error
				}
			}
		}
	}}
	if cfg != nil {
		a.HookCommands = &hooks.Runner{Config: cfg, Dir: b.TempDir()}
	}
	b.ResetTimer()
	for b.Loop() {
		ran, failed = 0, 0
		out := a.Run(context.Background(), NewSession("b"), "go")
		if out.Status != StatusSucceeded {
			b.Fatalf("outcome %+v", out)
		}
		if ran != hooksPerCall || failed != 0 {
			b.Fatalf("%d hook commands ran, %d of them failed (%s); want %d that succeed", ran, failed, firstError, hooksPerCall)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N), "ms/call")
}

// BenchmarkCallWithoutHooks is the baseline: one call of a trivial read
// tool, and no hook commands.
func BenchmarkCallWithoutHooks(b *testing.B) {
	benchOneCall(b, nil, 0)
}

// BenchmarkCallWithNoopPreToolUseHook is the baseline with one PreToolUse
// hook that does nothing: "true" is the shell's builtin, so its cost is
// /bin/sh starting and exiting, and the runner's pipes and answer.
func BenchmarkCallWithNoopPreToolUseHook(b *testing.B) {
	cfg := benchHookConfig(b, `{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"true"}]}]}`)
	benchOneCall(b, cfg, 1)
}

// BenchmarkCallWithNoopPreAndPostHooks is the baseline with a no-op
// PreToolUse hook and a no-op PostToolUse hook: two shells a call.
func BenchmarkCallWithNoopPreAndPostHooks(b *testing.B) {
	cfg := benchHookConfig(b, `{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"true"}]}],`+
		`"PostToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"true"}]}]}`)
	benchOneCall(b, cfg, 2)
}

// BenchmarkCallWithNoopPreToolUseHookScript is the baseline with one
// PreToolUse hook that is a script file, as most hooks are: one that only
// exits, one that reads its input with the shell's own read (no process
// more), and one that reads it with cat, which is a process more.
func BenchmarkCallWithNoopPreToolUseHookScript(b *testing.B) {
	for _, c := range []struct{ name, body string }{
		{"exit", "exit 0\n"},
		{"read", "read -r _ || :\n"},
		{"cat", "cat >/dev/null\n"},
	} {
		b.Run(c.name, func(b *testing.B) {
			file := filepath.Join(b.TempDir(), "hook.sh")
			if err := os.WriteFile(file, []byte("#!/bin/sh\n"+c.body), 0o755); err != nil {
				b.Fatal(err)
			}
			command, _ := json.Marshal(file)
			cfg := benchHookConfig(b, `{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":`+string(command)+`}]}]}`)
			benchOneCall(b, cfg, 1)
		})
	}
}
