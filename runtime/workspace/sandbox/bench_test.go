package sandbox

import (
	"os/exec"
	"testing"
)

// BenchmarkStart measures what the sandbox adds to starting a command:
// bash -c true unsandboxed, then through the helper (this package's test
// binary) in the sandbox. The difference is the sandbox's start-up cost.
func BenchmarkStart(b *testing.B) {
	ws := b.TempDir()
	run := func(b *testing.B, sb *Sandbox) {
		for b.Loop() {
			cmd := exec.Command("bash", "-c", "true")
			cmd.Dir = ws
			if sb != nil {
				if err := sb.Wrap(cmd); err != nil {
					b.Fatal(err)
				}
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	}
	b.Run("unsandboxed", func(b *testing.B) { run(b, nil) })
	b.Run("sandboxed", func(b *testing.B) {
		support := Detect()
		if support.ABI < 1 {
			b.Skip("this kernel has no Landlock")
		}
		sb, err := New(ws, Config{}, support)
		if err != nil {
			b.Fatal(err)
		}
		defer sb.Close()
		run(b, sb)
	})
}
