package feedback

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agenttui/agenttui/runtime/tool"
)

func mustSchema(t *testing.T, name, params string) *Schema {
	t.Helper()
	s, err := CompileSchema(tool.Declaration{Name: name, Parameters: json.RawMessage(params)})
	if err != nil {
		t.Fatalf("compile %s: %v", name, err)
	}
	return s
}

const writeSchema = `{"type":"object","properties":{"path":{"type":"string","minLength":1},"content":{"type":"string"}},"required":["path","content"],"additionalProperties":false}`

func TestArgumentsRefusalNotAnObject(t *testing.T) {
	s := mustSchema(t, "add", `{"type":"object","properties":{"a":{"type":"number"}}}`)
	for _, raw := range []string{"[1]", `{"a":`, "", `"x"`, `{} {}`, "null"} {
		got, refused := ArgumentsRefusal(s, raw)
		if !refused || !strings.Contains(got, "must be a JSON object") || !strings.Contains(got, "did not run") {
			t.Errorf("raw %q: refusal %q", raw, got)
		}
	}
	if got := InvalidArguments("add", "[1]"); got != "The call to add did not run: its arguments must be a JSON object, but they were: `[1]`\nCall add again with the arguments as a JSON object." {
		t.Errorf("InvalidArguments wording changed: %q", got)
	}
}

func TestArgumentsRefusalEchoIsBounded(t *testing.T) {
	raw := "[" + strings.Repeat("9,", 500) + "9]"
	got := InvalidArguments("add", raw)
	if !strings.Contains(got, raw[:EchoedChars]+"…") || strings.Contains(got, raw[:EchoedChars+1]) {
		t.Errorf("echo not bounded to %d characters: %q", EchoedChars, got)
	}
	short := InvalidArguments("add", "[1]")
	if strings.Contains(short, "…") {
		t.Errorf("short input must not get an ellipsis: %q", short)
	}
}

func TestArgumentsRefusalUnknownArgument(t *testing.T) {
	s := mustSchema(t, "write_file", writeSchema)
	got, refused := ArgumentsRefusal(s, `{"path":"a","content":"x","mode":"0644"}`)
	want := "The call to write_file did not run: it was given an argument that write_file does not take: mode; " +
		"the arguments it takes are: content, path. Call it again with only those."
	if !refused || got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	none := mustSchema(t, "now", `{"type":"object"}`)
	got, refused = ArgumentsRefusal(none, `{"tz":"UTC"}`)
	if !refused || !strings.Contains(got, "it takes no arguments") {
		t.Errorf("no-argument tool: %q", got)
	}
	if _, refused := ArgumentsRefusal(none, `{}`); refused {
		t.Error("empty object must fit a tool with no arguments")
	}
	open := mustSchema(t, "any", `{"type":"object","additionalProperties":true}`)
	if _, refused := ArgumentsRefusal(open, `{"x":1}`); refused {
		t.Error("a schema that allows additional properties must accept them")
	}
}

func TestArgumentsRefusalSchemaProblems(t *testing.T) {
	s := mustSchema(t, "write_file", writeSchema)
	got, refused := ArgumentsRefusal(s, `{"path":"","content":5}`)
	want := "The call to write_file did not run: its arguments do not match the tool's schema:\n" +
		"/content: expected string, but got number\n" +
		"/path: length must be >= 1, but got 0\n" +
		"Fix the arguments and call it again."
	if !refused || got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	got, _ = ArgumentsRefusal(s, `{"path":"a"}`)
	if !strings.Contains(got, `/: missing properties: 'content'`) {
		t.Errorf("missing property not named: %q", got)
	}
	if _, refused := ArgumentsRefusal(s, `{"path":"a","content":"b"}`); refused {
		t.Error("fitting arguments were refused")
	}
}

