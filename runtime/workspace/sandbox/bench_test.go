//go:build linux

package sandbox

import (
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// BenchmarkStart measures what the sandbox adds to starting a command: bash
// -c true unsandboxed; through a helper started for it alone (this
// package's test binary), as Wrap does; on a spare helper that is ready, as
// a command from a model finds it (they come seconds apart; the wait for
// the spare is not timed); and back to back, where each command finds the
// spare that started as the one before ended still starting up, or none,
// and costs about what a helper of its own does. Every variant runs the
// command as run_shell does: its own process group, its output on a pipe
// read to the end. The differences to unsandboxed are the sandbox's
// start-up cost.
func BenchmarkStart(b *testing.B) {
	ws := b.TempDir()
	run := func(b *testing.B, start func(*exec.Cmd) (*exec.Cmd, error)) {
		cmd := exec.Command("bash", "-c", "true")
		cmd.Dir = ws
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		pr, pw, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		defer pr.Close()
		cmd.Stdout, cmd.Stderr = pw, pw
		ran, err := start(cmd)
		pw.Close()
		if err != nil {
			b.Fatal(err)
		}
		out, _ := io.ReadAll(pr)
		if err := ran.Wait(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
	plain := func(cmd *exec.Cmd) (*exec.Cmd, error) { return cmd, cmd.Start() }
	sandbox := func(b *testing.B) *Sandbox {
		support := Detect()
		if support.ABI < 1 {
			b.Skip("this kernel has no Landlock")
		}
		sb, err := New(ws, Config{}, support)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { sb.Close() })
		return sb
	}
	b.Run("unsandboxed", func(b *testing.B) {
		for b.Loop() {
			run(b, plain)
		}
	})
	b.Run("sandboxed", func(b *testing.B) {
		sb := sandbox(b)
		wrapped := func(cmd *exec.Cmd) (*exec.Cmd, error) {
			if err := sb.Wrap(cmd); err != nil {
				return nil, err
			}
			return cmd, cmd.Start()
		}
		for b.Loop() {
			run(b, wrapped)
		}
	})
	b.Run("spare-ready", func(b *testing.B) {
		sb := sandbox(b)
		for b.Loop() {
			b.StopTimer()
			if !sb.Warm() {
				b.Fatal("no spare helper")
			}
			b.StartTimer()
			run(b, sb.Start)
		}
	})
	b.Run("spare-back-to-back", func(b *testing.B) {
		sb := sandbox(b)
		sb.Warm()
		for b.Loop() {
			run(b, sb.Start)
		}
	})
}
