package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/internal/termtest"
)

// pilotSpeed plays the tests' autopilots fast: the demo's model and tools
// and the autopilot's typing and reading all take a twentieth of their
// time. The approval keys' grace period is not shortened, so the
// autopilot still waits it out as a person would.
const pilotSpeed = "20"

// TestDemoPlaysItself runs the built-in demo with --autopilot in a pty: it
// types the goal, approves the edit, the changelog and the test run, answers
// the question, and ends succeeded, with nobody pressing a key. Recorded
// meanwhile, the recording plays back to the same end.
func TestDemoPlaysItself(t *testing.T) {
	cast := filepath.Join(t.TempDir(), "demo.cast")
	term := startConsole(t, e2eCols, e2eRows, nil, "--autopilot", "--speed", pilotSpeed, "--record", cast)
	term.WaitFor("▶ autopilot", e2eStep)
	s := term.WaitForFunc("the demo to succeed", func(s string) bool {
		return strings.Contains(s, "✓ Succeeded") && strings.Contains(s, "autopilot: the scenario is played out")
	}, 6*e2eStep)
	for _, want := range []string{"Fixed the missing last page", `"pages_for_45_items_at_20": 3`,
		"answer › Keep zero pages for an empty list."} {
		if !strings.Contains(s, want) {
			t.Fatalf("the end of the demo lacks %q:\n%s", want, s)
		}
	}
	if code := quitConsole(t, term); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	h, events := readRecording(t, cast)
	played := termtest.NewEmulator(h.Width, h.Height)
	defer played.Close()
	for _, e := range events {
		if e.Code == "o" {
			played.Write([]byte(e.Data))
		}
	}
	if end := played.Screen(); !strings.Contains(end, "✓ Succeeded") || !strings.Contains(end, "autopilot: the scenario is played out") {
		t.Fatalf("the recording ends on:\n%s", end)
	}
}

// TestAutopilotHandsOverOnAKey presses a key while the autopilot types the
// demo's goal: the autopilot pauses, the key is the person's, and Ctrl+O,
// once the person has cleared what they typed, gives it the console back.
func TestAutopilotHandsOverOnAKey(t *testing.T) {
	term := startConsole(t, e2eCols, e2eRows, nil, "--autopilot", "--speed", "1")
	term.WaitFor("Goal › Cus", e2eStep)
	term.Key("X")
	s := term.WaitFor("⏸ autopilot paused · ctrl+o resumes", e2eStep)
	if !strings.Contains(s, "autopilot paused: the console is yours") {
		t.Fatalf("the pause is not said:\n%s", s)
	}
	typed := inputLine(t, s)
	if !strings.HasSuffix(typed, "X") || !strings.HasPrefix(typed, "Cus") {
		t.Fatalf("the input holds %q, want the autopilot's start and the person's X", typed)
	}
	// Still the person's: their next key goes where they send it, and
	// the autopilot does not take it back.
	term.Key("backspace")
	s = term.WaitForFunc("the X removed", func(s string) bool { return inputLine(t, s) == strings.TrimSuffix(typed, "X") }, e2eStep)
	if !strings.Contains(s, "⏸ autopilot paused") {
		t.Fatalf("the autopilot resumed by itself:\n%s", s)
	}
	term.Key("ctrl+o")
	term.WaitFor("autopilot resumed", e2eStep)
	// It types on from where it was.
	kept := strings.TrimSuffix(typed, "X")
	term.WaitForFunc("the autopilot typing again", func(s string) bool {
		in := inputLine(t, s)
		return len(in) > len(kept) && strings.HasPrefix(in, kept) && strings.HasPrefix(assetsGoal, in)
	}, e2eStep)
	if code := quitConsole(t, term); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

// assetsGoal is the built-in demo's goal, which its first step records.
const assetsGoal = "Customers say the last page of results is missing. Find and fix the bug."

// inputLine returns the text on the screen's input line, after its prompt.
func inputLine(t *testing.T, screen string) string {
	t.Helper()
	for _, row := range screenRows(screen) {
		if _, after, ok := strings.Cut(row, "Goal › "); ok {
			return strings.TrimSpace(after)
		}
	}
	t.Fatalf("no input line on the screen:\n%s", screen)
	return ""
}
