package agents

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		path string
		data string
		want Definition
	}{
		{
			name: "Claude Code file with comma-separated tools and model sonnet",
			path: "/w/.claude/agents/code-reviewer.md",
			data: "---\n" +
				"name: code-reviewer\n" +
				"description: Reviews code for quality and security. Use after writing code.\n" +
				"tools: Read, Grep, Glob, Bash, TodoWrite, Read\n" +
				"model: sonnet\n" +
				"color: blue\n" +
				"permissionMode: default\n" +
				"---\n\n" +
				"You are a senior code reviewer.\n\n" +
				"Review the diff.\n",
			want: Definition{
				Name:        "code-reviewer",
				Description: "Reviews code for quality and security. Use after writing code.",
				Tools:       []string{"read_file", "grep", "glob", "run_shell"},
				Prompt:      "You are a senior code reviewer.\n\nReview the diff.",
				Source:      "/w/.claude/agents/code-reviewer.md",
			},
		},
		{
			name: "YAML list of tools, Claude Code names mapped, unknown ones kept",
			path: "writer.md",
			data: "---\n" +
				"name: writer\n" +
				"description: Writes docs.\n" +
				"tools:\n" +
				"  - Edit\n" +
				"  - MultiEdit\n" +
				"  - Write\n" +
				"  - LS\n" +
				"  - WebFetch\n" +
				"  - Task\n" +
				"  - NotebookEdit\n" +
				"  - WebSearch\n" +
				"  - custom_tool\n" +
				"  - write_file\n" +
				"model: inherit\n" +
				"---\n" +
				"Write well.",
			want: Definition{
				Name:        "writer",
				Description: "Writes docs.",
				Tools:       []string{"edit_file", "write_file", "list_dir", "web_fetch", "task", "custom_tool"},
				Prompt:      "Write well.",
				Source:      "writer.md",
			},
		},
		{
			name: "flow list and mcp__ names",
			path: "triage.md",
			data: "---\n" +
				"name: triage\n" +
				"description: Triages issues.\n" +
				"tools: [mcp__github__search_issues, 'mcp__fs__read_file', mcp__onlyserver, github__get_issue]\n" +
				"model: openai:gpt-5\n" +
				"---\n",
			want: Definition{
				Name:        "triage",
				Description: "Triages issues.",
				Tools:       []string{"github__search_issues", "fs__read_file", "mcp__onlyserver", "github__get_issue"},
				Model:       "openai:gpt-5",
				Source:      "triage.md",
			},
		},
		{
			name: "restricted Bash form kept whole, so it matches no tool",
			path: "git.md",
			data: "---\nname: git\ndescription: Commits.\ntools: Read, Bash(git add:*, git commit:*), mcp__x__y\nmodel: gpt-5\n---\n",
			want: Definition{
				Name:        "git",
				Description: "Commits.",
				Tools:       []string{"read_file", "Bash(git add:*, git commit:*)", "x__y"},
				Model:       "gpt-5",
				Source:      "git.md",
			},
		},
		{
			name: "omitted tools means every tool",
			path: "/a/helper.md",
			data: "---\nname: helper\ndescription: Helps.\nmodel: Opus\n---\nBe helpful.\n",
			want: Definition{Name: "helper", Description: "Helps.", AllTools: true, Prompt: "Be helpful.", Source: "/a/helper.md"},
		},
		{
			name: "null tools means every tool too",
			path: "h.md",
			data: "---\nname: h\ndescription: Helps.\ntools:\nmodel: haiku\n---\n",
			want: Definition{Name: "h", Description: "Helps.", AllTools: true, Source: "h.md"},
		},
		{
			name: "empty tools list means none",
			path: "t.md",
			data: "---\nname: thinker\ndescription: Thinks.\ntools: []\n---\n",
			want: Definition{Name: "thinker", Description: "Thinks.", Source: "t.md"},
		},
		{
			name: "only Claude-only tools leaves none",
			path: "t.md",
			data: "---\nname: planner\ndescription: Plans.\ntools: TodoWrite, ExitPlanMode\n---\n",
			want: Definition{Name: "planner", Description: "Plans.", Source: "t.md"},
		},
		{
			name: "name from the file name, folded description, CRLF and BOM",
			path: "/x/agents/doc_helper-2.md",
			data: "\uFEFF---\r\n" +
				"description: >\r\n" +
				"  Use this agent when\r\n" +
				"  docs need work.\r\n" +
				"\r\n" +
				"  Second paragraph\twith a tab.\r\n" +
				"tools: Read\r\n" +
				"---\r\n" +
				"Line one.\r\nLine two.\r\n",
			want: Definition{
				Name:        "doc_helper-2",
				Description: "Use this agent when docs need work. Second paragraph with a tab.",
				Tools:       []string{"read_file"},
				Prompt:      "Line one.\nLine two.",
				Source:      "/x/agents/doc_helper-2.md",
			},
		},
		{
			name: "escaped control characters made one line",
			path: "e.md",
			data: "---\nname: e\ndescription: \"a\\n\\tb\\u007f\\u009b\\u202e\"\ntools: \"Read,\\u001b[31mGrep\"\n---\n",
			want: Definition{Name: "e", Description: "a b", Tools: []string{"read_file", "\x1b[31mGrep"}, Source: "e.md"},
		},
		{
			name: "literal block description",
			path: "l.md",
			data: "---\nname: l\ndescription: |\n  First line.\n  Second line.\ntools: Grep\n---\n# Role\n\nSearch.\n",
			want: Definition{Name: "l", Description: "First line. Second line.", Tools: []string{"grep"}, Prompt: "# Role\n\nSearch.", Source: "l.md"},
		},
		{
			name: "empty body, closing line with trailing space, no final newline",
			path: "e.md",
			data: "---\nname: e\ndescription: d\n--- ",
			want: Definition{Name: "e", Description: "d", AllTools: true, Source: "e.md"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.path, []byte(tt.data))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse =\n%#v\nwant\n%#v", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	big := "---\nname: big\ndescription: d\n---\n" + strings.Repeat("x", MaxFileSize)
	tests := []struct {
		name string
		path string
		data string
		want string // the whole error message
	}{
		{
			name: "missing description",
			path: "/w/a.md",
			data: "---\nname: a\ntools: Read\n---\nbody",
			want: "agent file /w/a.md: it has no description",
		},
		{
			name: "blank description",
			path: "/w/a.md",
			data: "---\nname: a\ndescription: \"  \\n \"\n---\n",
			want: "agent file /w/a.md: it has no description",
		},
		{
			name: "null description",
			path: "/w/a.md",
			data: "---\nname: a\ndescription: ~\n---\n",
			want: "agent file /w/a.md: it has no description",
		},
		{
			name: "no front matter",
			path: "/w/plain.md",
			data: "# Just Markdown\n\n---\n",
			want: "agent file /w/plain.md: it does not start with a front matter block (---)",
		},
		{
			name: "empty file",
			path: "/w/empty.md",
			data: "",
			want: "agent file /w/empty.md: it does not start with a front matter block (---)",
		},
		{
			name: "front matter never closed",
			path: "/w/open.md",
			data: "---\nname: open\ndescription: d\n",
			want: "agent file /w/open.md: its front matter block is not closed by a line ---",
		},
		{
			name: "malformed YAML, line counted from the top of the file",
			path: "/w/bad.md",
			data: "---\nname: bad\ndescription: a: b\n---\n",
			want: "agent file /w/bad.md: the front matter is not valid YAML: yaml: line 3: mapping values are not allowed in this context",
		},
		{
			name: "malformed YAML, unclosed list",
			path: "/w/bad.md",
			data: "---\nname: bad\ndescription: [oops\n---\n",
			want: "agent file /w/bad.md: the front matter is not valid YAML: yaml: line 2: did not find expected ',' or ']'",
		},
		{
			name: "front matter that is not a mapping",
			path: "/w/list.md",
			data: "---\n- a\n- b\n---\n",
			want: "agent file /w/list.md: its front matter is not a YAML mapping of keys to values",
		},
		{
			name: "key set twice",
			path: "/w/dup.md",
			data: "---\nname: a\ndescription: d\nname: b\n---\n",
			want: "agent file /w/dup.md: its front matter sets \"name\" twice (line 4)",
		},
		{
			name: "name that is not lower-case",
			path: "/w/x.md",
			data: "---\nname: Code-Reviewer\ndescription: d\n---\n",
			want: "agent file /w/x.md: its name \"Code-Reviewer\" is not valid: " + nameRule,
		},
		{
			name: "name with a control character",
			path: "/w/x.md",
			data: "---\nname: \"a\\u001b[2Jb\"\ndescription: d\n---\n",
			want: "agent file /w/x.md: its name \"a\\x1b[2Jb\" is not valid: " + nameRule,
		},
		{
			name: "no name and a file name that cannot serve",
			path: "/w/My Agent.md",
			data: "---\ndescription: d\n---\n",
			want: "agent file /w/My Agent.md: it has no name, and its file name \"My Agent\" cannot serve as one: " + nameRule,
		},
		{
			name: "description that is a list",
			path: "/w/x.md",
			data: "---\nname: x\ndescription:\n  - a\n---\n",
			want: "agent file /w/x.md: its description is not text (line 4)",
		},
		{
			name: "tools that are a mapping",
			path: "/w/x.md",
			data: "---\nname: x\ndescription: d\ntools:\n  Read: true\n---\n",
			want: "agent file /w/x.md: its tools are neither a comma-separated string nor a list (line 5)",
		},
		{
			name: "tools list holding a list",
			path: "/w/x.md",
			data: "---\nname: x\ndescription: d\ntools:\n  - [Read]\n---\n",
			want: "agent file /w/x.md: its tools list holds something other than a name (line 5)",
		},
		{
			name: "model with a line break",
			path: "/w/x.md",
			data: "---\nname: x\ndescription: d\nmodel: \"openai:gpt-5\\nrm -rf\"\n---\n",
			want: "agent file /w/x.md: its model \"openai:gpt-5\\nrm -rf\" contains control characters or line breaks",
		},
		{
			name: "file larger than 256 KiB",
			path: "/w/big.md",
			data: big,
			want: "agent file /w/big.md: is larger than 256 KiB",
		},
		{
			name: "control characters in the path",
			path: "/w/evil\x1b]52;c;aGk=\a\n.md",
			data: "nothing",
			want: "agent file /w/evil ]52;c;aGk= .md: it does not start with a front matter block (---)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse(tt.path, []byte(tt.data))
			if err == nil {
				t.Fatalf("Parse = %#v, want error %q", d, tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error =\n%q\nwant\n%q", got, tt.want)
			}
			checkOneLine(t, err.Error())
		})
	}
}

func TestParseYAMLErrorUnwraps(t *testing.T) {
	_, err := Parse("x.md", []byte("---\n: : :\n\t- x\n---\n"))
	if err == nil {
		t.Fatal("Parse accepted invalid YAML")
	}
	if errors.Unwrap(err) == nil {
		t.Errorf("error %q does not wrap the YAML error", err)
	}
	checkOneLine(t, err.Error())
}

// checkOneLine fails the test if s holds a line break or another control
// character.
func checkOneLine(t *testing.T, s string) {
	t.Helper()
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			t.Errorf("%q holds control character %U", s, r)
			return
		}
	}
}

