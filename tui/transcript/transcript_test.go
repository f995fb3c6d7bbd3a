package transcript

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// TestMain draws everything without colour, so no test depends on the
// terminal it runs in.
func TestMain(m *testing.M) {
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

func TestPlainOutcome(t *testing.T) {
	got := PlainOutcome(runtime.Succeeded("Fixed\x1b[31m it", json.RawMessage(`{"k":"v"}`)))
	want := "✓ Succeeded\n  Fixed␛ it\n  Extracted data:\n  │ {\n  │   \"k\": \"v\"\n  │ }\n"
	if got != want {
		t.Fatalf("PlainOutcome =\n%q\nwant\n%q", got, want)
	}
	got = PlainOutcome(runtime.Refused("Which one?"))
	if !strings.Contains(got, "Which one?") {
		t.Fatalf("refused outcome: %q", got)
	}
}

// TestOnlyTheLinesInViewAreDrawn fills the transcript with many items and
// checks that a frame draws only those in view, following the end, and that
// scrolling up leaves the follow mark.
func TestOnlyTheLinesInViewAreDrawn(t *testing.T) {
	tr := New(DefaultKeyMap(), text.DefaultStyles())
	for i := range 5000 {
		tr.Add(Note{Text: fmt.Sprintf("note %d", i)})
	}
	tr.SetSize(80, 10)
	out := tr.View(80, 10, false)
	if !strings.Contains(out, "note 4999") || strings.Contains(out, "note 4989") {
		t.Fatalf("the view does not follow the end:\n%s", out)
	}
	if n := tr.Drawn(); n > 10 {
		t.Fatalf("%d items were drawn for a 10-line view", n)
	}
	tr.Scroll(-20)
	out = tr.View(80, 10, true)
	if !strings.Contains(out, "note 4970") || !strings.Contains(out, "↓ more below · end follows the output") {
		t.Fatalf("scrolled up 20 lines:\n%s", out)
	}
	if n := tr.Drawn(); n > 40 {
		t.Fatalf("scrolling drew %d items", n)
	}
}
