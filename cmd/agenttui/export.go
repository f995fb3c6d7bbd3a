package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/internal/txtar"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/journal"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// exportLeftShown is how many left-out paths the report names one by one.
const exportLeftShown = 12

// runExport is "agenttui sessions export ID [--out FILE] [--workspace-from
// DIR]": it turns a journaled session into a scenario that plays it again,
// the person included, and with --workspace-from packs the folder the
// session started from as the scenario's workspace archive, beside it.
func runExport(args []string, stdout, stderr io.Writer) (int, error) {
	const command = "agenttui sessions export"
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var out, from string
	fs.StringVar(&out, "out", "", "write the scenario to FILE, which must not exist (default: standard output)")
	fs.StringVar(&from, "workspace-from", "", "pack the folder DIR, in the state the session started from, as the scenario's workspace, "+
		"written beside FILE as NAME.txtar")
	var ids []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprintf(stdout, "Usage: %s ID [--out FILE] [--workspace-from DIR]\n\n"+
					"Turns a journaled session into a scenario file that plays it again: each reply with its text, its calls\n"+
					"with their exact arguments and the model's timing, and the person's inputs and decisions, which\n"+
					"agenttui --scenario FILE --autopilot plays.\n\nFlags:\n", command)
				fs.SetOutput(stdout)
				fs.PrintDefaults()
				return 0, flag.ErrHelp
			}
			return 2, usageError{flagError(err, command)}
		}
		if rest = fs.Args(); len(rest) == 0 {
			break
		}
		ids = append(ids, rest[0])
		rest = rest[1:]
	}
	switch {
	case len(ids) != 1:
		return 2, usagef("%s takes one session id (agenttui sessions lists them), not %d", command, len(ids))
	case from != "" && out == "":
		return 2, usagef("--workspace-from needs --out FILE: the workspace archive is written beside the scenario file")
	}
	dir, err := journal.Dir()
	if err != nil {
		return 1, err
	}
	path, err := journal.Find(dir, ids[0])
	if err != nil {
		return 2, usageError{err.Error()}
	}
	rp, err := journal.Load(path)
	if err != nil {
		return 2, usageError{err.Error()}
	}
	ex := exportScenario(rp)
	if out != "" {
		// The scenario's name is the model's in the header: the file's
		// name reads better there than the session's id.
		ex.sc.Name = strings.TrimSuffix(filepath.Base(out), filepath.Ext(out))
	}
	if len(ex.sc.Steps) == 0 {
		return 2, usagef("session %s has no model reply to play, so there is nothing to export", rp.Header.Session)
	}

	var archive *txtar.Archive
	var packed txtar.Report
	archivePath := ""
	if from != "" {
		if archive, packed, err = txtar.Pack(from, txtar.PackOptions{}); err != nil {
			return 2, usagef("--workspace-from %s: %v", from, unwrapPathError(err))
		}
		archivePath = strings.TrimSuffix(out, filepath.Ext(out)) + ".txtar"
		ex.sc.Workspace = filepath.Base(archivePath)
		archive.Comment = []byte(fmt.Sprintf("The workspace of scenario %s: the folder %s, packed by agenttui sessions export.\n",
			filepath.Base(out), from))
	}
	data, err := ex.sc.Encode()
	if err != nil {
		return 1, err
	}
	// What is written must read back as a scenario, or nobody can play it.
	if _, err := model.ParseScenario(data); err != nil {
		return 1, fmt.Errorf("session %s does not make a valid scenario: %v", rp.Header.Session, err)
	}
	if out == "" {
		_, err := stdout.Write(data)
		ex.report(stderr, "standard output", rp)
		return 0, err
	}
	if archive != nil {
		if err := createNew(archivePath, txtar.Format(archive)); err != nil {
			return 2, err
		}
	}
	if err := createNew(out, data); err != nil {
		if archive != nil {
			os.Remove(archivePath)
		}
		return 2, err
	}
	ex.report(stderr, out, rp)
	if archive != nil {
		reportPack(stderr, archivePath, archive, packed)
	}
	fmt.Fprintf(stderr, "agenttui: play it with: agenttui --scenario %s --autopilot%s\n", out, ex.playFlags())
	return 0, nil
}

// createNew writes a file that must not exist yet: an export never
// overwrites a scenario or an archive made earlier.
func createNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return usagef("%s exists; remove it or choose another name with --out", path)
	}
	if err != nil {
		return usageError{err.Error()}
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}

// export is a session made into a scenario, with what the person should
// know about it.
type export struct {
	sc *model.Scenario
	// mode is the approval mode of the session's first run; modes lists
	// every mode its runs had, in order.
	mode  string
	modes []string
	// inputs, approvals, skips and grants count what the scenario
	// carries of the person.
	inputs, approvals, skips, grants int
	// notes are what the scenario could not carry as it happened.
	notes []string
}

