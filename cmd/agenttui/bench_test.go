package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/runtime/workspace"
	"github.com/agenttui/agenttui/runtime/workspace/sandbox"
)

// BenchmarkShellSandbox measures run_shell "true" with and without the
// sandbox, through the workspace tool as a session runs it. The helper is
// this test binary, which links everything agenttui links, so its start
// costs what the installed binary's does. "sandboxed" runs the commands back
// to back, so each finds the spare helper still starting, or none;
// "sandboxed-ready" lets the spare get ready before each command, untimed,
// as it is when commands come from a model, seconds apart. The differences
// to unsandboxed are the sandbox's start-up cost per command.
func BenchmarkShellSandbox(b *testing.B) {
	dir := b.TempDir()
	shell := func(b *testing.B, sb *sandbox.Sandbox) tool.Tool {
		ws, err := workspace.New(dir)
		if err != nil {
			b.Fatal(err)
		}
		ws.SetSandbox(sb)
		for _, t := range ws.Tools() {
			if t.Declaration().Name == "run_shell" {
				return t
			}
		}
		b.Fatal("no run_shell")
		return nil
	}
	run := func(b *testing.B, t tool.Tool, before func()) {
		args := json.RawMessage(`{"command":"true"}`)
		for b.Loop() {
			if before != nil {
				b.StopTimer()
				before()
				b.StartTimer()
			}
			if r := t.Call(context.Background(), args); !r.Outcome().IsSuccess() {
				b.Fatalf("%v: %v", r.Outcome(), r.Output)
			}
		}
	}
	newSandbox := func(b *testing.B) *sandbox.Sandbox {
		support := sandbox.Detect()
		if support.ABI < 1 {
			b.Skip("this kernel has no Landlock")
		}
		sb, err := sandbox.New(dir, sandbox.Config{}, support)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { sb.Close() })
		return sb
	}
	b.Run("unsandboxed", func(b *testing.B) { run(b, shell(b, nil), nil) })
	b.Run("sandboxed", func(b *testing.B) {
		sb := newSandbox(b)
		run(b, shell(b, sb), nil)
	})
	b.Run("sandboxed-ready", func(b *testing.B) {
		sb := newSandbox(b)
		run(b, shell(b, sb), func() {
			if !sb.Warm() {
				b.Fatal("no spare helper became ready")
			}
		})
	})
}
