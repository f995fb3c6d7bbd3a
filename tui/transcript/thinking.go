package transcript

import (
	"fmt"
	"strings"
	"time"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// SymThinking marks the model's thinking, streaming or folded.
const SymThinking = "✻"

// thinkingGutter is drawn before every line of thinking text, so the
// model's reasoning can never pass for its reply or for the console's own
// lines.
const thinkingGutter = "    " + text.SymQuote

// Thinking is what the model reasoned before a reply. It is drawn folded to
// one line, "✻ thinking · 1.4k tokens · 6 s", which the transcript's
// Thinking key (t) unfolds to show the text and folds again. When the
// provider sent only an opaque payload, there is nothing to read and the
// line says so.
type Thinking struct {
	// text is the readable reasoning, clean and trimmed; empty when the
	// provider hid it.
	text string
	// tokens is what the reasoning took, zero when the provider did not
	// say; took is how long it streamed, zero when not known (a session
	// read from its journal).
	tokens int
	took   time.Duration
	// hidden says the reasoning came as a payload only; discarded says
	// it was streamed by an attempt that failed and was made again.
	hidden, discarded bool
	// open is shared by every copy of the item, so toggling it reaches the
	// one the transcript holds.
	open *bool
}

// NewThinking returns the thinking of a reply, and false when there is none
// to show. The text is the readable text of parts, the reply's reasoning,
// else what streamed; the tokens are the parts' own, else turnTokens (the
// turn's reasoning tokens, zero when not known); took is how long the
// thinking took, zero when not known. Reasoning that came only as a payload,
// or that the usage counts but nobody sent, is hidden by the provider.
func NewThinking(parts []model.Reasoning, streamed string, turnTokens int, took time.Duration) (Thinking, bool) {
	var texts []string
	tokens, payload := 0, false
	for _, p := range parts {
		if s := strings.TrimSpace(p.Text); s != "" {
			texts = append(texts, s)
		}
		tokens += p.Tokens
		payload = payload || p.Hidden()
	}
	body := strings.Join(texts, "\n\n")
	if body == "" {
		body = strings.TrimSpace(streamed)
	}
	if tokens == 0 {
		tokens = turnTokens
	}
	th := Thinking{text: cleanThinking(body), tokens: tokens, took: took, open: new(bool)}
	th.hidden = th.text == "" && (payload || tokens > 0)
	return th, th.text != "" || th.hidden
}

// DiscardedThinking returns the thinking a failed attempt streamed before it
// failed, took after it began: the model never reads it, and the line says
// so, but the person may still unfold it.
func DiscardedThinking(streamed string, took time.Duration) Thinking {
	return Thinking{text: cleanThinking(streamed), took: took, discarded: true, open: new(bool)}
}

// cleanThinking makes raw thinking safe to draw, without the blank lines
// models often put around it.
func cleanThinking(raw string) string {
	return strings.Trim(text.Clean(strings.TrimSpace(raw)), "\n")
}

// Expandable reports whether the item has text to unfold.
func (th Thinking) Expandable() bool { return th.text != "" }

// Head returns the item's one line, without its symbol or styles:
// "thinking · 1.4k tokens · 6 s".
func (th Thinking) Head() string {
	head := "thinking"
	if th.hidden {
		head += " · reasoning hidden by the provider"
	}
	if th.tokens > 0 {
		head += " · " + text.Count(th.tokens) + " tokens"
	}
	if th.took > 0 {
		head += " · " + thinkingTook(th.took)
	}
	if th.discarded {
		head += " · discarded with its attempt"
	}
	return head
}

func (th Thinking) lines(width int, st *text.Styles) []string {
	var first string
	if th.discarded {
		first = "  " + st.Dim.Render(text.SymErr) + " " + st.Discarded.Render(text.Cut(th.Head(), width-4))
	} else {
		first = st.Dim.Render(text.Cut("  "+SymThinking+" "+th.Head(), width))
	}
	if !*th.open || th.text == "" {
		return []string{first}
	}
	return append([]string{first}, thinkingLines(st, th.text, width)...)
}

// thinkingLines draws clean thinking text dimmed, wrapped to width behind
// its gutter.
func thinkingLines(st *text.Styles, body string, width int) []string {
	lines := text.Indent(body, thinkingGutter, width)
	for i, l := range lines {
		lines[i] = "    " + st.Dim.Render(strings.TrimPrefix(l, "    "))
	}
	return lines
}

// thinkingTook words how long the model thought: "<1 s", "6 s", "2m05s".
func thinkingTook(d time.Duration) string {
	switch {
	case d < time.Second:
		return "<1 s"
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Round(time.Second)/time.Second))
	}
	return text.Since(d)
}

