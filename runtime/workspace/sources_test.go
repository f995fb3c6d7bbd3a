package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime/tool"
)

// sourcesEnv is a workspace whose session began at start, holding old.txt
// (last changed before it) and sub/new.txt (changed after it).
func sourcesEnv(t *testing.T) (*env, time.Time) {
	t.Helper()
	e := newEnv(t)
	e.write("old.txt", "needle in an old file\n")
	e.write("sub/new.txt", "needle in a new file\n")
	past := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(filepath.Join(e.root, "old.txt"), past, past); err != nil {
		t.Fatal(err)
	}
	// The session begins after every file above was last changed (its
	// change time included) …
	start := time.Now().Add(time.Millisecond)
	e.ws.SetSessionStart(start)
	// … and sub/new.txt is changed after it began.
	later := start.Add(time.Hour)
	if err := os.Chtimes(filepath.Join(e.root, "sub/new.txt"), later, later); err != nil {
		t.Fatal(err)
	}
	return e, start
}

func workspaceSrc(name string, fresh bool) tool.Source {
	return tool.Source{Kind: tool.SourceWorkspace, Name: name, Fresh: fresh}
}

func TestReadFileSource(t *testing.T) {
	e, _ := sourcesEnv(t)
	wantSource(t, e.call("read_file", map[string]any{"path": "old.txt"}), workspaceSrc("old.txt", false))
	wantSource(t, e.call("read_file", map[string]any{"path": "./sub/../sub/new.txt"}), workspaceSrc("sub/new.txt", true))
	wantSource(t, e.call("read_file", map[string]any{"path": filepath.Join(e.root, "sub/new.txt")}), workspaceSrc("sub/new.txt", true))
	// A link is named by the file it leads to.
	e.symlink("sub/new.txt", "link.txt")
	wantSource(t, e.call("read_file", map[string]any{"path": "link.txt"}), workspaceSrc("sub/new.txt", true))
	// A failure is agenttui's own message.
	if r := e.call("read_file", map[string]any{"path": "missing.txt"}); r.Source != nil {
		t.Errorf("a missing file has source %+v", r.Source)
	}

	// Without a session start, nothing is fresh.
	e.ws.SetSessionStart(time.Time{})
	wantSource(t, e.call("read_file", map[string]any{"path": "sub/new.txt"}), workspaceSrc("sub/new.txt", false))
}

// TestReadFileFreshByChangeTime checks that a file whose modification time
// was set back is fresh still: its change time says when that happened.
func TestReadFileFreshByChangeTime(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the change time is read on Linux only")
	}
	e := newEnv(t)
	e.ws.SetSessionStart(time.Now().Add(-time.Hour))
	e.write("unpacked.txt", "from an archive\n")
	past := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(filepath.Join(e.root, "unpacked.txt"), past, past); err != nil {
		t.Fatal(err)
	}
	wantSource(t, e.call("read_file", map[string]any{"path": "unpacked.txt"}), workspaceSrc("unpacked.txt", true))
}

func TestSearchSources(t *testing.T) {
	e, _ := sourcesEnv(t)
	// grep is fresh when a file it prints a line of is.
	wantSource(t, e.call("grep", map[string]any{"pattern": "old file"}), workspaceSrc(".", false))
	wantSource(t, e.call("grep", map[string]any{"pattern": "needle"}), workspaceSrc(".", true))
	wantSource(t, e.call("grep", map[string]any{"pattern": "needle", "path": "sub"}), workspaceSrc("sub", true))
	wantSource(t, e.call("grep", map[string]any{"pattern": "needle", "path": "old.txt"}), workspaceSrc("old.txt", false))
	wantSource(t, e.call("grep", map[string]any{"pattern": "nothing matches this"}), workspaceSrc(".", false))

	// list_dir and glob are fresh when an entry they list is.
	wantSource(t, e.call("list_dir", map[string]any{}), workspaceSrc(".", false))
	wantSource(t, e.call("list_dir", map[string]any{"path": "sub"}), workspaceSrc("sub", true))
	wantSource(t, e.call("glob", map[string]any{"pattern": "*.txt"}), workspaceSrc(".", false))
	wantSource(t, e.call("glob", map[string]any{"pattern": "**/*.txt"}), workspaceSrc(".", true))
}

