package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/runtime"
)

// sessionWith returns a console at 120×40 whose session holds n finished
// calls (ten per reply), with a live reply on the board.
func sessionWith(tb testing.TB, n int) Model {
	clock := &fakeClock{t: t0}
	m := New(Options{Bridge: NewBridge(clock.now), Now: clock.now, Workspace: ws, Model: "demo", Demo: true})
	m, _ = updateModel(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	m.start("goal")
	for turn := 1; turn <= n/10+1; turn++ {
		calls := make([]runtime.PlannedCall, 10)
		for i := range calls {
			calls[i] = pc(i, "read_file", fmt.Sprintf(`{"path":"src/file%d.go"}`, i), reads(fmt.Sprintf("src/file%d.go", i)), 1)
		}
		items := []any{runtime.ReplyReceived{Turn: turn, Text: fmt.Sprintf("Reply %d: reading ten files side by side.", turn), Calls: calls}}
		for i := range calls {
			items = append(items, decide(turn, i, "run", "mode:reads", "reads mode runs calls that only read"), started(turn, i, "read_file", t0))
		}
		if turn <= n/10 {
			for i := range calls {
				items = append(items, finished(turn, i, "read_file", "success", "", fmt.Sprintf("     1\tpackage src\n     2\t// file %d\n", i), 12))
			}
			items = append(items, runtime.TurnEnded{Turn: turn})
		}
		m, _ = updateModel(m, eventsMsg(items))
	}
	return m
}

func updateModel(m Model, msg tea.Msg) (Model, tea.Cmd) {
	nm, cmd := m.Update(msg)
	return nm.(Model), cmd
}

// BenchmarkView measures drawing the whole screen at 120×40 against the
// number of finished calls in the session; it should not grow.
func BenchmarkView(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			m := sessionWith(b, n)
			if got := m.View(); len(got) == 0 {
				b.Fatal("empty view")
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_ = m.View()
			}
		})
	}
}

// BenchmarkViewScrolled measures drawing with the transcript scrolled to
// the middle of the session.
func BenchmarkViewScrolled(b *testing.B) {
	for _, n := range []int{100, 10000} {
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			m := sessionWith(b, n)
			m.transcript.Scroll(-(n / 2))
			_ = m.View()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_ = m.View()
			}
		})
	}
}

// TestViewDoesNotGrowWithSession checks the transcript draws only what is in
// view: after the first frame, a frame looks at the same number of items
// whether the session has a hundred calls or ten thousand.
func TestViewDoesNotGrowWithSession(t *testing.T) {
	for _, n := range []int{100, 10000} {
		m := sessionWith(t, n)
		_ = m.View()
		drawn := m.transcript.Drawn()
		if drawn > 40 {
			t.Fatalf("with %d calls, %d transcript items were drawn for one 40-line screen", n, drawn)
		}
	}
}

// sessionOfTurns returns a console at 120×40 whose transcript holds n
// finished turns, each a Markdown reply and one call, with text typed in
// the input.
func sessionOfTurns(tb testing.TB, n int) Model {
	clock := &fakeClock{t: t0}
	m := New(Options{Bridge: NewBridge(clock.now), Now: clock.now, Workspace: ws, Model: "demo"})
	m, _ = updateModel(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	m.start("goal")
	items := []any{}
	for turn := 1; turn <= n; turn++ {
		items = append(items,
			runtime.ReplyReceived{Turn: turn, Text: fmt.Sprintf("Turn %d: reading `file%d.go` **first**, then:\n\n- editing it\n- testing it", turn, turn),
				Calls: []runtime.PlannedCall{pc(0, "read_file", fmt.Sprintf(`{"path":"file%d.go"}`, turn), reads("f.go"), 1)}},
			decide(turn, 0, "run", "mode:reads", "reads"), started(turn, 0, "read_file", t0),
			finished(turn, 0, "read_file", "success", "", "package f", 2), runtime.TurnEnded{Turn: turn})
	}
	m, _ = updateModel(m, eventsMsg(items))
	out := runtime.Succeeded("done", nil)
	m, _ = updateModel(m, eventsMsg{runtime.RunFinished{Outcome: out}, runDone{run: m.run, outcome: out}})
	m.input.SetValue("a prompt of a few words,\nover two lines")
	_ = m.View()
	return m
}

// BenchmarkKeystroke measures one key typed in the input, Update and View
// together, with a 2,000-turn transcript: a letter, then a backspace, so the
// text stays the same size.
func BenchmarkKeystroke(b *testing.B) {
	m := sessionOfTurns(b, 2000)
	keys := []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune{'x'}}, {Type: tea.KeyBackspace}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, _ = updateModel(m, keys[i%2])
		_ = m.View()
	}
}

