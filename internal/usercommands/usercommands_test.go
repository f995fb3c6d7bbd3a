package usercommands

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

// write writes files (path → text) below dir.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

var builtins = []string{"help", "mode", "model", "clear", "quit"}

func TestLoadOverridesAndNamespaces(t *testing.T) {
	root := t.TempDir()
	personal, config, claude, ours := filepath.Join(root, "home"), filepath.Join(root, "config"),
		filepath.Join(root, "ws", ".claude"), filepath.Join(root, "ws", ".agenttui")
	write(t, personal, map[string]string{
		"review.md":  "Review the code.",
		"fix.md":     "---\ndescription: personal fix\n---\nFix it.",
		"notes.txt":  "not a command",
		".hidden.md": "hidden",
	})
	write(t, config, map[string]string{"fix.md": "---\ndescription: configured fix\n---\nFix it better."})
	write(t, claude, map[string]string{
		"fix.md": "---\ndescription: project fix\nargument-hint: [issue-number] [priority]\nmodel: openai:gpt-5\n" +
			"allowed-tools: Bash(git add:*), Bash(git status:*)\n---\n\nFix issue #$1 with priority $2.\n",
		"frontend/component.md":   "# Make a component\n\nMake a $ARGUMENTS component.",
		"frontend/.drafts/wip.md": "not loaded: a hidden folder",
		"frontend/deep/nested.md": "Deeply nested.",
	})
	write(t, ours, map[string]string{"ship.md": "Ship it."})
	dirs := []Dir{{Path: personal}, {Path: config}, {Path: claude, Project: true},
		{Path: filepath.Join(root, "missing")}, {Path: ours, Project: true}}

	cmds, notices := Load(dirs, builtins)
	if len(notices) != 0 {
		t.Fatalf("notices: %q", notices)
	}
	want := []Command{
		{Name: "fix", Description: "project fix", ArgumentHint: "[issue-number] [priority]", Model: "openai:gpt-5",
			Body: "Fix issue #$1 with priority $2.", Path: filepath.Join(claude, "fix.md"), Project: true},
		{Name: "frontend:component", Description: "Make a component", Body: "# Make a component\n\nMake a $ARGUMENTS component.",
			Path: filepath.Join(claude, "frontend", "component.md"), Project: true},
		{Name: "frontend:deep:nested", Description: "Deeply nested.", Body: "Deeply nested.",
			Path: filepath.Join(claude, "frontend", "deep", "nested.md"), Project: true},
		{Name: "review", Description: "Review the code.", Body: "Review the code.", Path: filepath.Join(personal, "review.md")},
		{Name: "ship", Description: "Ship it.", Body: "Ship it.", Path: filepath.Join(ours, "ship.md"), Project: true},
	}
	if !reflect.DeepEqual(cmds, want) {
		t.Fatalf("Load gave\n%#v\nwant\n%#v", cmds, want)
	}

	// Without the project's folders, the configuration folder's fix
	// replaces the person's.
	cmds, _ = Load(dirs[:2], builtins)
	if cmds[0].Name != "fix" || cmds[0].Description != "configured fix" || cmds[0].Project {
		t.Fatalf("the later folder's fix did not win: %+v", cmds[0])
	}
}

