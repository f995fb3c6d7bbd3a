package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/agenttui/agenttui/internal/sanitize"
	"github.com/agenttui/agenttui/internal/session"
	"github.com/agenttui/agenttui/runtime/journal"
	"github.com/agenttui/agenttui/runtime/model"
)

// loadSession finds and loads the session --resume or --continue names, of
// this workspace. Unless --model or --scenario says otherwise, the session
// is carried on with the model its journal names.
func loadSession(o *options) (*journal.Replay, error) {
	rp, err := session.Load(o.workspace, o.resume)
	if err != nil {
		return nil, err
	}
	if !o.set["model"] && o.scenario == "" {
		if strings.HasPrefix(rp.Header.Model, "scenario:") {
			return nil, usagef("session %s was played from a scenario file: pass --scenario FILE again to resume it", rp.Header.Session)
		}
		o.model = rp.Header.Model
	}
	return rp, nil
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
		fmt.Fprintln(tw, head+"TOKENS IN/OUT\tCOST\tGOAL")
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
			cost := "-"
			if s.Usage.CostUSD != nil {
				cost = model.Dollars(*s.Usage.CostUSD)
			}
			fmt.Fprintf(tw, "%s/%s\t%s\t%s\n", model.CountTokens(s.Usage.InputTokens), model.CountTokens(s.Usage.OutputTokens), cost,
				short(sanitize.Line(journal.FirstLine(s.Goal)), 60))
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