func TestArgumentsRefusalNamesAtMostFive(t *testing.T) {
	props := []string{}
	args := []string{}
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		props = append(props, `"`+n+`":{"type":"integer"}`)
		args = append(args, `"`+n+`":"x"`)
	}
	s := mustSchema(t, "seven", `{"type":"object","properties":{`+strings.Join(props, ",")+`}}`)
	got, refused := ArgumentsRefusal(s, "{"+strings.Join(args, ",")+"}")
	if !refused {
		t.Fatal("not refused")
	}
	lines := strings.Split(got, "\n")
	// Header, five problems, the count of the rest, and the closing advice.
	if len(lines) != 8 || lines[1] != "/a: expected integer, but got string" || lines[5][:2] != "/e" || lines[6] != "and 2 more" {
		t.Errorf("unexpected problem list:\n%s", got)
	}
}

func TestSchemaRefusesExternalRefs(t *testing.T) {
	for _, ref := range []string{"file:///etc/passwd", "http://127.0.0.1:1/schema.json", "other.json"} {
		_, err := CompileSchema(tool.Declaration{Name: "x", Parameters: json.RawMessage(
			`{"type":"object","properties":{"a":{"$ref":"` + ref + `"}}}`)})
		if err == nil || !errors.Is(err, ErrExternalRef) && !strings.Contains(err.Error(), ErrExternalRef.Error()) {
			t.Errorf("ref %s: expected a refusal, got %v", ref, err)
		}
	}
	// A reference inside the schema itself is fine.
	if _, err := CompileSchema(tool.Declaration{Name: "x", Parameters: json.RawMessage(
		`{"type":"object","$defs":{"p":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/p"}}}`)}); err != nil {
		t.Errorf("internal ref refused: %v", err)
	}
	if _, err := CompileSchema(tool.Declaration{Name: "x", Parameters: json.RawMessage(`{"type":"array"}`)}); err == nil {
		t.Error("a schema for a non-object must be refused")
	}
	if _, err := CompileSchema(tool.Declaration{Name: "x", Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"type":"bogus"}}}`)}); err == nil {
		t.Error("a malformed schema must be refused")
	}
}

func TestUnreachable(t *testing.T) {
	got := Unreachable("read_fiel", []string{"read_file", "write_file"})
	if got != `There is no tool named "read_fiel", so nothing ran. Available tools: read_file, write_file.` {
		t.Errorf("got %q", got)
	}
	if !strings.HasSuffix(Unreachable("x", nil), "Available tools: none.") {
		t.Error("an empty catalogue must say none")
	}
}

func TestInvalidCall(t *testing.T) {
	calls := []tool.Call{{ID: "1", Name: "a"}, {ID: "2", Name: "b"}, {ID: "3", Name: "c"}}
	got := InvalidCall(calls, 1, "bad args")
	if len(got) != 3 {
		t.Fatalf("%d results", len(got))
	}
	if got[1].Content != "bad args" || got[1].CallID != "2" || !got[1].IsError {
		t.Errorf("invalid call result: %+v", got[1])
	}
	for _, i := range []int{0, 2} {
		if got[i].Content != PeerNotExecuted || got[i].CallID != calls[i].ID || !got[i].IsError {
			t.Errorf("peer %d: %+v", i, got[i])
		}
	}
	if InvalidCall(nil, 0, "x") != nil {
		t.Error("no calls must give no results")
	}
	if !strings.Contains(PeerNotExecuted, "none of that reply's calls ran") {
		t.Error("the peer notice must say none of the reply's calls ran")
	}
}

func TestNotFinished(t *testing.T) {
	read := tool.Reads(tool.Paths("/w/a"))
	write := tool.Writes(tool.Paths("/w/a"))
	cases := []struct {
		started bool
		touches tool.Touches
		want    string
	}{
		{false, write, "The call to edit was not run: the person stopped the turn. Nothing was done; call it again if it is still needed."},
		{true, read, "The call to edit started but did not finish: the person stopped the turn. It only reads, so it is safe to run again."},
		{true, write, "The call to edit started but did not finish: the person stopped the turn. It may have partly run; check what it changed before running it again."},
		{true, tool.Independent(), "The call to edit started but did not finish: the person stopped the turn. It may have partly run; check what it changed before running it again."},
	}
	for _, c := range cases {
		if got := NotFinished("edit", c.started, c.touches, "the person stopped the turn."); got != c.want {
			t.Errorf("started=%v %v:\n got %q\nwant %q", c.started, c.touches, got, c.want)
		}
	}
}

func TestOutputLimit(t *testing.T) {
	got := OutputLimit("write_file", `{"path":"big.txt","content":"aaaa`)
	want := "The call to write_file did not run: your reply reached the output limit while sending its arguments, " +
		"which were cut off after: `{\"path\":\"big.txt\",\"content\":\"aaaa`\nSending the same amount again would be cut off again. " +
		"Split the work into smaller calls (for example, write a large file in several parts)."
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestResults(t *testing.T) {
	c := tool.Call{ID: "c1", Name: "read_file"}
	m := ResultMessage(c, `{"looks":"like json"}`)
	if m.Content != `{"looks":"like json"}` || !m.IsError {
		t.Errorf("ResultMessage must keep text verbatim as an error: %+v", m)
	}
	ok := ResultOutput(c, tool.Succeeded(), "plain text")
	if ok.Content != "plain text" || ok.IsError {
		t.Errorf("success: %+v", ok)
	}
	js := ResultOutput(c, tool.Succeeded(), map[string]int{"n": 1})
	if js.Content != `{"n":1}` {
		t.Errorf("structured output: %q", js.Content)
	}
	for _, o := range []tool.Outcome{tool.Failed(tool.NotFound("x")), tool.Denied("no"), tool.Skipped("no")} {
		if !ResultOutput(c, o, "x").IsError {
			t.Errorf("%v must be an error result", o)
		}
	}
}

func TestPersonEdited(t *testing.T) {
	proposed := "a\nb\nc\nd\ne\nf\ng\n"
	actual := "a\nb\nc\nD\ne\nf\ng\n"
	got := PersonEdited("x.txt", proposed, actual)
	want := "The person edited your change to x.txt before approving it, so the file does not hold exactly what " +
		"you proposed. How the file now differs from your proposal (- your lines, + the person's):\n" +
		"@@ -1,7 +1,7 @@\n a\n b\n c\n-d\n+D\n e\n f\n g\n" +
		"Work from the file as it is now."
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	long := PersonEdited("big.txt", strings.Repeat("x\n", 10000), strings.Repeat("y\n", 10000))
	if len(long) > EditedDiffMax+1000 || !strings.Contains(long, "more bytes; read big.txt to see the rest") {
		t.Errorf("a long diff is not bounded: %d bytes", len(long))
	}
}

func TestBound(t *testing.T) {
	text := strings.Repeat("line of the start\n", 500) + "the middle\n" + strings.Repeat("line of the end\n", 500)
	if got, cut := Bound(text, len(text), "x"); cut || got != text {
		t.Fatal("a text that fits was cut")
	}
	got, cut := Bound(text, 2000, "read the rest with read_file's offset and limit.")
	if !cut || len(got) > 2000 || !strings.HasPrefix(got, "line of the start\n") || !strings.HasSuffix(got, "line of the end\n") {
		t.Fatalf("cut %v, %d bytes:\n%s", cut, len(got), got)
	}
	if !strings.Contains(got, "of this result were cut here: the whole was 16.6 KiB, and only its start and end are shown. "+
		"Read the rest with read_file's offset and limit. …]") || strings.Contains(got, "the middle") {
		t.Errorf("the note:\n%s", got)
	}
	// Never half a character.
	wide := strings.Repeat("日本語のテキスト", 1000)
	got, _ = Bound(wide, 1000, "")
	if !utf8.ValidString(got) {
		t.Error("a cut split a character")
	}
}
