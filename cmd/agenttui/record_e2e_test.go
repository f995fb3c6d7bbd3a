package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/internal/asciicast"
	"github.com/agenttui/agenttui/internal/termtest"
)

// TestConsoleRecording records a console session that is resized and runs a
// scenario: the file is asciicast v2 with the terminal's sizes, its times
// never decrease, it holds exactly the bytes the console drew, and played
// through a terminal emulator it ends on the console's last screen.
func TestConsoleRecording(t *testing.T) {
	cast := filepath.Join(t.TempDir(), "session.cast")
	term := startConsole(t, e2eCols, e2eRows, nil, "--workspace", workspaceWithNotes(t),
		"--scenario", scenario(t, "succeeds.json"), "--record", cast)
	term.WaitFor("Goal ›", e2eStep)
	term.Resize(100, 30)
	term.WaitForFunc("the console redrawn at 100x30", func(s string) bool {
		rows := screenRows(s)
		return len(rows) == 30 && strings.Contains(rows[29], "idle")
	}, e2eStep)
	command(t, term, "read the notes")
	term.WaitFor("✓ Succeeded", e2eStep)
	if code := quitConsole(t, term); code != 0 {
		t.Fatalf("exit code %d", code)
	}

	h, events := readRecording(t, cast)
	if h.Width != e2eCols || h.Height != e2eRows || h.Env["TERM"] == "" {
		t.Fatalf("header %+v, want %dx%d and TERM", h, e2eCols, e2eRows)
	}
	played := termtest.NewEmulator(h.Width, h.Height)
	defer played.Close()
	var drawn bytes.Buffer
	resizes := 0
	for _, e := range events {
		switch e.Code {
		case "o":
			drawn.WriteString(e.Data)
			played.Write([]byte(e.Data))
		case "r":
			resizes++
			cols, rows, _ := asciicast.ParseSize(e.Data)
			if cols != 100 || rows != 30 {
				t.Errorf("resize to %s, want 100x30", e.Data)
			}
			played.Resize(cols, rows)
		}
	}
	if resizes != 1 {
		t.Errorf("%d resize events, want 1", resizes)
	}
	if last := events[len(events)-1].Time; last <= 0 {
		t.Errorf("the recording lasts %f s", last)
	}

	// What the terminal was sent while the console was on screen: from
	// entering the alternate screen to leaving it, which is not recorded.
	out := term.Output()
	start, end := bytes.Index(out, []byte("\x1b[?1049h")), bytes.LastIndex(out, []byte("\x1b[?2004l\x1b[?1006l\x1b[?1002l\x1b[?25h\x1b[?1049l"))
	if start < 0 || end < start {
		t.Fatalf("the console's output has no alternate screen: %q", out)
	}
	if !bytes.Equal(drawn.Bytes(), out[start:end]) {
		a, b := drawn.Bytes(), out[start:end]
		i := 0
		for i < len(a) && i < len(b) && a[i] == b[i] {
			i++
		}
		t.Fatalf("the recording holds %d bytes, not the %d the console drew; from byte %d the recording has %q, the terminal got %q",
			len(a), len(b), i, a[i:min(len(a), i+80)], b[i:min(len(b), i+80)])
	}
	// The console's last screen: a resize repaints the whole screen, and
	// every frame after it changes rows of that one.
	repaint := bytes.LastIndex(out[:end], []byte("\x1b[2J"))
	final := termtest.NewEmulator(100, 30)
	defer final.Close()
	final.Write(out[repaint:end])
	want := final.Screen()
	if !strings.Contains(want, "✓ Succeeded") {
		t.Fatalf("the last screen is not the session's end:\n%s", want)
	}
	if got := played.Screen(); got != want {
		t.Fatalf("the recording played back ends on:\n%s\nwant the console's last screen:\n%s", got, want)
	}
}

// TestRecordKeepsAnExistingFile refuses to record over a file.
func TestRecordKeepsAnExistingFile(t *testing.T) {
	cast := filepath.Join(t.TempDir(), "kept.cast")
	writeFile(t, cast, "a recording made earlier")
	term := startConsole(t, e2eCols, e2eRows, nil, "--workspace", t.TempDir(), "--record", cast)
	code, err := term.Wait(e2eStep)
	if err != nil || code != 2 {
		t.Fatalf("exit %d (%v), want 2", code, err)
	}
	if !strings.Contains(strings.ReplaceAll(term.Screen(), "\n", ""), "--record: "+cast+" exists; remove it or choose another name") {
		t.Fatalf("the console did not say why:\n%s", term.Screen())
	}
	if b, _ := os.ReadFile(cast); string(b) != "a recording made earlier" {
		t.Fatalf("the file was changed: %q", b)
	}
}

// readRecording reads the asciicast file at path, failing the test when it
// is not asciicast v2.
func readRecording(t *testing.T, path string) (asciicast.Header, []asciicast.Event) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, events, err := asciicast.Read(f)
	if err != nil {
		t.Fatalf("the recording is not asciicast v2: %v", err)
	}
	return h, events
}
