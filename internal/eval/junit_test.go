package eval

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
)

// The JUnit XML as a CI system reads it; declared here, apart from the
// writer's own types, so that a wrong tag there shows here.
type (
	xSuites struct {
		XMLName  xml.Name `xml:"testsuites"`
		Name     string   `xml:"name,attr"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Time     string   `xml:"time,attr"`
		Suites   []xSuite `xml:"testsuite"`
	}
	xSuite struct {
		Name     string  `xml:"name,attr"`
		Tests    int     `xml:"tests,attr"`
		Failures int     `xml:"failures,attr"`
		Time     string  `xml:"time,attr"`
		Cases    []xCase `xml:"testcase"`
	}
	xCase struct {
		Classname string    `xml:"classname,attr"`
		Name      string    `xml:"name,attr"`
		Time      string    `xml:"time,attr"`
		Failure   *xFailure `xml:"failure"`
		SystemOut string    `xml:"system-out"`
	}
	xFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
)

func parseJUnit(t *testing.T, rep *Report) (xSuites, string) {
	t.Helper()
	var b bytes.Buffer
	if err := rep.JUnit(&b); err != nil {
		t.Fatal(err)
	}
	var out xSuites
	if err := xml.Unmarshal(b.Bytes(), &out); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	return out, b.String()
}

func TestJUnit(t *testing.T) {
	out, raw := parseJUnit(t, sampleReport(t, 2))
	if !strings.HasPrefix(raw, xml.Header) {
		t.Errorf("no XML header:\n%s", raw)
	}
	if out.Name != "smoke" || out.Tests != 10 || out.Failures != 5 || out.Time != "7.200" {
		t.Errorf("testsuites name=%q tests=%d failures=%d time=%s", out.Name, out.Tests, out.Failures, out.Time)
	}
	if len(out.Suites) != 2 {
		t.Fatalf("%d testsuites, want smoke and nightly", len(out.Suites))
	}
	smoke, nightly := out.Suites[0], out.Suites[1]
	if smoke.Name != "smoke" || smoke.Tests != 6 || smoke.Failures != 3 || smoke.Time != "7.000" {
		t.Errorf("smoke: name=%q tests=%d failures=%d time=%s", smoke.Name, smoke.Tests, smoke.Failures, smoke.Time)
	}
	if nightly.Name != "nightly" || nightly.Tests != 4 || nightly.Failures != 2 || nightly.Time != "0.200" {
		t.Errorf("nightly: name=%q tests=%d failures=%d time=%s", nightly.Name, nightly.Tests, nightly.Failures, nightly.Time)
	}
	var names []string
	for _, c := range smoke.Cases {
		names = append(names, c.Name)
		if c.Classname != "smoke" {
			t.Errorf("%s: classname %q", c.Name, c.Classname)
		}
	}
	if got, want := strings.Join(names, "|"), "fix-typo (run 1/2)|fix-typo (run 2/2)|find-file (run 1/2)|find-file (run 2/2)|noisy␛ (run 1/2)|noisy␛ (run 2/2)"; got != want {
		t.Errorf("testcase names\n got %s\nwant %s", got, want)
	}
	fix1 := smoke.Cases[0]
	if fix1.Failure != nil || fix1.Time != "0.300" || fix1.SystemOut != "session: s-fix-1\nstatus: succeeded" {
		t.Errorf("fix-typo run 1: %+v", fix1)
	}
	find1, find2 := smoke.Cases[2], smoke.Cases[3]
	if find1.Failure == nil || find1.Failure.Type != "check" || find1.Failure.Message != `data /file: want "a.txt", got "b.txt"` ||
		find1.Failure.Text != `data /file: want "a.txt", got "b.txt"` {
		t.Errorf("find-file run 1 failure: %+v", find1.Failure)
	}
	if find2.Failure != nil {
		t.Errorf("find-file run 2 passed but has a failure: %+v", find2.Failure)
	}
	noisy := smoke.Cases[4]
	if noisy.Failure == nil || noisy.Failure.Message != "status: want succeeded, got failed (turn 7: run_shell: ␛gone for⏎ good)" {
		t.Errorf("noisy failure: %+v", noisy.Failure)
	}
	if strings.ContainsRune(raw, '\x1b') {
		t.Error("an escape character reached the XML")
	}
	broken := nightly.Cases[2]
	if broken.Name != "broken (run 1/2)" || broken.Classname != "nightly" || broken.Failure == nil || broken.Failure.Type != "run" ||
		broken.Failure.Message != "run: OPENAI_API_KEY is not set" || broken.SystemOut != "" {
		t.Errorf("broken run 1: %+v %+v", broken, broken.Failure)
	}
}

// A failure holds every failing check, one per line; the message is the
// first.
func TestJUnitEveryFailure(t *testing.T) {
	c := testCase("many")
	c.Expect.MaxTurns, c.Expect.MaxTokens = 1, 10
	a := succeeded("")
	a.Turns, a.Usage = 2, usage(20, 0, nil)
	out, _ := parseJUnit(t, Run(t.Context(), testSuite(c), Options{Run: always(a), Now: newClock().now}))
	tc := out.Suites[0].Cases[0]
	if tc.Name != "many" {
		t.Errorf("name %q: with one run there is no run number", tc.Name)
	}
	if tc.Failure == nil || tc.Failure.Message != "turns: 2 > max 1" || tc.Failure.Text != "turns: 2 > max 1\ntokens: 20 > max 10" {
		t.Errorf("failure %+v", tc.Failure)
	}
}
