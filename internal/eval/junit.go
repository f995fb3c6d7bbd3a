package eval

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agenttui/agenttui/internal/sanitize"
)

// The JUnit XML elements, in the shape CI systems (GitHub Actions
// reporters, GitLab, Jenkins) read.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Time     string      `xml:"time,attr"`
		Cases    []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Classname string        `xml:"classname,attr"`
		Name      string        `xml:"name,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *junitFailure `xml:"failure,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
)

// JUnit writes the report as JUnit XML for CI: one testsuite per suite
// file, one testcase per run (named "CASE (run k/K)" when cases ran more
// than once), a failure holding every failing check, one per line, and the
// session and outcome in system-out. The failure's type is "check", or
// "run" when the case could not be run at all. Text is made safe for a
// terminal, since CI logs print these files.
func (r *Report) JUnit(w io.Writer) error {
	out := junitSuites{Name: sanitize.Line(r.Suite), Time: junitTime(r.Duration)}
	index := map[string]int{} // suite file → its testsuite in out.Suites
	var spent []time.Duration // each testsuite's runs' time, added up
	for _, c := range r.Cases {
		i, ok := index[c.Case.File]
		if !ok {
			i = len(out.Suites)
			index[c.Case.File] = i
			out.Suites = append(out.Suites, junitSuite{Name: sanitize.Line(c.Case.Suite)})
			spent = append(spent, 0)
		}
		s := &out.Suites[i]
		for _, run := range c.Runs {
			jc := junitCase{Classname: sanitize.Line(c.Case.Suite), Name: sanitize.Line(c.Case.Name),
				Time: junitTime(run.Duration), SystemOut: systemOut(run)}
			if r.Repeat > 1 {
				jc.Name += fmt.Sprintf(" (run %d/%d)", run.Run, r.Repeat)
			}
			if !run.Passed() {
				kind := "check"
				if run.Attempt.Err != nil {
					kind = "run"
				}
				lines := make([]string, len(run.Failures))
				for j, f := range run.Failures {
					lines[j] = sanitize.Line(f)
				}
				jc.Failure = &junitFailure{Message: lines[0], Type: kind, Text: strings.Join(lines, "\n")}
				s.Failures++
				out.Failures++
			}
			s.Tests++
			out.Tests++
			spent[i] += run.Duration
			s.Cases = append(s.Cases, jc)
		}
	}
	for i := range out.Suites {
		out.Suites[i].Time = junitTime(spent[i])
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// systemOut returns a run's session id and outcome status, so a failure in
// CI leads to the session's journal.
func systemOut(r RunResult) string {
	var lines []string
	if r.Attempt.Session != "" {
		lines = append(lines, "session: "+sanitize.Line(r.Attempt.Session))
	}
	if s := r.Attempt.Outcome.Status; s != "" && r.Attempt.Err == nil {
		lines = append(lines, "status: "+string(s))
	}
	return strings.Join(lines, "\n")
}

// junitTime writes a duration in seconds, as JUnit's time attributes are.
func junitTime(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }
