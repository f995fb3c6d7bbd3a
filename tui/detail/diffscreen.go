package detail

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/diffview"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// DiffScreen shows the change of one call full screen, to scroll through a
// diff too long for the detail pane (f on the board). It takes the place of
// the transcript, the board and the detail pane while it is open. Its lines
// are drawn as they come into view, so scrolling a long diff costs the same
// as a short one.
type DiffScreen struct {
	// Keys are the screen's keys.
	Keys   KeyMap
	styles *text.Styles

	open   bool
	call   *callview.Call
	offset int
	height int // the height last drawn, which scrolling works in
	cache  *diffScreenCache
}

// diffScreenCache keeps the laid-out diff until the change, the width or the
// layout changes; it sits behind a pointer because View works on a copy of
// the console's model.
type diffScreenCache struct {
	change *callview.Change
	width  int
	layout diffview.Layout
	view   *diffview.View
}

// NewDiffScreen returns a closed screen with keys, drawing with styles.
func NewDiffScreen(keys KeyMap, styles *text.Styles) DiffScreen {
	return DiffScreen{Keys: keys, styles: styles, cache: &diffScreenCache{}}
}

// Shown reports whether the screen is open.
func (s *DiffScreen) Shown() bool { return s.open }

// Call returns the call whose change the screen shows, or nil.
func (s *DiffScreen) Call() *callview.Call { return s.call }

// SetHeight tells the screen the height it is drawn at, which scrolling
// works in.
func (s *DiffScreen) SetHeight(h int) { s.height = h }

// Show opens the screen on c's change.
func (s *DiffScreen) Show(c *callview.Call) {
	s.open, s.call, s.offset = true, c, 0
}

// Close closes the screen.
func (s *DiffScreen) Close() { s.open, s.call = false, nil }

// Action is what a key on the screen asks of the console.
type Action struct {
	// Close closes the screen; ToggleLayout switches between unified and
	// side by side.
	Close, ToggleLayout bool
}

// Update handles a key while the screen is open.
func (s *DiffScreen) Update(msg tea.KeyMsg) Action {
	page := max(1, s.height-3)
	switch {
	case key.Matches(msg, s.Keys.Close):
		return Action{Close: true}
	case key.Matches(msg, s.Keys.Layout):
		return Action{ToggleLayout: true}
	case key.Matches(msg, s.Keys.Up):
		s.scroll(-1)
	case key.Matches(msg, s.Keys.Down):
		s.scroll(1)
	case key.Matches(msg, s.Keys.PageUp):
		s.scroll(-page)
	case key.Matches(msg, s.Keys.PageDown):
		s.scroll(page)
	case key.Matches(msg, s.Keys.Top):
		s.offset = 0
	case key.Matches(msg, s.Keys.Bottom):
		s.offset = 1 << 30
	}
	if v := s.cache.view; v != nil {
		s.offset = min(s.offset, max(0, v.Len()-(s.height-2)))
	}
	return Action{}
}

// scroll moves the view by n lines; View keeps it within the diff.
func (s *DiffScreen) scroll(n int) { s.offset = max(0, s.offset+n) }

// view returns the laid-out diff of the call's change at width.
func (s *DiffScreen) view(width int, layout diffview.Layout) *diffview.View {
	ch := s.call.Change
	k := s.cache
	if k.view != nil && k.change == ch && k.width == width && k.layout == layout {
		return k.view
	}
	d := ch.TextDiff()
	if d == nil {
		return nil
	}
	*k = diffScreenCache{change: ch, width: width, layout: layout, view: d.Layout(width, layout, text.DiffStyle())}
	return k.view
}

// View draws the screen in exactly height lines.
func (s *DiffScreen) View(width, height int, layout diffview.Layout) string {
	c := s.call
	if c == nil || height < 3 {
		return text.JoinLines(nil, height)
	}
	v := s.view(width, layout)
	title := fmt.Sprintf("── %s · %s ", c.Title(), c.ArgsText())
	if v == nil {
		lines := []string{s.styles.Title.Render(text.Cut(title, width)), s.styles.Dim.Render(text.Cut("  this call has no diff to show any more", width))}
		return text.JoinLines(lines, height)
	}
	body := height - 2
	s.offset = min(s.offset, max(0, v.Len()-body))
	end := min(v.Len(), s.offset+body)
	title += fmt.Sprintf("· %s · lines %d–%d of %d ", layout, s.offset+1, end, v.Len())
	lines := []string{s.styles.Title.Render(text.Cut(title, width))}
	lines = append(lines, v.Lines(s.offset, end)...)
	for len(lines) < height-1 {
		lines = append(lines, "")
	}
	hint := "↑↓ pgup pgdn home end scroll · v " + otherLayout(layout) + " · esc closes"
	if c.Req != nil {
		hint += " · y approve · n skip"
		if c.Change.Editable {
			hint += " · e edit"
		}
	}
	lines = append(lines, s.styles.Dim.Render(text.Cut(hint, width)))
	return text.JoinLines(lines, height)
}
