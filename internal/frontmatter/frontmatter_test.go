package frontmatter

import (
	"errors"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name, text  string
		front, body string
		err         error
	}{
		{"block and body", "---\na: 1\n---\nBody.\n", "\na: 1\n", "Body.\n", nil},
		{"trailing blanks on the fences", "--- \t\na: 1\n---  \nBody.", "\na: 1\n", "Body.", nil},
		{"empty block", "---\n---\nBody.", "\n", "Body.", nil},
		{"closing fence ends the file", "---\na: 1\n---", "\na: 1\n", "", nil},
		{"only the first closing fence counts", "---\na: 1\n---\nx\n---\ny", "\na: 1\n", "x\n---\ny", nil},
		{"no block", "Body only.\n---\n", "", "", ErrMissing},
		{"empty text", "", "", "", ErrMissing},
		{"indented fence", " ---\na: 1\n---\n", "", "", ErrMissing},
		{"unclosed", "---\na: 1\nBody.\n", "", "", ErrUnclosed},
		{"fence with more on its line", "---\na: 1\n----\n", "", "", ErrUnclosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			front, body, err := Split(tt.text)
			if front != tt.front || body != tt.body || err != tt.err {
				t.Errorf("Split(%q) = %q, %q, %v; want %q, %q, %v", tt.text, front, body, err, tt.front, tt.body, tt.err)
			}
		})
	}
}

// TestSplitKeepsLineNumbers checks that a YAML error about the front matter
// names the line of the file, counting the opening fence as line 1.
func TestSplitKeepsLineNumbers(t *testing.T) {
	front, _, err := Split("---\na: 1\nb: [\n---\n")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Fields(front)
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("Fields error = %v, want one naming line 3", err)
	}
}

func TestFields(t *testing.T) {
	fields, err := Fields("\nname: review\nbase: &b main\nbranch: *b\nlist: [a, b]\n? [complex]\n: skipped\n")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for k, n := range fields {
		got[k] = n.Value
		if k == "list" && n.Kind != yaml.SequenceNode {
			t.Errorf("list is kind %v, want a sequence", n.Kind)
		}
	}
	want := map[string]string{"name": "review", "base": "main", "branch": "main", "list": ""}
	if len(got) != len(want) {
		t.Errorf("keys = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q (alias followed)", k, got[k], v)
		}
	}
}

func TestFieldsOfEmptyFrontMatter(t *testing.T) {
	for _, front := range []string{"", "\n", "\n# only a comment\n", "\n~\n", "\nnull\n"} {
		fields, err := Fields(front)
		if err != nil || fields == nil || len(fields) != 0 {
			t.Errorf("Fields(%q) = %v, %v; want an empty map", front, fields, err)
		}
	}
}

func TestFieldsErrors(t *testing.T) {
	long := strings.Repeat("k", 80)
	tests := []struct {
		front, want string
	}{
		{"\n- a\n- b\n", "its front matter is not a YAML mapping of keys to values"},
		{"\njust text\n", "its front matter is not a YAML mapping of keys to values"},
		{"\na: 1\nb: 2\na: 3\n", `its front matter sets "a" twice (line 4)`},
		{"\n" + long + ": 1\n" + long + ": 2\n", `its front matter sets "` + strings.Repeat("k", 69) + `…" twice (line 3)`},
	}
	for _, tt := range tests {
		_, err := Fields(tt.front)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Fields(%q) error = %v, want %q", tt.front, err, tt.want)
		} else if errors.Unwrap(err) != nil {
			t.Errorf("Fields(%q) error wraps %v, want nothing", tt.front, errors.Unwrap(err))
		}
	}
}

func TestFieldsWrapsYAMLErrors(t *testing.T) {
	_, err := Fields("\na: [unclosed\n")
	if err == nil {
		t.Fatal("Fields accepted invalid YAML")
	}
	const prefix = "the front matter is not valid YAML: "
	inner := errors.Unwrap(err)
	if inner == nil || err.Error() != prefix+inner.Error() {
		t.Errorf("error %q, wrapping %v; want %q before the parser's error, wrapped", err, inner, prefix)
	}
}
