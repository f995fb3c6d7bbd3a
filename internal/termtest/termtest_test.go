package termtest

import (
	"fmt"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// Paths of the helper programs under testdata, built once in TestMain.
var probeBin, teaBin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "termtest")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	// One go build for both, writing each binary into dir; the build cache
	// makes repeated runs cheap.
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
		"./testdata/ttyprobe", "./testdata/teahello")
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the test programs: %v\n%s", err, out)
		return 1
	}
	probeBin = filepath.Join(dir, "ttyprobe")
	teaBin = filepath.Join(dir, "teahello")
	return m.Run()
}

const timeout = 5 * time.Second

// row returns line i of screen.
func row(screen string, i int) string {
	rows := strings.Split(screen, "\n")
	if i >= len(rows) {
		return ""
	}
	return rows[i]
}

func startProbe(t *testing.T) *Term {
	t.Helper()
	term := Start(t, Options{Cols: 80, Rows: 24}, probeBin)
	term.WaitFor("ready", timeout)
	return term
}

func TestScreenFollowsCursorMovement(t *testing.T) {
	t.Parallel()
	term := startProbe(t)
	s := term.Screen()
	if got := strings.Count(s, "\n") + 1; got != 24 {
		t.Errorf("screen has %d rows, want 24", got)
	}
	for i, want := range map[int]string{
		0: "line one",
		1: "     x",
		3: "          moved",
		5: "wide: 日本語 end",
		6: "RED plain",
	} {
		if got := row(s, i); got != want {
			t.Errorf("row %d = %q, want %q\nscreen:\n%s", i, got, want, s)
		}
	}
}

func TestCellAt(t *testing.T) {
	t.Parallel()
	term := startProbe(t)

	red := term.CellAt(6, 0)
	if red.Content != "R" || !red.Bold {
		t.Errorf("cell (6,0) = %+v, want a bold R", red)
	}
	if !sameColor(red.Fg, ansi.Red) {
		t.Errorf("cell (6,0) foreground = %#v, want red", red.Fg)
	}
	plain := term.CellAt(6, 4)
	if plain.Content != "p" || plain.Bold || plain.Fg != nil {
		t.Errorf("cell (6,4) = %+v, want an unstyled p", plain)
	}

	// "wide: " is 6 columns; 日 covers columns 6 and 7.
	wide := term.CellAt(5, 6)
	if wide.Content != "日" || wide.Width != 2 {
		t.Errorf("cell (5,6) = %+v, want 日 of width 2", wide)
	}
	if cont := term.CellAt(5, 7); cont.Content != "" || cont.Width != 0 {
		t.Errorf("cell (5,7) = %+v, want the empty continuation of 日", cont)
	}
	if next := term.CellAt(5, 8); next.Content != "本" {
		t.Errorf("cell (5,8) = %+v, want 本", next)
	}
	if out := term.CellAt(99, 99); out != (Cell{}) {
		t.Errorf("cell outside the screen = %+v, want the zero Cell", out)
	}
}

func sameColor(a, b color.Color) bool {
	if a == nil || b == nil {
		return a == b
	}
	r1, g1, b1, a1 := a.RGBA()
	r2, g2, b2, a2 := b.RGBA()
	return r1 == r2 && g1 == g2 && b1 == b2 && a1 == a2
}

func TestCursorPositionReportReachesProgram(t *testing.T) {
	t.Parallel()
	term := startProbe(t)
	// The probe asked with the cursor at row 9, column 3 (1-based).
	if s := term.Screen(); !strings.Contains(s, `dsr="\x1b[9;3R"`) {
		t.Errorf("no cursor position report on screen:\n%s", s)
	}
}

func TestKeys(t *testing.T) {
	t.Parallel()
	term := startProbe(t)
	for _, k := range []struct{ name, want string }{
		{"up", `key="\x1b[A"`},
		{"shift+tab", `key="\x1b[Z"`},
		{"ctrl+c", `key="\x03"`},
		{"pgdown", `key="\x1b[6~"`},
		{"enter", `key="\r"`},
	} {
		term.Key(k.name)
		term.WaitFor(k.want, timeout)
	}
	// "m" makes the probe switch on application cursor mode (DECCKM),
	// after which the arrows send SS3 sequences.
	term.Send("m")
	term.WaitFor("cursor keys: application", timeout)
	term.Key("down")
	term.WaitFor(`key="\x1bOB"`, timeout)
}