// streamedThinking is the thinking of the reply streaming in, drawn at a
// width and kept between frames: the lines the model has finished are
// cleaned and wrapped once, and only the line still growing is drawn again,
// so a long thinking costs a frame no more than a short one.
type streamedThinking struct {
	width int
	// done is how many bytes of the raw text lines holds.
	done  int
	lines []string
}

// draw appends the lines of raw, the thinking so far, at width to dst.
func (s *streamedThinking) draw(dst []string, st *text.Styles, raw string, width int) []string {
	// Blank lines before the first word are not drawn; the text only
	// grows, so what is left of it keeps its offsets.
	raw = strings.TrimLeft(raw, "\n")
	if s.width != width || len(raw) < s.done {
		*s = streamedThinking{width: width}
	}
	if i := strings.LastIndexByte(raw, '\n'); i >= s.done {
		// Pieces cut at a newline clean alone as they would together: a
		// newline is never inside a character, and a control sequence
		// cut there only leaves its visible placeholder.
		s.lines = append(s.lines, thinkingLines(st, text.Clean(raw[s.done:i]), width)...)
		s.done = i + 1
	}
	dst = append(dst, s.lines...)
	if tail := raw[s.done:]; tail != "" {
		dst = append(dst, thinkingLines(st, text.Clean(tail), width)...)
	}
	return dst
}

// thinkingTarget returns the index of the thinking item t's Thinking key
// acts on: the last one with text in view, else the nearest above the view;
// -1 when there is none.
func (t *Model) thinkingTarget() int {
	_, last := t.inView()
	for i := min(last, len(t.items)-1); i >= 0; i-- {
		if th, ok := t.items[i].it.(Thinking); ok && th.Expandable() {
			return i
		}
	}
	return -1
}

// ToggleThinking unfolds the thinking nearest the bottom of the view, or
// folds it when it is unfolded. Unfolding brings the text into view: the
// whole item when it fits, else from its first line at the top; the rest of
// the view stays where it was. The action's note says when there is no
// thinking to show.
func (t *Model) ToggleThinking() Action {
	i := t.thinkingTarget()
	if i < 0 {
		if t.hidden > 0 {
			return Action{Note: "the provider hid the model's reasoning: there is no thinking to show"}
		}
		return Action{Note: "no thinking to show: when the model thinks, its thinking appears above its reply"}
	}
	th := t.items[i].it.(Thinking)
	w, h := t.width, t.height
	if w <= 0 || h <= 0 {
		// Not drawn yet: there is no place on screen to keep.
		*th.open = !*th.open
		t.items[i].width = -1
		return Action{}
	}
	// Where the view stands before the item changes size.
	a := t.top
	if t.follow {
		a = t.bottom(w, h)
	}
	if first, _ := t.inView(); i < first {
		a = anchor{item: i}
	}
	if a.item == i {
		a.line = 0
	}
	*th.open = !*th.open
	t.items[i].width = -1
	t.top, t.follow = a, false
	if *th.open {
		// Lines from the top of the view to the item's first line, and
		// to its last: scroll down by what overflows the view (less the
		// line that says there is more below), but never past the item's
		// first line.
		head := -a.line
		for j := a.item; j < i; j++ {
			head += len(t.itemLines(j, w))
		}
		if over := head + len(t.itemLines(i, w)) - (h - 1); over > 0 {
			t.Scroll(min(over, head))
			return Action{}
		}
	}
	t.settle()
	return Action{}
}

// inView returns the first and last item with a line in view.
func (t *Model) inView() (first, last int) {
	w, h := t.width, t.height
	if w <= 0 || h <= 0 || t.count() == 0 {
		return t.count(), t.count() - 1
	}
	a := t.top
	if t.follow {
		a = t.bottom(w, h)
	}
	a.item = min(a.item, t.count()-1)
	seen := 0
	last = a.item
	for i := a.item; i < t.count() && seen < h; i++ {
		n := len(t.itemLines(i, w))
		if i == a.item {
			n -= min(a.line, n-1)
		}
		seen += n
		last = i
	}
	return a.item, last
}