// sessionWithTasks returns a console at 120×40 whose reply on the board
// runs four tasks side by side, each of which has finished 250 calls (25
// turns of ten), and one of which has a call waiting for the person.
func sessionWithTasks(tb testing.TB) Model {
	clock := &fakeClock{t: t0}
	m := New(Options{Bridge: NewBridge(clock.now), Now: clock.now, Workspace: ws, Model: "demo"})
	m, _ = updateModel(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	m.start("goal")
	calls := make([]runtime.PlannedCall, 4)
	for i := range calls {
		calls[i] = pc(i, "task", fmt.Sprintf(`{"description":"Survey part %d of the code","prompt":"p","agent":"explore"}`, i), independent(), 1)
	}
	items := []any{runtime.ReplyReceived{Turn: 1, Text: "Four tasks.", Calls: calls}}
	for i := range calls {
		items = append(items, decide(1, i, "run", "mode:reads", "reads"), started(1, i, "task", t0))
	}
	for i := range calls {
		id := runtime.TaskID(1, i)
		items = append(items, runtime.Tag(id, runtime.RunStarted{Input: "p"}))
		for turn := 1; turn <= 25; turn++ {
			tc := make([]runtime.PlannedCall, 10)
			for j := range tc {
				tc[j] = pc(j, "read_file", fmt.Sprintf(`{"path":"src/file%d.go"}`, j), reads(fmt.Sprintf("src/file%d.go", j)), 1)
			}
			items = append(items, runtime.Tag(id, runtime.TurnStarted{Turn: turn}),
				runtime.Tag(id, runtime.ReplyReceived{Turn: turn, Text: fmt.Sprintf("Task %d, turn %d.", i, turn), Calls: tc}))
			for j := range tc {
				items = append(items, runtime.Tag(id, decide(turn, j, "run", "mode:reads", "reads")),
					runtime.Tag(id, started(turn, j, "read_file", t0)),
					runtime.Tag(id, finished(turn, j, "read_file", "success", "", "package src\n", 3)))
			}
			items = append(items, runtime.Tag(id, runtime.TurnEnded{Turn: turn}))
		}
	}
	items = append(items, taskRequest(1, []string{runtime.TaskID(1, 2)}, 26, 0, "edit_file", apiPreview("sha256:x")))
	m, _ = updateModel(m, eventsMsg(items))
	return m
}

// BenchmarkViewTasks measures drawing the whole screen at 120×40 while four
// tasks of 250 finished calls each run: the session's board with their
// rows, and one task's own board and transcript.
func BenchmarkViewTasks(b *testing.B) {
	for _, nested := range []bool{false, true} {
		b.Run(fmt.Sprintf("nested=%v", nested), func(b *testing.B) {
			m := sessionWithTasks(b)
			if nested {
				m.openTask(m.board.Reply().Get(2).Task)
				m.layout()
			}
			if got := m.View(); !strings.Contains(got, "Survey part 2 of the code") {
				b.Fatalf("the tasks are not on screen:\n%s", got)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_ = m.View()
			}
		})
	}
}
