package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agenttui/agenttui/internal/termtest"
)

// BenchmarkStart measures how long the console takes from the process's
// start to its first frame, against a bare bubbletea program that draws one
// line (testdata/bare, built from this module's graph, so both link the
// same bubbletea, lipgloss and termenv), the two started alternately in the
// same run, in a 120×40 pseudo-terminal with a fresh HOME each time. It
// reports the medians (agenttui-ms, bare-ms), their ratio (×bare) and the
// peak resident memory of each program's process at its first frame
// (agenttui-MB, bare-MB). The spare shell helper, a process of its own
// started a second after the sandbox is made, is not running yet at the
// first frame, so it is not counted.
//
// Both binaries are copies: a file just written by the linker is mapped
// in huge pages, which inflates a start's resident memory. Each is started
// once unmeasured first. Use -benchtime Nx for N starts of each:
//
//	go test -run XXX -bench Start -benchtime 5x ./cmd/agenttui/
func BenchmarkStart(b *testing.B) {
	dir := b.TempDir()
	built := filepath.Join(dir, "bare.built")
	build := exec.Command("go", "build", "-o", built, "./testdata/bare")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		b.Fatalf("building the bare program: %v", err)
	}
	programs := []struct{ name, path string }{
		{"agenttui", copyFile(b, binary, filepath.Join(dir, "agenttui"))},
		{"bare", copyFile(b, built, filepath.Join(dir, "bare"))},
	}
	for _, p := range programs {
		startToFirstFrame(b, p.path)
	}
	times := make([][]float64, len(programs))
	peaks := make([][]float64, len(programs))
	for b.Loop() {
		for i, p := range programs {
			d, mb := startToFirstFrame(b, p.path)
			times[i] = append(times[i], float64(d)/float64(time.Millisecond))
			peaks[i] = append(peaks[i], mb)
		}
	}
	b.ReportMetric(median(times[0]), "agenttui-ms")
	b.ReportMetric(median(times[1]), "bare-ms")
	b.ReportMetric(median(times[0])/median(times[1]), "×bare")
	b.ReportMetric(median(peaks[0]), "agenttui-MB")
	b.ReportMetric(median(peaks[1]), "bare-MB")
	b.Logf("agenttui first frames %.1f ms, bare %.1f ms; agenttui peak %.1f MB",
		times[0], times[1], peaks[0])
}

// startToFirstFrame starts the program at path in a fresh pseudo-terminal
// and returns the time from the start to the first frame on its screen and
// the peak resident memory of its process then, in MB; it ends the program
// before returning.
func startToFirstFrame(b *testing.B, path string) (time.Duration, float64) {
	home := b.TempDir()
	env := []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"TMPDIR=" + os.Getenv("TMPDIR"),
	}
	start := time.Now()
	term := termtest.Start(b, termtest.Options{Cols: 120, Rows: 40, Env: env, Dir: home}, path)
	term.WaitForFunc("a first frame", func(s string) bool { return strings.TrimSpace(s) != "" }, time.Minute)
	took := time.Since(start)
	mb := peakMB(b, term.Pid())
	term.Close()
	return took, mb
}

// peakMB returns the peak resident memory of process pid (VmHWM), in MB.
func peakMB(b *testing.B, pid int) float64 {
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		b.Fatal(err)
	}
	for line := range bytes.Lines(status) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(string(rest)), " kB"))
			if err != nil {
				b.Fatalf("VmHWM %q: %v", rest, err)
			}
			return float64(kb) / 1000
		}
	}
	b.Fatal("no VmHWM in /proc/pid/status")
	return 0
}

// copyFile copies the executable from to to and returns to.
func copyFile(b *testing.B, from, to string) string {
	src, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		b.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		b.Fatal(err)
	}
	return to
}

// median returns the median of xs.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