func TestShellAndWriteSources(t *testing.T) {
	e, _ := sourcesEnv(t)
	wantSource(t, e.call("run_shell", map[string]any{"command": "cat old.txt"}), tool.Source{Kind: tool.SourceShell})
	r := e.call("run_shell", map[string]any{"command": "echo no; exit 2"})
	wantKind(t, r, tool.KindOther, "no")
	wantSource(t, r, tool.Source{Kind: tool.SourceShell})
	// write_file and edit_file report in agenttui's own words.
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"write_file", map[string]any{"path": "w.txt", "content": "x\n"}},
		{"edit_file", map[string]any{"path": "w.txt", "old": "x", "new": "y"}},
	} {
		r := e.call(c.name, c.args)
		wantSuccess(t, r)
		if r.Source != nil {
			t.Errorf("%s has source %+v", c.name, r.Source)
		}
	}
}

// TestShellReadingANewFile checks that a command's output is fresh when it
// may show a file new since the session began, however the command reads
// it, as read_file's result would be; and not for an old file, for a file
// the command only wrote, or without a session start.
func TestShellReadingANewFile(t *testing.T) {
	e, start := sourcesEnv(t)
	dropped := filepath.Join(e.outside, "dropped.txt")
	writeAt(t, dropped, "a file dropped outside the workspace\n")
	if later := start.Add(time.Hour); os.Chtimes(dropped, later, later) != nil {
		t.Fatal("could not date the dropped file")
	}
	shell := func(fresh bool) tool.Source { return tool.Source{Kind: tool.SourceShell, Fresh: fresh} }
	commands := []struct {
		command string
		fresh   bool
	}{
		{"cat sub/new.txt", true},
		{"head -n 1 sub/new.txt", true},
		{"sed -n p sub/new.txt", true},
		{"cat sub/*.txt", true},
		{`cat<"sub/new.txt"`, true},
		{"tr a-z A-Z < sub/new.txt", true},
		{"python3 -c \"print(open('sub/new.txt').read())\"", true},
		{"cat " + dropped, true},
		{"cat old.txt", false},
		{"wc -c old.txt", false},
		// Files the command itself makes count when it prints them.
		{"cp old.txt copy.txt && cat copy.txt", true},
		{"cp old.txt built.txt", false},
		{"cat old.txt > out.txt", false},
		// … and once made, they are new files like any other.
		{"cat built.txt", true},
		{"ln -s old.txt link.txt && cat link.txt", true},
	}
	if _, err := exec.LookPath("less"); err == nil {
		commands = append(commands, struct {
			command string
			fresh   bool
		}{"less sub/new.txt", true})
	}
	for _, c := range commands {
		r := e.call("run_shell", map[string]any{"command": c.command})
		wantSuccess(t, r)
		if r.Source == nil || *r.Source != shell(c.fresh) {
			t.Errorf("%s: source %+v, want %+v", c.command, r.Source, shell(c.fresh))
		}
	}
	// Without a session start, nothing is fresh.
	e.ws.SetSessionStart(time.Time{})
	wantSource(t, e.call("run_shell", map[string]any{"command": "cat sub/new.txt"}), shell(false))
}

// TestCommandWords checks how a command is split into the words that may
// name files.
func TestCommandWords(t *testing.T) {
	got := commandWords(`cat<"a.txt" --file=b.txt | sed -n 1,2p c.txt; x $(cat d.txt) open('e.txt')`, 100)
	for _, w := range []string{"a.txt", "b.txt", "c.txt", "d.txt", "e.txt", "1", "2p"} {
		if !slices.Contains(got, w) {
			t.Errorf("no word %q in %q", w, got)
		}
	}
	if got := commandWords("a b c d a", 3); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("bounded words: %q", got)
	}
}
