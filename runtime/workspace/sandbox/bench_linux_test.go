package sandbox

import (
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkRuleset measures the helper's own work: opening and checking the
// writable roots and building the Landlock ruleset (not enforced: that
// would restrict the benchmark). Everything else the sandbox adds to a
// command is starting the helper, a second program.
func BenchmarkRuleset(b *testing.B) {
	support := Detect()
	if support.ABI < 1 {
		b.Skip("this kernel has no Landlock")
	}
	sb, err := New(b.TempDir(), Config{}, support)
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close()
	p := sb.policy()
	for b.Loop() {
		fd, _, err := ruleset(p, support.ABI)
		if err != nil {
			b.Fatal(err)
		}
		unix.Close(fd)
	}
}
