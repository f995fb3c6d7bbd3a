package detail

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/diffview"
	"github.com/agenttui/agenttui/tui/internal/text"
)

// TestMain draws everything without colour, so no test depends on the
// terminal it runs in.
func TestMain(m *testing.M) {
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

// edit returns a reply whose one call rewrites lines 20 to 80 of a 100-line
// file, with its preview published.
func edit() *callview.Reply {
	w := tool.Writes(tool.Paths("/w/big.txt"))
	r := callview.NewReply(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{
		{Index: 0, Name: "edit_file", Args: json.RawMessage(`{"path":"big.txt"}`), Touches: &w, WaitsFor: []int{}, Batch: 1},
	}})
	var old, next strings.Builder
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&old, "line %d\n", i)
		if i >= 20 && i <= 80 {
			fmt.Fprintf(&next, "line %d, rewritten\n", i)
			continue
		}
		fmt.Fprintf(&next, "line %d\n", i)
	}
	pv := tool.Preview{Kind: tool.PreviewFile, Path: "big.txt", Old: old.String(), New: next.String(), Added: 61, Removed: 61, Digest: "d1"}
	r.Apply(runtime.CallPreviewed{Turn: 1, Index: 0, Kind: string(tool.PreviewFile), Path: "big.txt", Summary: "+61 −61",
		Digest: "d1", Editable: true, Full: &pv})
	return r
}

// TestPaneQuotesWhatTheModelRead shows a finished call's result as the model
// read it, cleaned and behind the gutter, with its footprint and decision.
func TestPaneQuotesWhatTheModelRead(t *testing.T) {
	r := edit()
	r.Apply(runtime.CallDecision{Turn: 1, Index: 0, Decision: runtime.DecisionRun, By: "mode:auto", Reason: "auto mode runs every call"})
	r.Apply(runtime.CallFinished{Turn: 1, Index: 0, Name: "edit_file", Outcome: "success", Result: "Edited big.txt\x1b[2J", Started: true})
	p := NewPane(text.DefaultStyles())
	out := p.View(r.Get(0), r, "/w", 100, p.Need(r.Get(0), r, "/w", 100))
	for _, want := range []string{"── #1 edit_file", "batch 1 · writes big.txt · depends on nothing",
		"policy: run, by mode:auto: auto mode runs every call", "what the model read:", "│ Edited big.txt␛"} {
		if !strings.Contains(out, want) {
			t.Fatalf("the pane lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[2J") {
		t.Fatal("an escape in the result reached the pane")
	}
}

// TestDiffScreenScrollsAndHandsBackItsKeys scrolls a long diff a screen at a
// time and asks the console to close it on Esc.
func TestDiffScreenScrollsAndHandsBackItsKeys(t *testing.T) {
	r := edit()
	s := NewDiffScreen(DefaultKeyMap(), text.DefaultStyles())
	s.Show(r.Get(0))
	s.SetHeight(10)
	first := s.View(80, 10, diffview.Unified)
	if !strings.Contains(first, "── #1 edit_file · big.txt · +61 −61") || !strings.Contains(first, "lines 1–8 of") {
		t.Fatalf("the first screen:\n%s", first)
	}
	s.Update(tea.KeyMsg{Type: tea.KeyPgDown})
	if second := s.View(80, 10, diffview.Unified); !strings.Contains(second, "lines 8–15 of") {
		t.Fatalf("a page down did not move a screen:\n%s", second)
	}
	if act := s.Update(tea.KeyMsg{Type: tea.KeyEsc}); !act.Close {
		t.Fatalf("esc asked for %+v, want Close", act)
	}
}

// TestPaneSaysWhoseHookRewroteTheCall names the hook that rewrote a call's
// arguments as the person's own or the workspace's.
func TestPaneSaysWhoseHookRewroteTheCall(t *testing.T) {
	for workspace, want := range map[bool]string{
		false: `✎ rewritten by your hook ./hooks/pre.sh; the model sent command="rm -rf /"`,
		true:  `✎ rewritten by the workspace's hook ./hooks/pre.sh; the model sent command="rm -rf /"`,
	} {
		r := callview.NewReply(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{{
			Index: 0, Name: "run_shell", Args: json.RawMessage(`{"command":"ls"}`), Raw: `{"command":"rm -rf /"}`,
			WaitsFor: []int{}, Batch: 1, RewrittenBy: "hook:./hooks/pre.sh", RewrittenByWorkspace: workspace,
		}}})
		p := NewPane(text.DefaultStyles())
		if out := p.View(r.Get(0), r, "/w", 120, p.Need(r.Get(0), r, "/w", 120)); !strings.Contains(out, want) {
			t.Errorf("the pane lacks %q:\n%s", want, out)
		}
	}
}

// TestPaneSaysHowACommandEnded pins the outcome line of a shell command
// that failed: its exit status, the signal that killed it, or the time it
// ran out of, from its failure's code.
func TestPaneSaysHowACommandEnded(t *testing.T) {
	for _, tc := range []struct {
		name, kind, code, result string
		ms                       int64
	}{
		{"exit", "other", tool.ExitCode(1), "--- FAIL: TestPages\nexit status: 1", 1200},
		{"killed", "other", tool.SignalCode("SIGKILL"), "exit status: killed by signal killed", 300},
		{"timed_out", "timeout", tool.TimeoutCode(2 * time.Minute),
			"… timed out after 2m0s; the command and every process it started were killed\n", 120000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := tool.Writes(tool.Paths("/w"))
			r := callview.NewReply(runtime.ReplyReceived{Turn: 1, Calls: []runtime.PlannedCall{
				{Index: 0, Name: "run_shell", Args: json.RawMessage(`{"command":"go test ./..."}`), Touches: &w, WaitsFor: []int{}, Batch: 1},
			}})
			kind := tc.kind
			r.Apply(runtime.CallDecision{Turn: 1, Index: 0, Decision: runtime.DecisionRun, By: "mode:auto", Reason: "auto mode runs every call"})
			r.Apply(runtime.CallStarted{Turn: 1, Index: 0, Name: "run_shell", Attempt: 1})
			r.Apply(runtime.CallFinished{Turn: 1, Index: 0, Name: "run_shell", Outcome: "error", Kind: &kind, Code: tc.code,
				Result: tc.result, Started: true, Attempts: 1, DurationMS: tc.ms})
			p := NewPane(text.DefaultStyles())
			golden.RequireEqual(t, []byte(p.View(r.Get(0), r, "/w", 100, p.Need(r.Get(0), r, "/w", 100))))
		})
	}
}
