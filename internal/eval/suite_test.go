package eval

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime"
)

// exampleSuite is the suite of the package documentation.
const exampleSuite = `{
  "name": "smoke",
  "cases": [
    {
      "name": "fix-typo",
      "goal": "Fix the typo in README.md",
      "workspace": "cases/fix-typo.txtar",
      "model": "cases/fix-typo.scenario.json",
      "mode": "auto",
      "answers": ["use British spelling"],
      "expect": {
        "status": "succeeded",
        "data": [{"pointer": "/file", "equals": "README.md"}, {"pointer": "/changed", "contains": "README.md"}],
        "files": [{"path": "README.md", "contains": "receive"}, {"path": "notes.txt", "exists": false}],
        "max_turns": 5,
        "max_tokens": 20000,
        "max_cost_usd": 0.05
      }
    },
    {"name": "ask", "goal": "Ask me", "model": "anthropic:claude-x", "mode": "plan", "expect": {"status": "refused"}}
  ]
}`

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"suite.json":                   exampleSuite,
		"cases/fix-typo.txtar":         "-- README.md --\nrecieve\n-- notes.txt --\nx\n",
		"cases/fix-typo.scenario.json": scenarioJSON,
	})
	s, err := Load(filepath.Join(dir, "suite.json"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "smoke" || len(s.Cases) != 2 {
		t.Fatalf("suite %q with %d cases, want smoke with 2", s.Name, len(s.Cases))
	}
	c := s.Cases[0]
	if c.Suite != "smoke" || c.File != filepath.Join(dir, "suite.json") || c.Name != "fix-typo" || c.Goal != "Fix the typo in README.md" || c.Mode != "auto" {
		t.Errorf("case = %+v", c)
	}
	if want := filepath.Join(dir, "cases", "fix-typo.scenario.json"); c.Model != want || !c.Scenario {
		t.Errorf("model = %q scenario %v, want %q true", c.Model, c.Scenario, want)
	}
	if c.Workspace == nil || len(c.Workspace.Files) != 2 || c.Workspace.Files[0].Name != "README.md" {
		t.Errorf("workspace = %+v", c.Workspace)
	}
	if len(c.Answers) != 1 || c.Answers[0] != "use British spelling" {
		t.Errorf("answers = %q", c.Answers)
	}
	e := c.Expect
	if e.Status != runtime.StatusSucceeded || e.MaxTurns != 5 || e.MaxTokens != 20000 || e.MaxCostUSD != 0.05 {
		t.Errorf("expect = %+v", e)
	}
	if len(e.Data) != 2 || e.Data[0].Pointer != "/file" || string(e.Data[0].Equals) != `"README.md"` || e.Data[0].Contains != nil ||
		string(e.Data[1].Contains) != `"README.md"` || e.Data[1].Equals != nil {
		t.Errorf("data = %+v", e.Data)
	}
	if len(e.Files) != 2 || e.Files[0].Path != "README.md" || *e.Files[0].Contains != "receive" || e.Files[0].Exists != nil ||
		e.Files[1].Exists == nil || *e.Files[1].Exists || e.Files[1].Contains != nil {
		t.Errorf("files = %+v", e.Files)
	}
	c = s.Cases[1]
	if c.Model != "anthropic:claude-x" || c.Scenario || c.Workspace != nil || c.Mode != "plan" || c.Expect.Status != runtime.StatusRefused {
		t.Errorf("second case = %+v", c)
	}
}

// A scenario's path is made absolute, so the runner finds it whatever
// folder it works in, even when the suite was named relative to here.
func TestLoadRelativeSuite(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"evals/suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "s.json"}]}`,
		"evals/s.json":     scenarioJSON,
	})
	t.Chdir(dir)
	s, err := Load(filepath.Join("evals", "suite.json"))
	if err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(dir, "evals", "s.json"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := filepath.EvalSymlinks(s.Cases[0].Model)
	if !filepath.IsAbs(s.Cases[0].Model) || err != nil || got != real {
		t.Errorf("model = %q, want the absolute path of %s", s.Cases[0].Model, real)
	}
	if s.Cases[0].File != filepath.Join("evals", "suite.json") {
		t.Errorf("file = %q, want the path as it was named", s.Cases[0].File)
	}
}