// writeFiles writes name → content into dir, creating it.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func agentFile(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\ntools: Read\n---\nPrompt of " + name + ".\n"
}

func TestLoad(t *testing.T) {
	root := t.TempDir()
	user := filepath.Join(root, "config", "agents")
	claude := filepath.Join(root, "ws", ".claude", "agents")
	own := filepath.Join(root, "ws", ".agenttui", "agents")
	missing := filepath.Join(root, "nowhere")

	writeFiles(t, user, map[string]string{
		"shared.md":    agentFile("shared", "From the user folder."),
		"bad.md":       "---\nname: bad\ndescription: [oops\n---\n",
		"nodesc.md":    "---\nname: nodesc\n---\n",
		"user-only.md": agentFile("user-only", "Only in the user folder."),
		".hidden.md":   agentFile("hidden", "Hidden."),
		"notes.txt":    agentFile("notes", "Not Markdown."),
		"README":       "nothing",
	})
	if err := os.Mkdir(filepath.Join(user, "dir.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, claude, map[string]string{
		"shared.md":  agentFile("shared", "From .claude."),
		"explore.md": agentFile("explore", "A custom explorer."),
		"a.md":       agentFile("twin", "First twin."),
		"b.md":       agentFile("twin", "Second twin."),
	})
	writeFiles(t, own, map[string]string{
		"other-file-name.md": agentFile("shared", "From .agenttui."),
	})

	defs, notices := Load(user, missing, claude, "", own)

	if got, want := Names(defs), []string{"explore", "shared", "twin", "user-only"}; !slices.Equal(got, want) {
		t.Errorf("names = %q, want %q", got, want)
	}
	wantSource := map[string]string{
		"explore":   filepath.Join(claude, "explore.md"),
		"shared":    filepath.Join(own, "other-file-name.md"),
		"twin":      filepath.Join(claude, "b.md"),
		"user-only": filepath.Join(user, "user-only.md"),
	}
	for _, d := range defs {
		if d.Source != wantSource[d.Name] {
			t.Errorf("%s comes from %s, want %s", d.Name, d.Source, wantSource[d.Name])
		}
	}
	if d, _ := Find(defs, "shared"); d.Description != "From .agenttui." || d.Prompt != "Prompt of shared." {
		t.Errorf("shared = %#v, want the .agenttui one", d)
	}

	wantNotices := []string{
		"agent file " + filepath.Join(user, "bad.md") + ": the front matter is not valid YAML: yaml: line 2: did not find expected ',' or ']'",
		"agent file " + filepath.Join(user, "nodesc.md") + ": it has no description",
		"agent file " + filepath.Join(claude, "b.md") + ": the name twin is also used by " + filepath.Join(claude, "a.md") + " in the same folder; this file wins",
	}
	if !slices.Equal(notices, wantNotices) {
		t.Errorf("notices =\n%s\nwant\n%s", strings.Join(notices, "\n"), strings.Join(wantNotices, "\n"))
	}
	for _, n := range notices {
		checkOneLine(t, n)
	}

	// Laid over the built-ins, the custom explore wins and general stays.
	all := Merge(Builtins(), defs)
	if got, want := Names(all), []string{"explore", "general", "shared", "twin", "user-only"}; !slices.Equal(got, want) {
		t.Errorf("merged names = %q, want %q", got, want)
	}
	if e, _ := Find(all, "explore"); e.Source == BuiltinSource || e.ReadOnlyMCP {
		t.Errorf("explore = %#v, want the file's", e)
	}
}