func TestKeySeq(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		app  bool
		want string
	}{
		{"enter", false, "\r"},
		{"esc", false, "\x1b"},
		{"tab", false, "\t"},
		{"shift+tab", false, "\x1b[Z"},
		{"backspace", false, "\x7f"},
		{"up", false, "\x1b[A"},
		{"up", true, "\x1bOA"},
		{"down", false, "\x1b[B"},
		{"shift+up", true, "\x1b[1;2A"},
		{"ctrl+left", false, "\x1b[1;5D"},
		{"pgup", false, "\x1b[5~"},
		{"pgdown", false, "\x1b[6~"},
		{"ctrl+delete", false, "\x1b[3;5~"},
		{"ctrl+c", false, "\x03"},
		{"alt+x", false, "\x1bx"},
		{"alt+enter", false, "\x1b\r"},
		{"q", false, "q"},
		{"+", false, "+"},
		{"ctrl++", false, ""},
		{"é", false, "é"},
		{"hyper+x", false, ""},
		{"nosuchkey", false, ""},
	} {
		got, err := keySeq(c.name, c.app)
		if c.want == "" {
			if err == nil {
				t.Errorf("keySeq(%q) = %q, want an error", c.name, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("keySeq(%q, app=%v) = %q, %v; want %q", c.name, c.app, got, err, c.want)
		}
	}
}

func TestTypeSendsOneRunePerRead(t *testing.T) {
	t.Parallel()
	term := startProbe(t)
	term.Type("héllo")
	s := term.WaitFor(`key="o"`, timeout)
	for _, r := range "héllo" {
		if want := fmt.Sprintf("key=%q", string(r)); !strings.Contains(s, want) {
			t.Errorf("no %s on screen:\n%s", want, s)
		}
	}
}

func TestResize(t *testing.T) {
	t.Parallel()
	term := startProbe(t)
	if !strings.Contains(term.Screen(), "size=80x24") {
		t.Fatalf("probe did not see 80x24:\n%s", term.Screen())
	}
	term.Resize(100, 30)
	term.WaitFor("size=100x30", timeout)
	if cols, rows := term.Size(); cols != 100 || rows != 30 {
		t.Errorf("Size() = %dx%d, want 100x30", cols, rows)
	}
	if got := strings.Count(term.Screen(), "\n") + 1; got != 30 {
		t.Errorf("screen has %d rows after resize, want 30", got)
	}
}

func TestWaitReturnsExitCode(t *testing.T) {
	t.Parallel()
	term := Start(t, Options{}, probeBin, "exit", "7")
	code, err := term.Wait(timeout)
	if err != nil || code != 7 {
		t.Fatalf("Wait() = %d, %v; want 7, nil", code, err)
	}
	// Wait also lets the last output reach the emulator.
	if !strings.Contains(term.Screen(), "bye") {
		t.Errorf("screen after exit lacks the last output:\n%s", term.Screen())
	}
	if !strings.Contains(string(term.Output()), "bye\r") {
		t.Errorf("Output() = %q, want it to contain the program's bytes", term.Output())
	}
}

func TestQuitKeyExitCode(t *testing.T) {
	t.Parallel()
	term := startProbe(t)
	term.Send("q")
	code, err := term.Wait(timeout)
	if err != nil || code != 3 {
		t.Fatalf("Wait() = %d, %v; want 3, nil", code, err)
	}
	term.WaitFor("quit", timeout)
}

func TestWaitTimesOutWhileRunning(t *testing.T) {
	t.Parallel()
	term := startProbe(t)
	if code, err := term.Wait(50 * time.Millisecond); err == nil {
		t.Fatalf("Wait() on a running program = %d, nil; want an error", code)
	}
}

func TestWaitForFailsWithScreen(t *testing.T) {
	t.Parallel()
	term := startProbe(t)
	rec := &recorder{TB: t}
	term.tb = rec
	done := make(chan struct{})
	// Fatalf ends the calling goroutine, as testing.T's does.
	go func() {
		defer close(done)
		term.WaitFor("never shown", 100*time.Millisecond)
	}()
	<-done
	term.tb = t
	if !strings.Contains(rec.msg, "timed out") || !strings.Contains(rec.msg, "│line one") {
		t.Errorf("failure message lacks the reason or the screen:\n%s", rec.msg)
	}
}

// recorder is a testing.TB whose Fatalf records the message and ends the
// goroutine instead of failing the test.
type recorder struct {
	testing.TB
	msg string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestEnvironment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	term := Start(t, Options{Env: []string{"FOO=bar"}, Dir: dir}, "/bin/sh", "-c",
		`printf '%s|%s|%s|%s|%s\n' "$TERM" "$FOO" "$(pwd)" "${HOME:+home}" "${GOFLAGS:-clean}"`)
	if _, err := term.Wait(timeout); err != nil {
		t.Fatal(err)
	}
	want := "xterm-256color|bar|" + dir + "|home|clean"
	term.WaitFor(want, timeout)
}

func TestCleanupKillsProcessGroup(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	var term *Term
	t.Run("inner", func(t *testing.T) {
		// A shell that leaves a background child behind in its group,
		// one that ignores the SIGHUP the kernel sends the group when
		// the session leader dies, so only killing the group ends it.
		term = Start(t, Options{}, "/bin/sh", "-c",
			`(trap '' HUP; exec sleep 60) & echo $! > `+pidFile+`; echo started; wait`)
		term.WaitFor("started", timeout)
	})
	// The inner test's cleanup has run: the leader is reaped...
	select {
	case <-term.exited:
	default:
		t.Fatal("the program is still running after cleanup")
	}
	// ...and the background child is gone too.
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Sscan(string(b), &pid); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(timeout)
	for processExists(pid) {
		// Polling is the only way to see a process that is not our child
		// disappear; it is reaped by init shortly after the kill.
		if time.Now().After(deadline) {
			t.Fatalf("background child %d survived the cleanup", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestBubbleteaStartsAndQuits(t *testing.T) {
	t.Parallel()
	// The white background can only reach the program through the answer
	// to its OSC 11 query; without an answer termenv assumes black.
	term := Start(t, Options{Background: color.White}, teaBin)
	start := time.Now()
	term.WaitFor("hello dark=false", timeout)
	// termenv gives up on an unanswered query after 5 s; an answered one
	// is immediate.
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("first frame took %v; were the start-up queries answered?", d)
	}
	term.Type("ab")
	term.WaitFor(`last="b"`, timeout)
	if s := term.Screen(); strings.Contains(s, `"ab"`) {
		t.Errorf("Type delivered two runes as one key message:\n%s", s)
	}
	term.Key("up")
	term.WaitFor(`last="up"`, timeout)
	term.Type("q")
	if code, err := term.Wait(timeout); err != nil || code != 0 {
		t.Fatalf("Wait() = %d, %v; want 0, nil", code, err)
	}
}

func TestBubbleteaDarkByDefault(t *testing.T) {
	t.Parallel()
	term := Start(t, Options{}, teaBin)
	term.WaitFor("hello dark=true", timeout)
	term.Key("q")
	if code, err := term.Wait(timeout); err != nil || code != 0 {
		t.Fatalf("Wait() = %d, %v; want 0, nil", code, err)
	}
}

// processExists reports whether pid names a process that has not yet
// exited; a zombie waiting for init to reap it counts as gone.
func processExists(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// TestSyncTracksFramesAcrossReads checks that a synchronized update is
// followed whatever reads its sequences are split across.
func TestSyncTracksFramesAcrossReads(t *testing.T) {
	frame := "x\x1b[?2026h\x1b[1;1Hrow one\x1b[2;1Hrow two\x1b[?2026ly"
	for cut1 := 0; cut1 <= len(frame); cut1++ {
		for _, cut2 := range []int{cut1, (cut1 + len(frame)) / 2, len(frame)} {
			if cut2 < cut1 {
				continue
			}
			term := &Term{}
			var seen []bool
			for _, part := range []string{frame[:cut1], frame[cut1:cut2], frame[cut2:]} {
				term.trackSync([]byte(part))
				seen = append(seen, term.syncing)
			}
			if seen[2] {
				t.Fatalf("cut at %d and %d: still inside the frame after its end", cut1, cut2)
			}
			inside := cut1 >= strings.Index(frame, "\x1b[?2026h")+len(syncBegin) && cut1 < strings.Index(frame, "\x1b[?2026l")+len(syncEnd)
			if seen[0] != inside {
				t.Fatalf("cut at %d: syncing %v, want %v", cut1, seen[0], inside)
			}
		}
	}
}

// TestEmulatorShowsOutput feeds output with a split character and a resize
// to an emulator with no program behind it.
func TestEmulatorShowsOutput(t *testing.T) {
	e := NewEmulator(20, 3)
	defer e.Close()
	e.Write([]byte("\x1b[2J\x1b[Hhello \xe2\x9c"))
	e.Write([]byte("\x93\r\n\x1b[6n\x1b[31mworld\x1b[m")) // a query, answered into the void
	if got := e.Screen(); got != "hello ✓\nworld\n" {
		t.Fatalf("screen %q", got)
	}
	e.Resize(10, 2)
	if got := e.Screen(); strings.Count(got, "\n") != 1 {
		t.Fatalf("after the resize the screen has %d rows: %q", strings.Count(got, "\n")+1, got)
	}
}

func TestHangupSendsSIGHUP(t *testing.T) {
	t.Parallel()
	mark := filepath.Join(t.TempDir(), "hup")
	term := Start(t, Options{}, "/bin/sh", "-c", `trap 'echo hup > `+mark+`; exit 7' HUP; echo ready; sleep 60 & wait`)
	term.WaitFor("ready", timeout)
	term.Hangup()
	if code, err := term.Wait(timeout); err != nil || code != 7 {
		t.Fatalf("exit %d, %v; want 7 from the SIGHUP trap", code, err)
	}
	if b, err := os.ReadFile(mark); err != nil || string(b) != "hup\n" {
		t.Errorf("the trap wrote %q, %v", b, err)
	}
}