// exportScenario turns a session's journal into a scenario: a step for
// each of the model's replies, with the input the person sent before it,
// its text, its calls with their exact argument text, and how long the model
// took; and each call's decision, when the person made one.
func exportScenario(rp *journal.Replay) *export {
	ex := &export{sc: &model.Scenario{
		Name:        "session-" + rp.Header.Session,
		Description: "Session " + rp.Header.Session + ": " + journal.FirstLine(rp.Header.Goal),
	}}
	policy := approval.NewPolicy(approval.ModeReads, nil)
	policy.SetWorkspace(rp.Header.Workspace)
	turnStart := map[int]runtime.Time{}
	replied := map[int]runtime.Time{}
	stepOf := map[int]int{}
	planned := map[callRef]runtime.PlannedCall{}
	// released are the calls each grant released as it was given, by
	// turn and label: the person gave it from one of them.
	released := map[grantKey][]int{}
	var grantOrder []grantKey
	input := ""
	for _, e := range rp.Events {
		switch ev := e.(type) {
		case runtime.RunStarted:
			if len(ex.modes) == 0 || ex.modes[len(ex.modes)-1] != ev.Mode {
				ex.modes = append(ex.modes, ev.Mode)
			}
			if ev.Resumed {
				continue
			}
			if input != "" {
				ex.note("the input %q got no reply from the model, so the scenario keeps only the input after it", short(journal.FirstLine(input), 40))
			}
			input = ev.Input
		case runtime.TurnStarted:
			turnStart[ev.Turn] = ev.At
		case runtime.UsageReported:
			replied[ev.Turn] = ev.At
		case runtime.ReplyReceived:
			st := model.Step{Input: strings.TrimSpace(input), Text: ev.Text}
			if st.Input != "" {
				ex.inputs++
			}
			input = ""
			if s, r := turnStart[ev.Turn], replied[ev.Turn]; !s.IsZero() && r.After(s.Time) {
				st.DelayMS = int(r.Sub(s.Time).Milliseconds())
			}
			for _, pc := range ev.Calls {
				planned[callRef{ev.Turn, pc.Index}] = pc
				st.Calls = append(st.Calls, scriptedCall(pc.Name, pc.Args, pc.Raw))
			}
			if c := ev.Cut; c != nil {
				raw := c.Raw
				st.Cut = &model.ScriptedCall{Name: c.Name, RawArgs: &raw}
			}
			if st.Text == "" && len(st.Calls) == 0 && st.Cut == nil {
				ex.note("turn %d: the model replied with nothing, which a scenario cannot hold; it is left out", ev.Turn)
				continue
			}
			stepOf[ev.Turn] = len(ex.sc.Steps)
			ex.sc.Steps = append(ex.sc.Steps, st)
		case runtime.CallDecision:
			step, ok := stepOf[ev.Turn]
			if !ok || ev.Index >= len(ex.sc.Steps[step].Calls) {
				continue
			}
			if label, ok := releasedBy(ev); ok {
				k := grantKey{ev.Turn, label}
				if released[k] == nil {
					grantOrder = append(grantOrder, k)
				}
				released[k] = append(released[k], ev.Index)
				continue
			}
			c := &ex.sc.Steps[step].Calls[ev.Index]
			if d := ex.decision(ev, planned[callRef{ev.Turn, ev.Index}]); d != nil && c.Decision == nil {
				c.Decision = d
			}
		case runtime.RunFinished:
			if ev.Outcome.Status == runtime.StatusFailed && strings.Contains(strings.Join(ev.Outcome.Attempts, " "), "stopped: the person") {
				ex.note("a run was stopped with esc (%s); a scenario cannot carry a stop, so the autopilot will not stop it", ev.Outcome.FailingStep)
			}
		}
	}
	for _, k := range grantOrder {
		ex.grant(k, released[k], stepOf, planned, policy)
	}
	if len(ex.modes) > 0 {
		ex.mode = ex.modes[0]
	}
	if len(ex.modes) > 1 {
		ex.note("the approval mode changed during the session (%s); a scenario plays in one mode", strings.Join(ex.modes, " → "))
	}
	return ex
}

// callRef names a call of a session: its turn and index.
type callRef struct{ turn, index int }

// scriptedCall returns a scenario call whose arguments are the exact text
// the model sent: args when they read back as it, else raw.
func scriptedCall(name string, args []byte, raw string) model.ScriptedCall {
	c := model.ScriptedCall{Name: name}
	switch {
	case raw != "":
		c.RawArgs = &raw
	case len(args) > 0:
		c.Args = append([]byte(nil), args...)
	}
	return c
}

