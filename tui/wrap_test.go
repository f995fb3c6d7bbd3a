package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/agenttui/agenttui/runtime"
)

// demoReply is the demo's reply that was wrapped twice at 80 columns
// ("…the README can" / "be" / "read meanwhile.").
const demoReply = "My edit was malformed. Re-reading pager.go before editing it; the README can be read meanwhile."

// TestTranscriptWrapsOnceGolden pins the demo's transcript at 80 and 120
// columns: its opening notes and a reply, each wrapped once to the width it
// is drawn at, and the command of the hint about a real model kept on one
// line.
func TestTranscriptWrapsOnceGolden(t *testing.T) {
	for _, width := range []int{80, 120} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			h := newHarness(t, Options{Demo: true, Model: "demo", Prefill: "Find and fix the bug."})
			h.update(tea.WindowSizeMsg{Width: width, Height: 40})
			h.startRun("Find and fix the bug.")
			h.feed(runtime.ReplyReceived{Turn: 1, Text: demoReply}, runtime.TurnEnded{Turn: 1})
			lines := strings.Split(h.m.transcript.View(width, 30, false), "\n")
			for len(lines) > 0 && lines[len(lines)-1] == "" {
				lines = lines[:len(lines)-1]
			}
			shown := strings.Join(lines, "\n")
			for _, l := range lines {
				if w := ansi.StringWidth(l); w > width {
					t.Fatalf("a line of %d columns at %d:\n%s", w, width, shown)
				}
			}
			mustContain(t, shown, "be read meanwhile.", "agenttui --model openai:")
			golden.RequireEqual(t, []byte(shown+"\n"))
		})
	}
}
