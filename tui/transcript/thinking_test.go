package transcript

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/tui/internal/eventtest"
	"github.com/agenttui/agenttui/tui/internal/text"
)

func TestNewThinking(t *testing.T) {
	for _, tc := range []struct {
		name       string
		parts      []model.Reasoning
		streamed   string
		turnTokens int
		took       time.Duration
		head       string // "" when there is no item
		body       string
	}{
		{name: "parts", parts: []model.Reasoning{eventtest.Thought("\nFirst.\n", 1000), eventtest.Thought("Second.", 400)},
			streamed: "what streamed", took: 6 * time.Second, head: "thinking · 1.4k tokens · 6 s", body: "First.\n\nSecond."},
		{name: "the turn's tokens", parts: []model.Reasoning{eventtest.Thought("Thought.", 0)}, turnTokens: 950, took: 59400 * time.Millisecond,
			head: "thinking · 950 tokens · 59 s", body: "Thought."},
		{name: "streamed only", streamed: "\n\nStreamed.\n", took: 300 * time.Millisecond, head: "thinking · <1 s", body: "Streamed."},
		{name: "long", streamed: "x", took: 125 * time.Second, head: "thinking · 2m05s", body: "x"},
		{name: "payload only", parts: []model.Reasoning{eventtest.HiddenThought()}, head: "thinking · reasoning hidden by the provider"},
		{name: "tokens only", turnTokens: 512, took: 2 * time.Second, head: "thinking · reasoning hidden by the provider · 512 tokens · 2 s"},
		{name: "a text part beside a payload", parts: []model.Reasoning{eventtest.HiddenThought(), eventtest.Thought("Readable.", 0)},
			head: "thinking", body: "Readable."},
		{name: "none", streamed: " \n "},
		{name: "a compatible server's text", parts: []model.Reasoning{{Kind: model.ReasoningText, Text: "Plain reasoning."}},
			head: "thinking", body: "Plain reasoning."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			th, ok := NewThinking(tc.parts, tc.streamed, tc.turnTokens, tc.took)
			if ok != (tc.head != "") {
				t.Fatalf("NewThinking reported %v", ok)
			}
			if !ok {
				return
			}
			if th.Head() != tc.head || th.text != tc.body {
				t.Fatalf("head %q, body %q; want %q, %q", th.Head(), th.text, tc.head, tc.body)
			}
			if th.Expandable() != (tc.body != "") {
				t.Fatalf("expandable %v with body %q", th.Expandable(), th.text)
			}
		})
	}
}

// TestThinkingGolden pins the thinking items without colour: streaming
// above the reply's text, folded, unfolded, hidden by the provider, and
// discarded with a failed attempt.
func TestThinkingGolden(t *testing.T) {
	thought := "The pager loses its last page.\n\nProbably integer division: 45 items at 20 a page give 2 pages, not 3, so round up."
	folded := func() Thinking {
		th, _ := NewThinking([]model.Reasoning{eventtest.Thought(thought, 1400)}, "", 0, 6*time.Second)
		return th
	}
	scenes := map[string]func(tr *Model){
		"streaming": func(tr *Model) {
			l := &Live{Turn: 1, Frame: "⠋"}
			l.Thinking.WriteString("\n" + thought[:60])
			l.Text.WriteString("Reading pager.go.")
			tr.SetLive(l)
		},
		"folded": func(tr *Model) { tr.Add(folded()) },
		"expanded": func(tr *Model) {
			th := folded()
			*th.open = true
			tr.Add(th)
		},
		"hidden": func(tr *Model) {
			th, _ := NewThinking([]model.Reasoning{eventtest.HiddenThought()}, "", 700, 3*time.Second)
			tr.Add(th)
		},
		"discarded": func(tr *Model) {
			tr.Add(DiscardedThinking("A first thought", 3*time.Second))
			tr.Add(Discarded{Text: "Half a re"})
		},
	}
	for name, set := range scenes {
		t.Run(name, func(t *testing.T) {
			tr := New(DefaultKeyMap(), text.DefaultStyles())
			tr.Add(User{Label: "goal", Text: "fix the pager"})
			set(&tr)
			tr.Add(Note{Text: "the end"})
			tr.SetSize(60, 12)
			golden.RequireEqual(t, []byte(tr.View(60, 12, false)+"\n"))
		})
	}
}

// The streaming thinking cleans and wraps each finished line once: a frame
// draws again only the line still growing, and what it draws is what
// drawing the whole text would give.
func TestStreamedThinkingDrawsFinishedLinesOnce(t *testing.T) {
	st := text.DefaultStyles()
	var s streamedThinking
	raw := "\n\nfirst line\nsecond \x1b[31mline, long enough to wrap at this width\nthe tail"
	got := s.draw(nil, st, raw, 30)
	if s.done != strings.LastIndex(strings.TrimLeft(raw, "\n"), "\n")+1 {
		t.Fatalf("done = %d: the finished lines were not kept", s.done)
	}
	kept := len(s.lines)
	want := thinkingLines(st, text.Clean(strings.TrimLeft(raw, "\n")), 30)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("drawn in pieces:\n%s\nwhole:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	got = s.draw(nil, st, raw+" grows", 30)
	if len(s.lines) != kept || !strings.HasSuffix(got[len(got)-1], "the tail grows") {
		t.Fatalf("a growing tail redrew the finished lines (%d kept, %d now) or was not drawn: %q", kept, len(s.lines), got)
	}
	got = s.draw(nil, st, raw+" grows\nand a new line", 30)
	if len(s.lines) != kept+1 || !strings.HasSuffix(got[len(got)-1], "and a new line") {
		t.Fatalf("a finished tail was not kept: %d lines kept, %q", len(s.lines), got)
	}
	if got = s.draw(nil, st, raw, 50); s.width != 50 || strings.Join(got, "\n") != strings.Join(thinkingLines(st, text.Clean(strings.TrimLeft(raw, "\n")), 50), "\n") {
		t.Fatalf("a new width did not draw anew: %q", got)
	}
	for _, l := range got {
		if strings.ContainsAny(l, "\x1b") {
			t.Fatalf("an escape sequence reached a line: %q", l)
		}
	}
}

// BenchmarkStreamingThinking measures a frame of a thinking that has
// streamed lines lines, with a few words more each frame: it should not
// grow with the thinking.
func BenchmarkStreamingThinking(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			tr := New(DefaultKeyMap(), text.DefaultStyles())
			tr.SetSize(120, 30)
			var l *Live
			restart := func() {
				// The thinking stays about n lines long: a new one
				// every thousand frames.
				l = &Live{Turn: 1, Frame: "⠋"}
				for range n {
					l.Thinking.WriteString("A line of thinking about the pager and its last page, long enough to wrap once.\n")
				}
				tr.SetLive(l)
				_ = tr.View(120, 30, false)
			}
			restart()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if i%1000 == 999 {
					b.StopTimer()
					restart()
					b.StartTimer()
				}
				// A line ends every tenth piece, as a model's do.
				piece := "more words "
				if i%10 == 9 {
					piece = "the end of a line.\n"
				}
				l.Thinking.WriteString(piece)
				_ = tr.View(120, 30, false)
			}
		})
	}
}