// decision returns the person's decision that ev records, or nil when ev is
// not one (a mode, a rule, a call a grant covered without asking).
func (ex *export) decision(ev runtime.CallDecision, pc runtime.PlannedCall) *model.Decision {
	if approval.ProvenanceOf(ev).Who != approval.WhoPerson {
		return nil
	}
	switch {
	case ev.Decision == runtime.DecisionRun:
		ex.approvals++
		if ev.Edited {
			ex.note("turn %d: the person approved #%d %s with their own version of its content, which the journal does not keep; "+
				"the scenario approves the model's version", ev.Turn, ev.Index+1, pc.Name)
		}
		return &model.Decision{Kind: model.DecisionApprove}
	case ev.Decision == runtime.DecisionSkip:
		reason, ok := approval.PersonsSkipReason(ev.Reason)
		if !ok {
			// Skipped because the turn ended first: nobody decided.
			return nil
		}
		ex.skips++
		return &model.Decision{Kind: model.DecisionSkip, Reason: reason}
	}
	return nil
}

// grantKey names a grant given during a turn.
type grantKey struct {
	turn  int
	label string
}

// releasedBy returns the label of the grant that released ev's call as
// the person gave it; ok is false for any other decision, a call a grant
// given earlier covered included.
func releasedBy(ev runtime.CallDecision) (label string, ok bool) {
	p := approval.ProvenanceOf(ev)
	return p.Label, p.Released
}

// grant records the grant k as the decision of the first of the calls it
// released (by their index) that offers it: the person gave it from one
// of them, and it releases the others again when the scenario is played.
func (ex *export) grant(k grantKey, indexes []int, stepOf map[int]int, planned map[callRef]runtime.PlannedCall, policy *approval.Policy) {
	slices.Sort(indexes)
	for _, i := range indexes {
		pc := planned[callRef{k.turn, i}]
		if pc.Touches == nil {
			continue
		}
		req := approval.Request{Call: pcCall(pc), Touches: *pc.Touches, Sandbox: pc.Sandbox}
		for _, g := range policy.GrantOptions(req) {
			if policy.GrantLabel(g) != k.label {
				continue
			}
			kind := model.GrantTool
			switch {
			case g.Sandboxed:
				kind = model.GrantSandboxed
			case !g.Within.IsEmpty():
				kind = model.GrantFolder
			}
			ex.sc.Steps[stepOf[k.turn]].Calls[i].Decision = &model.Decision{Kind: model.DecisionGrant, Grant: kind}
			ex.grants++
			return
		}
	}
	ex.note("turn %d: the grant %q was given, and none of the calls it released offers it here, so the scenario does not carry it", k.turn, k.label)
}

// note adds what the person should know about the export.
func (ex *export) note(format string, args ...any) {
	ex.notes = append(ex.notes, fmt.Sprintf(format, args...))
}

// playFlags returns the flags the scenario should be played with to meet
// the approvals the session met: its mode, when not the default.
func (ex *export) playFlags() string {
	if ex.mode != "" && ex.mode != string(approval.ModeReads) {
		return " --mode " + ex.mode
	}
	return ""
}

// report says on w what was exported and what the scenario could not
// carry.
func (ex *export) report(w io.Writer, where string, rp *journal.Replay) {
	fmt.Fprintf(w, "agenttui: exported session %s to %s: %d step(s), %d input(s), %d approval(s), %d skip(s), %d grant(s)\n",
		rp.Header.Session, where, len(ex.sc.Steps), ex.inputs, ex.approvals, ex.skips, ex.grants)
	if ex.mode != "" && ex.mode != string(approval.ModeReads) {
		ex.note("the session ran in %s mode: play it with --mode %s, or calls that ran without asking will ask, and the autopilot will wait for you",
			ex.mode, ex.mode)
	}
	for _, n := range ex.notes {
		fmt.Fprintf(w, "agenttui: note: %s\n", n)
	}
}

// reportPack says what the workspace archive holds and, one by one up to a
// point, what it left out and why.
func reportPack(w io.Writer, path string, a *txtar.Archive, rep txtar.Report) {
	size := 0
	for _, f := range a.Files {
		size += len(f.Data)
	}
	fmt.Fprintf(w, "agenttui: packed the workspace into %s: %d file(s), %s\n", path, len(a.Files), txtar.Size(int64(size)))
	if len(rep.Left) > 0 {
		fmt.Fprintf(w, "agenttui: left out of the workspace (%d):\n", len(rep.Left))
		for i, l := range rep.Left {
			if i == exportLeftShown {
				fmt.Fprintf(w, "  … and %d more\n", len(rep.Left)-exportLeftShown)
				break
			}
			fmt.Fprintf(w, "  %s: %s\n", l.Path, l.Why)
		}
	}
	if n := len(rep.Executable); n > 0 {
		fmt.Fprintf(w, "agenttui: note: %d executable file(s) lose their executable bit, since an archive keeps no permissions (%s)\n",
			n, strings.Join(rep.Executable[:min(n, 5)], ", "))
	}
}

// pcCall returns the call a planned call was made from, as the policy sees
// it.
func pcCall(pc runtime.PlannedCall) tool.Call {
	return tool.Call{ID: pc.ID, Name: pc.Name, Arguments: string(pc.Args)}
}
