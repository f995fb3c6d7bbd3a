package main

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/internal/sanitize"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/journal"
)

// startJournal creates the journal of a new session. A session in a
// temporary workspace (the demo, a scenario unpacked from its archive) is
// not journaled (unjournaled is true): the folder is removed on exit, so
// there would be nothing to resume it in.
func startJournal(o *options, id, goal string, agent *runtime.Agent, policy *approval.Policy, unjournaled bool) (*journal.Writer, error) {
	if unjournaled {
		return nil, nil
	}
	dir, err := journal.Dir()
	if err != nil {
		return nil, err
	}
	return journal.Create(dir, journal.Header{
		Session: id, Goal: goal, Model: agent.Model.Name(), Mode: string(policy.Mode()),
		Workspace: o.workspace, Catalog: agent.CurrentCatalog().Digest(), Started: time.Now().UTC(), TraceID: o.traceID,
	}, redact.FromEnv())
}

// journalErr is an Agent.Durable over the journal jw holds, once there is
// one: it reports the journal's first write error.
func journalErr(jw *atomic.Pointer[journal.Writer]) func() error {
	return func() error {
		if w := jw.Load(); w != nil {
			return w.Err()
		}
		return nil
	}
}

// journalLost says what a person can do once the journal of session id
// could not be written (err): everything up to the failure is in it, so the
// session resumes from there once the cause is mended.
func journalLost(id string, err error) runtime.Notice {
	return runtime.Notice{Level: "warning", Text: fmt.Sprintf("%v; nothing more runs in this session. "+
		"The journal holds everything up to the failure: mend the cause (free disk space, for instance), "+
		"then resume with agenttui --resume %s", err, id)}
}

// loadSession finds and loads the session --resume or --continue names, and
// checks that it belongs to this workspace.
func loadSession(o *options) (*journal.Replay, error) {
	dir, err := journal.Dir()
	if err != nil {
		return nil, err
	}
	var rp *journal.Replay
	if o.cont {
		rp, err = journal.Latest(dir, o.workspace)
	} else {
		var path string
		if path, err = journal.Find(dir, o.resume); err == nil {
			rp, err = journal.Load(path)
		}
	}
	if err != nil {
		return nil, usageError{err.Error()}
	}
	if rp.Header.Workspace != o.workspace {
		return nil, usagef("session %s belongs to the workspace %s, not %s: resume it there, or pass --workspace %s",
			rp.Header.Session, rp.Header.Workspace, o.workspace, rp.Header.Workspace)
	}
	if !o.set["model"] && o.scenario == "" {
		if strings.HasPrefix(rp.Header.Model, "scenario:") {
			return nil, usagef("session %s was played from a scenario file: pass --scenario FILE again to resume it", rp.Header.Session)
		}
		o.model = rp.Header.Model
	}
	return rp, nil
}

// damageNotices returns the damage loading a session tolerated.
func damageNotices(rp *journal.Replay) []runtime.Notice {
	var out []runtime.Notice
	for _, w := range rp.Warnings {
		out = append(out, runtime.Notice{Level: "warning", Text: "journal: " + w})
	}
	return out
}

// toolsNotice says when the tools the agent will offer — the workspace's and
// the MCP servers', so it is asked once the servers are attached — differ
// from those the session was recorded with.
func toolsNotice(rp *journal.Replay, agent *runtime.Agent) (runtime.Notice, bool) {
	if rp.Header.Catalog == "" || rp.Header.Catalog == agent.CurrentCatalog().Digest() {
		return runtime.Notice{}, false
	}
	return runtime.Notice{Level: "warning", Text: "the tools changed since this session was recorded " +
		"(a tool, an MCP server or a schema differs); calls to tools that are gone will be refused"}, true
}

// resumeNotices returns what a person should know about a loaded session
// whose run is about to go on: tolerated damage, and changed tools.
func resumeNotices(rp *journal.Replay, agent *runtime.Agent) []runtime.Notice {
	out := damageNotices(rp)
	if n, ok := toolsNotice(rp, agent); ok {
		out = append(out, n)
	}
	return out
}

// runSessions prints the sessions of the workspace: "agenttui sessions";
// "agenttui sessions export ID" makes one a scenario.
func runSessions(args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) > 0 && args[0] == "export" {
		return runExport(args[1:], stdout, stderr)
	}
	o, err := parseOptions("agenttui sessions", args, false, stdout)
	if err != nil {
		return 2, err
	}
	if o.goal != "" {
		return 2, usagef("agenttui sessions takes no goal")
	}
	dir, err := journal.Dir()
	if err != nil {
		return 1, err
	}
	all, notes := journal.List(dir, o.workspace)
	if len(all) == 0 {
		fmt.Fprintf(stdout, "No sessions for %s yet.\n", sanitize.Line(o.workspace))
	} else {
		// The trace column is shown once any session was traced, so a
		// session can be found in a tracing backend.
		traced := false
		for _, rp := range all {
			traced = traced || rp.Header.TraceID != ""
		}
		tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
		head := "ID\tSTARTED\tLAST ACTIVITY\tOUTCOME\t"
		if traced {
			head += "TRACE\t"
		}
		fmt.Fprintln(tw, head+"GOAL")
		for _, rp := range all {
			s := rp.Describe()
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t", s.ID, s.Started.Local().Format("2006-01-02 15:04"),
				s.LastActivity.Local().Format("2006-01-02 15:04"), s.Outcome)
			if traced {
				trace := sanitize.Line(s.TraceID)
				if trace == "" {
					trace = "-"
				}
				fmt.Fprintf(tw, "%s\t", trace)
			}
			fmt.Fprintf(tw, "%s\n", short(sanitize.Line(journal.FirstLine(s.Goal)), 60))
		}
		tw.Flush()
		fmt.Fprintln(stdout, "\nResume one with: agenttui --resume ID   (or agenttui run --resume ID)")
		fmt.Fprintln(stdout, "Make one a demo that plays itself with: agenttui sessions export ID --out demo.json")
	}
	if len(notes) > 0 {
		fmt.Fprintf(stdout, "(%d journal(s) in %s could not be read)\n", len(notes), dir)
	}
	return 0, nil
}