func TestLoadOrderDecides(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	writeFiles(t, a, map[string]string{"x.md": agentFile("x", "From a.")})
	writeFiles(t, b, map[string]string{"x.md": agentFile("x", "From b.")})
	for _, tt := range []struct {
		dirs []string
		want string
	}{
		{[]string{a, b}, "From b."},
		{[]string{b, a}, "From a."},
	} {
		defs, notices := Load(tt.dirs...)
		if len(notices) != 0 || len(defs) != 1 || defs[0].Description != tt.want {
			t.Errorf("Load(%q) = %#v, %q; want only x %q", tt.dirs, defs, notices, tt.want)
		}
	}
}

func TestLoadLimits(t *testing.T) {
	root := t.TempDir()

	many := filepath.Join(root, "many")
	files := make(map[string]string)
	for i := range MaxFilesPerDir + 5 {
		name := fmt.Sprintf("a%03d", i)
		files[name+".md"] = agentFile(name, "Agent "+name+".")
	}
	writeFiles(t, many, files)

	big := filepath.Join(root, "big")
	writeFiles(t, big, map[string]string{
		"big.md": "---\nname: big\ndescription: d\n---\n" + strings.Repeat("x", MaxFileSize),
		"ok.md":  agentFile("ok", "Fine."),
		// Exactly at the limit is still accepted.
		"edge.md": func() string {
			head := "---\nname: edge\ndescription: d\n---\n"
			return head + strings.Repeat("y", MaxFileSize-len(head))
		}(),
	})

	notAFolder := filepath.Join(root, "file")
	if err := os.WriteFile(notAFolder, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	defs, notices := Load(many, big, notAFolder)
	if got, want := len(defs), MaxFilesPerDir+2; got != want {
		t.Errorf("loaded %d definitions, want %d", got, want)
	}
	if _, ok := Find(defs, "a199"); !ok {
		t.Error("a199 missing")
	}
	if _, ok := Find(defs, "a200"); ok {
		t.Error("a200 loaded beyond the limit")
	}
	if e, ok := Find(defs, "edge"); !ok || len(e.Prompt) == 0 {
		t.Error("a file of exactly MaxFileSize bytes was not loaded")
	}
	if len(notices) != 3 {
		t.Fatalf("notices = %q, want 3", notices)
	}
	if want := "agent folder " + many + ": has 205 agent files; only the first 200 by name are loaded"; notices[0] != want {
		t.Errorf("notice = %q, want %q", notices[0], want)
	}
	if want := "agent file " + filepath.Join(big, "big.md") + ": is larger than 256 KiB"; notices[1] != want {
		t.Errorf("notice = %q, want %q", notices[1], want)
	}
	if !strings.HasPrefix(notices[2], "agent folder "+notAFolder+": cannot be read: ") {
		t.Errorf("notice = %q, want one saying the folder cannot be read", notices[2])
	}
	for _, n := range notices {
		checkOneLine(t, n)
	}
}

func TestLoadSanitizesFileNames(t *testing.T) {
	dir := t.TempDir()
	name := "evil\x1b[31m\tname.md"
	if err := os.WriteFile(filepath.Join(dir, name), []byte("no front matter"), 0o644); err != nil {
		t.Skipf("file system refuses the name: %v", err)
	}
	_, notices := Load(dir)
	if len(notices) != 1 {
		t.Fatalf("notices = %q, want 1", notices)
	}
	checkOneLine(t, notices[0])
	if want := "evil [31m name.md: it does not start"; !strings.Contains(notices[0], want) {
		t.Errorf("notice %q does not contain %q", notices[0], want)
	}
}

func TestBuiltinsAndAllows(t *testing.T) {
	b := Builtins()
	if got := Names(b); !slices.Equal(got, []string{"explore", "general"}) {
		t.Fatalf("Builtins names = %q", got)
	}
	explore, general := b[0], b[1]
	if !explore.ReadOnlyMCP || general.ReadOnlyMCP {
		t.Error("only explore should reach read-only MCP tools")
	}
	for _, d := range b {
		if d.Source != BuiltinSource || d.Prompt != "" || d.Model != "" || d.AllTools || d.Description == "" {
			t.Errorf("built-in %#v", d)
		}
	}
	// Builtins hands out copies.
	Builtins()[0].Tools[0] = "changed"
	if Builtins()[0].Tools[0] != "read_file" {
		t.Error("changing Builtins' result changed the next call's")
	}

	custom, err := Parse("c.md", []byte("---\nname: c\ndescription: d\ntools: Read, mcp__gh__list_issues, Task\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	everything := Definition{Name: "all", AllTools: true}
	nothing := Definition{Name: "none"}

	tests := []struct {
		def  Definition
		tool string
		want bool
	}{
		{explore, "read_file", true},
		{explore, "list_dir", true},
		{explore, "glob", true},
		{explore, "grep", true},
		{explore, "write_file", false},
		{explore, "edit_file", false},
		{explore, "run_shell", false},
		{explore, "gh__list_issues", false}, // ReadOnlyMCP is the runtime's to apply
		{explore, "task", false},
		{general, "read_file", true},
		{general, "write_file", true},
		{general, "edit_file", true},
		{general, "run_shell", true},
		{general, "web_fetch", false},
		{general, "gh__list_issues", false},
		{general, "task", false},
		{custom, "read_file", true},
		{custom, "gh__list_issues", true},
		{custom, "mcp__gh__list_issues", false},
		{custom, "gh__create_issue", false},
		{custom, "grep", false},
		{custom, "task", false}, // listed, but never allowed
		{everything, "run_shell", true},
		{everything, "gh__create_issue", true},
		{everything, "task", false},
		{everything, "", false},
		{nothing, "read_file", false},
	}
	for _, tt := range tests {
		if got := tt.def.Allows(tt.tool); got != tt.want {
			t.Errorf("%s.Allows(%q) = %v, want %v", tt.def.Name, tt.tool, got, tt.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	long := strings.Repeat("é", DescribeRunes+50)
	var tools []string
	for i := range 13 {
		tools = append(tools, fmt.Sprintf("srv__t%02d", i))
	}
	defs := append(Builtins(),
		Definition{Name: "zeta", Description: "Does\nanything\x1b[31m.", AllTools: true},
		Definition{Name: "alpha", Description: long, Tools: tools},
		Definition{Name: "mute", Description: "Only thinks.", Tools: []string{"task"}},
		Definition{Name: "bare"},
	)
	want := "- alpha: " + strings.Repeat("é", DescribeRunes-1) + "… (tools: srv__t00, srv__t01, srv__t02, srv__t03, srv__t04, srv__t05, srv__t06, srv__t07, srv__t08, srv__t09, and 3 more)\n" +
		"- bare (tools: none)\n" +
		"- explore: Searches and reads the workspace to answer a question or gather context; changes nothing. Give it one focused question and say what it should report back. (tools: read_file, list_dir, glob, grep, read-only MCP tools)\n" +
		"- general: Carries out a self-contained, multi-step task in the workspace: reads, edits and writes files and runs shell commands. It may change only the paths the task declares in writes. (tools: read_file, list_dir, glob, grep, write_file, edit_file, run_shell)\n" +
		"- mute: Only thinks. (tools: none)\n" +
		"- zeta: Does anything [31m. (tools: all)"
	got := Describe(defs)
	if got != want {
		t.Errorf("Describe =\n%s\nwant\n%s", got, want)
	}
	// The input order does not matter, and the input is not reordered.
	reversed := slices.Clone(defs)
	slices.Reverse(reversed)
	if Describe(reversed) != want {
		t.Error("Describe depends on the order of its input")
	}
	if defs[0].Name != "explore" {
		t.Error("Describe reordered its argument")
	}
	for _, line := range strings.Split(got, "\n") {
		checkOneLine(t, line)
	}
	if Describe(nil) != "" {
		t.Error("Describe(nil) is not empty")
	}
}

func TestMergeFindNames(t *testing.T) {
	base := Builtins()
	override := []Definition{{Name: "general", Description: "Mine.", Source: "g.md"}, {Name: "alpha", Description: "A."}}
	later := []Definition{{Name: "alpha", Description: "A2."}}
	got := Merge(base, override, later)
	if names := Names(got); !slices.Equal(names, []string{"alpha", "explore", "general"}) {
		t.Fatalf("names = %q", names)
	}
	if g, _ := Find(got, "general"); g.Source != "g.md" {
		t.Errorf("general = %#v, want the override", g)
	}
	if a, _ := Find(got, "alpha"); a.Description != "A2." {
		t.Errorf("alpha = %#v, want the latest", a)
	}
	if base[1].Source != BuiltinSource || override[0].Name != "general" {
		t.Error("Merge changed its arguments")
	}
	if _, ok := Find(got, "missing"); ok {
		t.Error("Find found a missing name")
	}
	if d, ok := Find([]Definition{{Name: "x", Description: "1"}, {Name: "x", Description: "2"}}, "x"); !ok || d.Description != "2" {
		t.Errorf("Find with duplicates = %#v, want the last", d)
	}
	if len(Names(nil)) != 0 || len(Merge(nil)) != 0 {
		t.Error("empty input gives non-empty output")
	}
}
