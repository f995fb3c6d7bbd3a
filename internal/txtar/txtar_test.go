package txtar

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseFormatUnpack(t *testing.T) {
	data, err := os.ReadFile("testdata/sample.txtar")
	if err != nil {
		t.Fatal(err)
	}
	a, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if string(a.Comment) != "A comment: the files below make a tiny project.\n" || len(a.Files) != 3 ||
		a.Files[1].Name != "src/main.go" || string(a.Files[1].Data) != "package main\n\nfunc main() {}\n" {
		t.Fatalf("parsed %q, %+v", a.Comment, a.Files)
	}
	if !bytes.Equal(Format(a), data) {
		t.Fatalf("formatted again:\n%s", Format(a))
	}
	dir := t.TempDir()
	if err := a.Unpack(dir); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "docs", "a", "b.txt"))
	if err != nil || string(got) != "nested\n" {
		t.Fatalf("unpacked docs/a/b.txt: %q, %v", got, err)
	}
}

func TestParseRefusesNamesThatLeaveTheFolder(t *testing.T) {
	cases := map[string]string{
		"-- /etc/passwd --\nx\n":        `file "/etc/passwd": an absolute path`,
		"-- ../up.txt --\nx\n":          `file "../up.txt": the name leaves the folder`,
		"-- a/../../up.txt --\nx\n":     `file "a/../../up.txt": the name leaves the folder`,
		"-- a/./b --\nx\n":              `file "a/./b": not a clean path (write it "a/b")`,
		"-- a\\b --\nx\n":               `file "a\\b": a backslash in a name`,
		"-- a --\nx\n-- a --\ny\n":      `file "a": the archive holds it twice`,
		"-- a --\nx\n-- a/b --\ny\n":    `file "a/b": the archive also holds a file named "a"`,
		"-- a/b --\nx\n-- a --\ny\n":    `file "a": the archive also holds files inside a folder of that name`,
		"comment\n--  --\nx\n":          "a file has no name",
		"-- ok.txt --\n-- dir/ --\nx\n": `file "dir/": not a clean path`,
	}
	for in, want := range cases {
		_, err := Parse([]byte(in))
		if err == nil || err.Error() != want && !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", in, err, want)
		}
	}
}