func TestLoadNotices(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"good.md":        "---\ndescription: still loads\n---\nGood.",
		"badyaml.md":     "---\ndescription: [unclosed\n---\nBody.",
		"unclosed.md":    "---\ndescription: x\nBody.",
		"help.md":        "Shadow the help.",
		"with space.md":  "Bad name.",
		"sub dir/x.md":   "Bad folder name.",
		"multiline.md":   "---\ndescription: |\n  two\n  lines\n---\nBody.",
		"escape.md":      "---\ndescription: \"red \\e[31m\"\n---\nBody.",
		"hintescape.md":  "---\nargument-hint: a\tb\n---\nBody.",
		"notext.md":      "---\ndescription: nothing\n---\n\n",
		"list.md":        "---\ndescription:\n  - a\n---\nBody.",
		"big.md":         strings.Repeat("x", MaxFileSize+1),
		"twice.md":       "---\nargument-hint: a\nargument-hint: b\n---\nBody.",
		"notamapping.md": "---\n- a\n---\nBody.",
	})
	cmds, notices := Load([]Dir{{Path: dir}}, builtins)
	if len(cmds) != 1 || cmds[0].Name != "good" {
		t.Fatalf("loaded %+v, want only good", cmds)
	}
	p := func(name string) string { return filepath.Join(dir, name) + ": " }
	want := []string{
		p("badyaml.md") + "the front matter is not valid YAML: yaml: line ",
		p("big.md") + "is larger than 256 KiB",
		p("escape.md") + `its description "red \x1b[31m" holds a line break or a control character`,
		p("help.md") + "/help is a built-in command, so this file is not used; rename it",
		p("hintescape.md") + "its argument-hint",
		p("list.md") + "its description is not text (line 3)",
		p("multiline.md") + "its description \"two\\nlines\" holds a line break",
		p("notamapping.md") + "its front matter is not a YAML mapping",
		p("notext.md") + "has no text after its front matter",
		p("sub dir/x.md") + `"sub dir:x" cannot be a command's name`,
		p("twice.md") + "its front matter sets argument-hint twice",
		p("unclosed.md") + "its front matter block is not closed by a line ---",
		p("with space.md") + `"with space" cannot be a command's name`,
	}
	if len(notices) != len(want) {
		t.Fatalf("%d notices, want %d:\n%s", len(notices), len(want), strings.Join(notices, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(notices[i], w) {
			t.Errorf("notice %d is\n%s\nwant it to begin\n%s", i, notices[i], w)
		}
		if strings.ContainsFunc(notices[i], isControl) {
			t.Errorf("notice %d holds a control character: %q", i, notices[i])
		}
	}
}

func TestLoadFolderProblems(t *testing.T) {
	dir := t.TempDir()
	notADir := filepath.Join(dir, "file")
	write(t, dir, map[string]string{"file": "x"})
	_, notices := Load([]Dir{{Path: notADir}}, nil)
	if len(notices) != 1 || !strings.Contains(notices[0], "is not a folder") {
		t.Fatalf("notices %q", notices)
	}
	// A file that cannot be read, and one that is not a regular file,
	// each get one notice naming them.
	odd := filepath.Join(dir, "odd")
	write(t, odd, map[string]string{"fine.md": "Fine."})
	if err := os.Symlink(filepath.Join(odd, "gone"), filepath.Join(odd, "dangling.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(odd, "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmds, notices := Load([]Dir{{Path: odd}}, nil)
	wantNotices := []string{
		filepath.Join(odd, "dangling.md") + ": cannot be read: no such file or directory",
		filepath.Join(odd, "fifo.md") + ": is not a regular file",
	}
	if len(cmds) != 1 || !reflect.DeepEqual(notices, wantNotices) {
		t.Fatalf("commands %+v, notices %q", cmds, notices)
	}
	// Two files of one folder that make the same name: the later wins,
	// and the notice says so.
	write(t, dir, map[string]string{"cmds/a:b.md": "top", "cmds/a/b.md": "nested"})
	cmds, notices = Load([]Dir{{Path: filepath.Join(dir, "cmds")}}, nil)
	if len(cmds) != 1 || len(notices) != 1 || !strings.Contains(notices[0], "is also made by") {
		t.Fatalf("commands %+v, notices %q", cmds, notices)
	}
}

func TestDirs(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	want := []Dir{
		{Path: filepath.Join(home, ".claude", "commands")},
		{Path: filepath.Join(home, ".config", "agenttui", "commands")},
		{Path: filepath.Join("/w", ".claude", "commands"), Project: true},
		{Path: filepath.Join("/w", ".agenttui", "commands"), Project: true},
	}
	if got := Dirs("/w"); !reflect.DeepEqual(got, want) {
		t.Fatalf("Dirs = %+v, want %+v", got, want)
	}
	t.Setenv("XDG_CONFIG_HOME", "/cfg")
	if got := Dirs(""); len(got) != 2 || got[1].Path != filepath.Join("/cfg", "agenttui", "commands") {
		t.Fatalf("Dirs without a workspace = %+v", got)
	}
	// In the home folder, its .claude/commands is the person's own.
	got := Dirs(home)
	if len(got) != 3 || got[0].Project || !got[2].Project || got[2].Path != filepath.Join(home, ".agenttui", "commands") {
		t.Fatalf("Dirs(home) = %+v", got)
	}
}

func TestParseFields(t *testing.T) {
	tests := []struct {
		name, data string
		want       Command
	}{
		{"no front matter", "\n\n  Explain this code  \n\nin detail.\n",
			Command{Description: "Explain this code", Body: "Explain this code  \n\nin detail."}},
		{"quoted hint and a Claude model", "\uFEFF---\r\nargument-hint: \"<file>\"\r\nmodel: claude-haiku-4-5\r\n---\r\nRead $1.",
			Command{ArgumentHint: "<file>", Model: "anthropic:claude-haiku-4-5", Description: "Read $1.", Body: "Read $1."}},
		{"alias model and empty description", "---\ndescription:\nmodel: haiku\n---\n## Summarise\nthe log",
			Command{Description: "Summarise", Body: "## Summarise\nthe log"}},
		{"long first line", "---\n---\n" + strings.Repeat("word ", 30),
			Command{Description: strings.TrimSpace(strings.Repeat("word ", 16)) + "…", Body: strings.TrimSpace(strings.Repeat("word ", 30))}},
		{"hint with a pipe", "---\nargument-hint: add [tagId] | remove [tagId] | list\n---\nTags.",
			Command{ArgumentHint: "add [tagId] | remove [tagId] | list", Description: "Tags.", Body: "Tags."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parse([]byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("parse gave\n%#v\nwant\n%#v", got, tt.want)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	tests := []struct {
		name, body, args, want string
	}{
		{"arguments", "Fix issue $ARGUMENTS now; again: $ARGUMENTS", "  123 high ", "Fix issue 123 high now; again: 123 high"},
		{"positional with quotes", "Review PR #$1 with priority $2 and note $3.", `456 "very high" 'a b'`,
			"Review PR #456 with priority very high and note a b."},
		{"missing positional", "From $1 to $2.", "here", "From here to ."},
		{"no args at all", "From $1 to $ARGUMENTS.", "", "From  to ."},
		{"no placeholders, args appended", "Write the release notes.", "for v2", "Write the release notes.\n\nARGUMENTS: for v2"},
		{"no placeholders, no args", "Write the release notes.", "  ", "Write the release notes."},
		{"shell line stays literal", "## Context\n\n- Now: !`date`\n- Read @notes.md\n\nDo $ARGUMENTS", "it",
			"## Context\n\n- Now: !`date`\n- Read @notes.md\n\nDo it"},
		{"dollar amounts are not placeholders", "It costs $100 and $ and $0.", "x", "It costs $100 and $ and $0.\n\nARGUMENTS: x"},
		{"what is put in is not read again", "$1 then $2", "$2 $ARGUMENTS", "$2 then $ARGUMENTS"},
		{"unclosed quote runs to the end", "[$1] [$2]", `a "b c`, "[a] [b c]"},
		{"quotes join a word", "[$1]", `x"y z"'w'`, "[xy zw]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (Command{Body: tt.body}).Expand(tt.args); got != tt.want {
				t.Fatalf("Expand(%q) = %q, want %q", tt.args, got, tt.want)
			}
		})
	}
}
