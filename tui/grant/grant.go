// Package grant is the grant chooser: the session grants a call waiting for
// approval allows (g on the board), its tool for the rest of the session
// and, when the call names paths, its tool within their folders. The person
// picks one by its number, or with ↑↓ and Enter; Esc closes it without a
// grant. It never gives the grant itself: Update says which one the person
// chose, and the console gives it.
package grant

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// Chooser is the grant chooser. It takes the input line's place while it
// is open, since it is a question to the person.
//
// It guards its keys as the board guards y and n: several runes in one
// message (typing, a paste) never choose, and nothing is chosen while the
// approvals under focus have just changed.
type Chooser struct {
	// Keys are the chooser's keys.
	Keys   KeyMap
	styles *text.Styles

	open   bool
	call   *callview.Call
	grants []approval.Grant
	labels []string // clean
	sel    int
}

// Action is what a key in the chooser asks of the console: give Grant
// (described by Label), or only say Note.
type Action struct {
	Grant *approval.Grant
	Label string
	Note  string
}

// New returns a closed chooser with keys, drawing with styles.
func New(keys KeyMap, styles *text.Styles) Chooser { return Chooser{Keys: keys, styles: styles} }

// Shown reports whether the chooser is open.
func (g *Chooser) Shown() bool { return g.open }

// Call returns the call the chooser offers grants for, or nil.
func (g *Chooser) Call() *callview.Call { return g.call }

// Len returns how many grants the chooser offers.
func (g *Chooser) Len() int { return len(g.grants) }

// Show opens the chooser for c with the grants it allows.
func (g *Chooser) Show(c *callview.Call, grants []approval.Grant, labels []string) {
	g.open, g.call, g.grants, g.sel = true, c, grants, 0
	g.labels = make([]string, len(labels))
	for i, l := range labels {
		g.labels[i] = text.CleanLine(l)
	}
}

// Close closes the chooser.
func (g *Chooser) Close() { *g = Chooser{Keys: g.Keys, styles: g.styles} }

// Stale reports whether the call the chooser is for stopped waiting for
// the person (answered, released, or its turn stopped).
func (g *Chooser) Stale() bool { return g.open && (g.call == nil || g.call.Req == nil) }

// Update handles a key while the chooser is open. armed says whether the
// approval keys work now (the grace period has passed).
func (g *Chooser) Update(msg tea.KeyMsg, armed bool) Action {
	if msg.Paste || (msg.Type == tea.KeyRunes && len(msg.Runes) > 1) {
		return Action{Note: "typed text is ignored while choosing a grant: press a number, or esc"}
	}
	switch {
	case key.Matches(msg, g.Keys.Cancel):
		g.Close()
		return Action{Note: "no grant given"}
	case key.Matches(msg, g.Keys.Up):
		g.sel = max(0, g.sel-1)
	case key.Matches(msg, g.Keys.Down):
		g.sel = min(len(g.grants)-1, g.sel+1)
	case key.Matches(msg, g.Keys.Choose):
		return g.pick(g.sel, armed)
	case key.Matches(msg, g.Keys.Pick):
		n := int(msg.Runes[0] - '1')
		if n >= len(g.grants) {
			return Action{Note: fmt.Sprintf("there is no grant %d: choose 1–%d, or esc", n+1, len(g.grants))}
		}
		g.sel = n
		return g.pick(n, armed)
	default:
		return Action{Note: "choose a grant with its number or ↑↓ and enter; esc closes without one"}
	}
	return Action{}
}

// pick gives grant i, unless the approvals just changed or the call no
// longer waits.
func (g *Chooser) pick(i int, armed bool) Action {
	if !armed {
		return Action{Note: "ignored: the approvals under focus just changed; look, then choose again"}
	}
	if g.Stale() {
		g.Close()
		return Action{Note: "that call is no longer waiting for approval; no grant given"}
	}
	gr, label := g.grants[i], g.labels[i]
	g.Close()
	return Action{Grant: &gr, Label: label}
}

// Lines returns how many lines the chooser takes.
func (g *Chooser) Lines() int { return 1 + len(g.grants) }

// View draws the chooser in exactly lines() lines of at most width columns.
func (g *Chooser) View(width int) string {
	head := "  Grant for the session"
	if c := g.call; c != nil {
		head = fmt.Sprintf("%s Grant from %s", text.SymFocus, c.Title())
	}
	head += fmt.Sprintf(" · 1–%d or ↑↓ enter gives it · esc closes · it releases every waiting call it covers", len(g.grants))
	lines := []string{g.styles.Warn.Render(text.Cut(head, width))}
	for i, l := range g.labels {
		mark := "   "
		if i == g.sel {
			mark = " " + text.SymFocus + " "
		}
		what := l
		if g.grants[i].Within.IsEmpty() {
			what += " for this session"
		}
		line := fmt.Sprintf("%s%d  allow %s", mark, i+1, what)
		if i == g.sel {
			line = g.styles.Focused.Render(text.Pad(line, width))
		}
		lines = append(lines, text.Cut(line, width))
	}
	return strings.Join(lines, "\n")
}