func TestUnpackStaysInsideThroughLinks(t *testing.T) {
	// A folder already holding a link that points out: writing through it
	// is refused by the root, whatever the name says.
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	a, err := Parse([]byte("-- out/x.txt --\nescaped\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Unpack(dir); err == nil {
		t.Fatal("unpacking through a link that points outside succeeded")
	}
	if _, err := os.Stat(filepath.Join(outside, "x.txt")); !os.IsNotExist(err) {
		t.Fatalf("a file was written outside the folder: %v", err)
	}
}

func TestAddRefusesWhatTxtarCannotCarry(t *testing.T) {
	var a Archive
	if err := a.Add("ok.txt", []byte("fine\n")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, data, want string
	}{
		{"logo.png", "\x89PNG\r\n\x1a\n\x00\x00", `file "logo.png": binary`},
		{"latin1.txt", "caf\xe9\n", `file "latin1.txt": binary`},
		{"nested.txtar", "intro\n-- inner.txt --\nx\n", `file "nested.txtar": line 2 reads as a file marker`},
		{"crlf.txt", "a\r\n-- x --\r\n", `file "crlf.txt": line 2 reads as a file marker`},
		{"ok.txt", "again", `file "ok.txt": the archive holds it twice`},
		{"../x", "x", `the name leaves the folder`},
	}
	for _, c := range cases {
		if err := a.Add(c.name, []byte(c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	if len(a.Files) != 1 {
		t.Fatalf("refused files were added: %+v", a.Files)
	}
	// A file without a final newline gets one when written, and reads
	// back with it.
	if err := a.Add("last.txt", []byte("no newline")); err != nil {
		t.Fatal(err)
	}
	b, err := Parse(Format(&a))
	if err != nil || string(b.Files[1].Data) != "no newline\n" {
		t.Fatalf("read back %+v, %v", b, err)
	}
}

// FuzzParse feeds the parser any bytes: it refuses them or returns an
// archive whose every file unpacks inside the folder, and which reads back
// the same once formatted.
func FuzzParse(f *testing.F) {
	data, _ := os.ReadFile("testdata/sample.txtar")
	f.Add(data)
	f.Add([]byte("-- ../x --\n"))
	f.Add([]byte("-- a --\n-- a/b --\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Parse(data)
		if err != nil {
			return
		}
		b, err := Parse(Format(a))
		if err != nil || len(b.Files) != len(a.Files) {
			t.Fatalf("formatted archive reads back %v, %v", b, err)
		}
		for i := range a.Files {
			if a.Files[i].Name != b.Files[i].Name {
				t.Fatalf("name %q became %q", a.Files[i].Name, b.Files[i].Name)
			}
		}
		dir := t.TempDir()
		inside := filepath.Join(dir, "in")
		if err := os.Mkdir(inside, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := a.Unpack(inside); err != nil {
			t.Fatalf("a parsed archive does not unpack: %v", err)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 {
			t.Fatalf("unpacking wrote beside its folder: %v", entries)
		}
	})
}

func TestAddRefusesNamesThatWouldNotReadBack(t *testing.T) {
	var a Archive
	for _, name := range []string{" lead.txt", "trail.txt ", "a/ b"} {
		err := a.Add(name, []byte("x\n"))
		if name == "a/ b" {
			// A space inside a name reads back as it is.
			if err != nil {
				t.Errorf("%q: %v", name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "starts or ends with a space") {
			t.Errorf("%q: got %v", name, err)
		}
	}
	b, err := Parse(Format(&a))
	if err != nil || len(b.Files) != 1 || b.Files[0].Name != "a/ b" {
		t.Fatalf("read back %+v, %v", b, err)
	}
}

func TestPackLeavesOutWhatItCannotCarryAndSaysWhy(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("README.md", "# project\n", 0o644)
	write("src/main.go", "package main\n", 0o644)
	write("run.sh", "#!/bin/sh\necho hi\n", 0o755)
	write(".git/HEAD", "ref: refs/heads/main\n", 0o644)
	write("sub/.git/config", "x\n", 0o644)
	write("wt/.git", "gitdir: /elsewhere/.git/worktrees/wt\n", 0o644)
	write("logo.png", "\x89PNG\r\n\x1a\n\x00", 0o644)
	write("big.log", strings.Repeat("x", 2000)+"\n", 0o644)
	write("nested.txtar", "-- inner --\n", 0o644)
	write("z/late.txt", strings.Repeat("y", 970)+"\n", 0o644)
	if err := os.Symlink("README.md", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	a, rep, err := Pack(dir, PackOptions{MaxFile: 1000, MaxTotal: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range a.Files {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); got != "README.md run.sh src/main.go" {
		t.Errorf("packed %s", got)
	}
	want := map[string]string{
		".git/":        "version control history",
		"sub/.git/":    "version control history",
		"wt/.git":      "version control: a link to a repository elsewhere",
		"logo.png":     "binary",
		"big.log":      "2.0 KiB, over the 1000 B a file may have",
		"nested.txtar": "line 1 reads as a file marker",
		"link.md":      "a symbolic link",
		"z/late.txt":   "971 B, and the archive would pass its 1000 B bound",
	}
	if len(rep.Left) != len(want) {
		t.Errorf("left out %+v", rep.Left)
	}
	for _, l := range rep.Left {
		if w, ok := want[l.Path]; !ok || !strings.Contains(l.Why, w) {
			t.Errorf("left out %s because %q, want %q", l.Path, l.Why, w)
		}
	}
	if len(rep.Executable) != 1 || rep.Executable[0] != "run.sh" {
		t.Errorf("executables %v", rep.Executable)
	}
	// What was packed unpacks as it was.
	out := t.TempDir()
	if err := a.Unpack(out); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "src", "main.go")); string(b) != "package main\n" {
		t.Errorf("src/main.go unpacked as %q", b)
	}
}

func TestPackRefusesWhatIsNotAFolder(t *testing.T) {
	if _, _, err := Pack(filepath.Join(t.TempDir(), "missing"), PackOptions{}); err == nil {
		t.Error("packing a missing folder succeeded")
	}
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o644)
	if _, _, err := Pack(f, PackOptions{}); err == nil || !strings.Contains(err.Error(), "is not a folder") {
		t.Errorf("packing a file: %v", err)
	}
}
