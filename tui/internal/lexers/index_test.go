package lexers

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/alecthomas/chroma/v2"

	"github.com/agenttui/agenttui/tui/internal/lexers/internal/indexgen"
)

// TestIndexUpToDate checks that index.go is what the generator makes of the
// embedded XML files.
func TestIndexUpToDate(t *testing.T) {
	want, err := indexgen.Generate(embedded)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("index.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("index.go is not what the generator makes of embedded/; run go generate")
	}
}

// TestIndexLexers checks that newXMLLexer finds every XML lexer, with the
// configuration chroma reads from its file.
func TestIndexLexers(t *testing.T) {
	for _, x := range xmlLexers {
		want, err := chroma.NewXMLLexer(embedded, x.file)
		if err != nil {
			t.Fatal(err)
		}
		if got := newXMLLexer(x.file); !reflect.DeepEqual(got.Config(), want.Config()) {
			t.Errorf("%s: config %#v; chroma reads %#v", x.file, got.Config(), want.Config())
		}
	}
}

// TestCopiedFiles checks that embedded/ and LICENSE are chroma's files,
// unchanged.
func TestCopiedFiles(t *testing.T) {
	dir := chromaDir(t)
	theirs, err := filepath.Glob(filepath.Join(dir, "lexers", "embedded", "*"))
	if err != nil {
		t.Fatal(err)
	}
	ours, err := fs.Glob(embedded, "embedded/*")
	if err != nil {
		t.Fatal(err)
	}
	if len(ours) != len(theirs) {
		t.Errorf("%d embedded files; chroma has %d", len(ours), len(theirs))
	}
	for _, path := range theirs {
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := embedded.ReadFile("embedded/" + filepath.Base(path))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("embedded/%s differs from chroma's (%v)", filepath.Base(path), err)
		}
	}
	want, err := os.ReadFile(filepath.Join(dir, "COPYING"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile("LICENSE"); err != nil || !bytes.Equal(got, want) {
		t.Errorf("LICENSE differs from chroma's COPYING (%v)", err)
	}
}
