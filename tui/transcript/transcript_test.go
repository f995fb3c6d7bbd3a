package transcript

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/agenttui/agenttui/runtime"
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
