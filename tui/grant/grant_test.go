package grant

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// waiting returns a write that waits for approval, and the two grants it
// allows.
func waiting() (*callview.Call, []approval.Grant, []string) {
	c := &callview.Call{Index: 0, Name: "write_file", Req: &callview.Request{ID: 1}}
	grants := []approval.Grant{{Tool: "write_file"}, {Tool: "write_file", Within: tool.Paths("/w/docs")}}
	return c, grants, []string{"write_file", "write_file within docs/"}
}

func runes(s string, paste bool) tea.KeyMsg {
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s), Paste: paste}
}

// TestChooserNamesTheGrantPicked offers both grants, ignores typing and keys
// pressed while the approvals just changed, and names the grant picked
// without giving it.
func TestChooserNamesTheGrantPicked(t *testing.T) {
	c, grants, labels := waiting()
	g := New(DefaultKeyMap(), text.DefaultStyles())
	g.Show(c, grants, labels)
	view := g.View(120)
	for _, want := range []string{"Grant from #1 write_file", "1  allow write_file for this session", "2  allow write_file within docs/"} {
		if !strings.Contains(view, want) {
			t.Fatalf("the chooser lacks %q:\n%s", want, view)
		}
	}
	if g.Lines() != 3 {
		t.Fatalf("the chooser takes %d lines, want 3", g.Lines())
	}
	for _, msg := range []tea.KeyMsg{runes("21", false), runes("2", true)} {
		if act := g.Update(msg, true); act.Grant != nil || !strings.Contains(act.Note, "typed text is ignored") {
			t.Fatalf("%q chose %+v", msg.Runes, act)
		}
	}
	if act := g.Update(runes("2", false), false); act.Grant != nil || !strings.Contains(act.Note, "just changed") {
		t.Fatalf("a key in the grace period chose %+v", act)
	}
	if act := g.Update(runes("3", false), true); act.Grant != nil || !strings.Contains(act.Note, "there is no grant 3") {
		t.Fatalf("3 of 2 chose %+v", act)
	}
	act := g.Update(runes("2", false), true)
	if act.Grant == nil || act.Label != "write_file within docs/" || !act.Grant.Within.Overlaps(tool.Paths("/w/docs/a.md")) {
		t.Fatalf("2 chose %+v", act)
	}
	if g.Shown() {
		t.Fatal("the chooser stayed open after a grant was chosen")
	}
}

// TestChooserForACallThatNoLongerWaits gives nothing once the call's request
// is gone.
func TestChooserForACallThatNoLongerWaits(t *testing.T) {
	c, grants, labels := waiting()
	g := New(DefaultKeyMap(), text.DefaultStyles())
	g.Show(c, grants, labels)
	c.Req = nil
	if !g.Stale() {
		t.Fatal("the chooser does not know its call stopped waiting")
	}
	if act := g.Update(tea.KeyMsg{Type: tea.KeyEnter}, true); act.Grant != nil || !strings.Contains(act.Note, "no longer waiting") {
		t.Fatalf("enter chose %+v", act)
	}
}