func TestLoadDefaults(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"nightly.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:gpt-x"}]}`})
	s, err := Load(filepath.Join(dir, "nightly.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := s.Cases[0]
	if s.Name != "nightly" || c.Suite != "nightly" {
		t.Errorf("suite name %q, case's %q, want nightly", s.Name, c.Suite)
	}
	if c.Mode != "auto" || c.Expect.Status != runtime.StatusSucceeded || c.Workspace != nil || c.Expect.MaxTurns != 0 {
		t.Errorf("case = %+v", c)
	}
}

func TestLoadFolder(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"evals/b.json":           `{"name": "bee", "cases": [{"name": "b1", "goal": "g", "model": "cases/s.json"}, {"name": "b2", "goal": "g", "model": "openai:x"}]}`,
		"evals/a.json":           `{"cases": [{"name": "a1", "goal": "g", "model": "openai:x"}]}`,
		"evals/README.md":        "not a suite",
		"evals/cases/s.json":     scenarioJSON,
		"evals/cases/other.json": `{"not": "a suite, and not read"}`,
	})
	s, err := Load(filepath.Join(dir, "evals"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range s.Cases {
		got = append(got, c.Suite+"/"+c.Name)
	}
	if s.Name != "evals" || strings.Join(got, " ") != "a/a1 bee/b1 bee/b2" {
		t.Errorf("suite %q cases %q, want evals with a/a1 bee/b1 bee/b2", s.Name, got)
	}
	if want := filepath.Join(dir, "evals", "cases", "s.json"); s.Cases[1].Model != want {
		t.Errorf("model = %q, want %q: paths are relative to the suite file", s.Cases[1].Model, want)
	}
}

func TestLoadMalformed(t *testing.T) {
	const ok = `{"name": "a", "goal": "g", "model": "openai:x"}`
	for _, tc := range []struct {
		name  string
		files map[string]string
		path  string // default suite.json
		want  string
	}{
		{"syntax", map[string]string{"suite.json": "{\n  \"cases\": [\n    {\"name\": \"a\",\n      }\n  ]\n}"}, "",
			`suite.json: line 4, column 7: invalid character '}' looking for beginning of object key string`},
		{"truncated", map[string]string{"suite.json": "{\"cases\": ["}, "",
			`suite.json: line 1, column 12: unexpected end of JSON input`},
		{"truncated after a newline", map[string]string{"suite.json": "{\"cases\": [\n"}, "",
			`suite.json: line 2, column 1: unexpected end of JSON input`},
		{"wide characters before the error", map[string]string{"suite.json": "{\"name\": \"héllo ✓\" x}"}, "",
			`suite.json: line 1, column 20: invalid character 'x' after object key:value pair`},
		{"cases null", map[string]string{"suite.json": `{"cases": null}`}, "",
			`suite.json: "cases" is null: a suite needs a list of cases`},
		{"not an object", map[string]string{"suite.json": `[1]`}, "",
			`suite.json: want a JSON object with "cases", got array`},
		{"unknown top-level field", map[string]string{"suite.json": `{"nmae": "x", "cases": [` + ok + `]}`}, "",
			`suite.json: unknown field "nmae"`},
		{"cases of the wrong type", map[string]string{"suite.json": `{"cases": {}}`}, "",
			`suite.json: field cases: want a list, got object`},
		{"unknown case field", map[string]string{"suite.json": `{"cases": [{"name": "fix-typo", "gaol": "x", "model": "openai:x"}]}`}, "",
			`suite.json: case "fix-typo": unknown field "gaol"`},
		{"no goal", map[string]string{"suite.json": `{"cases": [` + ok + `, {"name": "b", "goal": "g", "model": "openai:x"}, {"model": "openai:x"}]}`}, "",
			`suite.json: case 3 has no "goal"`},
		{"blank goal", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "  ", "model": "openai:x"}]}`}, "",
			`suite.json: case "a" has no "goal"`},
		{"no name", map[string]string{"suite.json": `{"cases": [{"goal": "g", "model": "openai:x"}]}`}, "",
			`suite.json: case 1 has no "name"`},
		{"no model", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g"}]}`}, "",
			`suite.json: case "a" has no "model": give a scenario file (a path ending in .json) or a model such as openai:NAME`},
		{"model neither", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "gpt-5"}]}`}, "",
			`suite.json: case "a": model "gpt-5" is neither a scenario file (a path ending in .json) nor a model spec (openai:NAME or anthropic:NAME)`},
		{"model without a name", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:"}]}`}, "",
			`suite.json: case "a": model "openai:" is neither a scenario file (a path ending in .json) nor a model spec (openai:NAME or anthropic:NAME)`},
		{"scenario missing", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "cases/a.json"}]}`}, "",
			`suite.json: case "a": model: scenario file cases/a.json does not exist`},
		{"scenario broken", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "cases/a.json"}]}`, "cases/a.json": `{"steps": []}`}, "",
			`suite.json: case "a": model: scenario file cases/a.json: field steps is empty: a scenario needs at least one step`},
		{"workspace missing", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:x", "workspace": "cases/a.txtar"}]}`}, "",
			`suite.json: case "a": workspace cases/a.txtar: no such file`},
		{"workspace a folder", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:x", "workspace": "cases"}]}`, "cases/x": ""}, "",
			`suite.json: case "a": workspace cases: is a folder, not a txtar archive`},
		{"workspace unsafe", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:x", "workspace": "a.txtar"}]}`, "a.txtar": "-- ../x --\nhi\n"}, "",
			`suite.json: case "a": workspace a.txtar: file "../x": the name leaves the folder the archive is unpacked in`},
		{"bad mode", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:x", "mode": "yolo"}]}`}, "",
			`suite.json: case "a": unknown mode "yolo": use ask, reads, auto or plan`},
		{"blank answer", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:x", "answers": ["yes", ""]}]}`}, "",
			`suite.json: case "a": answer 2 is empty`},
		{"unknown expect field", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:x", "expect": {"stauts": "failed"}}]}`}, "",
			`suite.json: case "a": expect: unknown field "stauts"`},
		{"bad status", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:x", "expect": {"status": "passed"}}]}`}, "",
			`suite.json: case "a": expect: status "passed" is not one of succeeded, failed, refused`},
		{"wrong type in expect", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:x", "expect": {"max_turns": "5"}}]}`}, "",
			`suite.json: case "a": expect: field max_turns: want a whole number, got string`},
		{"zero max_turns", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:x", "expect": {"max_turns": 0}}]}`}, "",
			`suite.json: case "a": expect: max_turns must be at least 1, not 0`},
		{"negative max_tokens", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:x", "expect": {"max_tokens": -1}}]}`}, "",
			`suite.json: case "a": expect: max_tokens must be at least 1, not -1`},
		{"zero cost", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:x", "expect": {"max_cost_usd": 0}}]}`}, "",
			`suite.json: case "a": expect: max_cost_usd must be more than 0, not 0`},
		{"both equals and contains", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:x", "expect": {"data": [{"pointer": "/x", "equals": 1, "contains": 1}]}}]}`}, "",
			`suite.json: case "a": data check 1 has both "equals" and "contains"`},
		{"neither equals nor contains", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:x", "expect": {"data": [{"pointer": "/x", "equals": 1}, {"pointer": "/y"}]}}]}`}, "",
			`suite.json: case "a": data check 2 needs "equals" or "contains"`},
		{"no pointer", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:x", "expect": {"data": [{"equals": 1}]}}]}`}, "",
			`suite.json: case "a": data check 1 has no "pointer" (use "" for the whole value)`},
		{"pointer without slash", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:x", "expect": {"data": [{"pointer": "file", "equals": 1}]}}]}`}, "",
			`suite.json: case "a": data check 1: pointer "file" must be "" (the whole value) or start with /`},
		{"pointer bad escape", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:x", "expect": {"data": [{"pointer": "/a~2", "equals": 1}]}}]}`}, "",
			`suite.json: case "a": data check 1: pointer "/a~2": a ~ must be followed by 0 (for ~) or 1 (for /)`},
		{"unknown data check field", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:x", "expect": {"data": [{"pointer": "", "equal": 1}]}}]}`}, "",
			`suite.json: case "a": data check 1: unknown field "equal"`},
		{"data for a failed run", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:x", "expect": {"status": "failed", "data": [{"pointer": "", "equals": 1}]}}]}`}, "",
			`suite.json: case "a": data checks need "status": "succeeded", since only a succeeded run extracts data`},
		{"file outside", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:x", "expect": {"files": [{"path": "../x", "exists": true}]}}]}`}, "",
			`suite.json: case "a": file check 1: path "../x" must be relative and stay inside the workspace`},
		{"file absolute", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:x", "expect": {"files": [{"path": "/etc/passwd", "exists": true}]}}]}`}, "",
			`suite.json: case "a": file check 1: path "/etc/passwd" must be relative and stay inside the workspace`},
		{"file without path", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:x", "expect": {"files": [{"exists": true}]}}]}`}, "",
			`suite.json: case "a": file check 1 has no "path"`},
		{"file checks nothing", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:x", "expect": {"files": [{"path": "x"}]}}]}`}, "",
			`suite.json: case "a": file check 1 (x) needs "exists" or "contains"`},
		{"file contradicts", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:x", "expect": {"files": [{"path": "x", "exists": false, "contains": "y"}]}}]}`}, "",
			`suite.json: case "a": file check 1 (x) has "exists": false and "contains", which cannot both hold`},
		{"unknown file check field", map[string]string{"suite.json": `{"cases": [{"name": "a", "goal": "g", "model": "openai:x", "expect": {"files": [{"path": "x", "exist": true}]}}]}`}, "",
			`suite.json: case "a": file check 1: unknown field "exist"`},
		{"duplicate in a file", map[string]string{"suite.json": `{"cases": [` + ok + `, {"name": "b", "goal": "g", "model": "openai:x"}, ` + ok + `]}`}, "",
			`suite.json: case "a": the name is used twice (cases 1 and 3)`},
		{"duplicate across files", map[string]string{"evals/a.json": `{"cases": [` + ok + `]}`, "evals/b.json": `{"cases": [` + ok + `]}`}, "evals",
			`evals/b.json: case "a": the name is also used in evals/a.json; names must be unique across the folder`},
		{"empty suite", map[string]string{"suite.json": `{"name": "x", "cases": []}`}, "",
			`suite.json: "cases" is empty: a suite needs at least one case`},
		{"no cases", map[string]string{"suite.json": `{"name": "x"}`}, "",
			`suite.json: no "cases": this is not a suite (a suite folder keeps scenario files and workspaces in a subfolder)`},
		{"scenario at the top of a folder", map[string]string{"evals/a.json": `{"cases": [{"name": "a", "goal": "g", "model": "s.json"}]}`, "evals/s.json": scenarioJSON}, "evals",
			`evals/s.json: no "cases": this is not a suite (a suite folder keeps scenario files and workspaces in a subfolder)`},
		{"no such suite", nil, "nope.json", `nope.json: no such file or folder`},
		{"empty folder", map[string]string{"evals/README.md": "x"}, "evals",
			`evals: no suite files: a suite folder holds one or more *.json suite files`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, tc.files)
			t.Chdir(dir)
			path := tc.path
			if path == "" {
				path = "suite.json"
			}
			_, err := Load(path)
			var se *SuiteError
			if !errors.As(err, &se) {
				t.Fatalf("Load: %v (%T), want a *SuiteError", err, err)
			}
			if err.Error() != tc.want {
				t.Errorf("error:\n got %s\nwant %s", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q is more than one line", err)
			}
		})
	}
}

// A problem that arrives with a newline in it (an error from another
// package) still makes one line.
func TestSuiteErrorOneLine(t *testing.T) {
	err := &SuiteError{File: "s.json", Problem: "first\nsecond  third"}
	if got, want := err.Error(), "s.json: first second third"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestLoadUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any file")
	}
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"suite.json": `{}`})
	if err := os.Chmod(filepath.Join(dir, "suite.json"), 0); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	_, err := Load("suite.json")
	if err == nil || err.Error() != "suite.json: cannot be read: permission denied" {
		t.Errorf("Load: %v", err)
	}
}
