package lexers

import (
	"bytes"
	"compress/gzip"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/alecthomas/chroma/v2"

	"github.com/agenttui/agenttui/tui/internal/lexers/internal/indexgen"
)

// xmlFiles returns the embedded XML files decompressed, each at the path the
// package calls it by (embedded/foo.xml for embedded/foo.xml.gz), which is
// its path in chroma's lexers directory.
func xmlFiles(t *testing.T) fstest.MapFS {
	t.Helper()
	paths, err := fs.Glob(embedded, indexgen.Pattern+".gz")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no embedded files")
	}
	files := make(fstest.MapFS)
	for _, gz := range paths {
		path := strings.TrimSuffix(gz, ".gz")
		data, err := readXML(path)
		if err != nil {
			t.Fatal(err)
		}
		files[path] = &fstest.MapFile{Data: data}
	}
	return files
}

// TestIndexUpToDate checks that index.go is what the generator makes of the
// embedded XML files.
func TestIndexUpToDate(t *testing.T) {
	want, err := indexgen.Generate(xmlFiles(t))
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
	files := xmlFiles(t)
	for _, x := range xmlLexers {
		want, err := chroma.NewXMLLexer(files, x.file)
		if err != nil {
			t.Fatal(err)
		}
		if got := newXMLLexer(x.file); !reflect.DeepEqual(got.Config(), want.Config()) {
			t.Errorf("%s: config %#v; chroma reads %#v", x.file, got.Config(), want.Config())
		}
	}
}

// TestCopiedFiles checks that embedded/ holds chroma's XML files, gzipped
// and otherwise unchanged, and nothing else, and that LICENSE is chroma's.
func TestCopiedFiles(t *testing.T) {
	dir := chromaDir(t)
	theirs, err := filepath.Glob(filepath.Join(dir, "lexers", "embedded", "*"))
	if err != nil {
		t.Fatal(err)
	}
	names := make(map[string]bool)
	for _, path := range theirs {
		names[filepath.Base(path)+".gz"] = true
	}
	// The directory is listed rather than the embedded files, which are
	// only those matching the go:embed pattern, so that a file left over or
	// misnamed is reported too.
	entries, err := os.ReadDir("embedded")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !names[e.Name()] {
			t.Errorf("embedded/%s is not one of chroma's files gzipped", e.Name())
		}
		delete(names, e.Name())
	}
	for name := range names {
		t.Errorf("embedded/%s is missing", name)
	}
	for _, path := range theirs {
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := readXML("embedded/" + filepath.Base(path))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("embedded/%s.gz decompressed differs from chroma's %[1]s (%v)", filepath.Base(path), err)
		}
	}
	license, err := os.ReadFile(filepath.Join(dir, "COPYING"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile("LICENSE"); err != nil || !bytes.Equal(got, license) {
		t.Errorf("LICENSE differs from chroma's COPYING (%v)", err)
	}
}

// TestCompressedFiles checks that each embedded file is what the generator
// makes of its XML, so that running the generator again changes nothing,
// and that its gzip header holds no file name or modification time.
func TestCompressedFiles(t *testing.T) {
	files := xmlFiles(t)
	for _, path := range slices.Sorted(maps.Keys(files)) {
		got, err := embedded.ReadFile(path + ".gz")
		if err != nil {
			t.Fatal(err)
		}
		want, err := indexgen.Compress(files[path].Data)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s.gz is not what the generator makes of %[1]s; run go generate", path)
		}
		zr, err := gzip.NewReader(bytes.NewReader(got))
		if err != nil {
			t.Fatal(err)
		}
		if zr.Name != "" || !zr.ModTime.IsZero() || zr.Comment != "" || zr.Extra != nil {
			t.Errorf("%s.gz has header %+v; want no name, time, comment or extra field", path, zr.Header)
		}
	}
}

// BenchmarkReadXML measures decompressing one lexer's file, which is what
// storing the files gzipped adds to the lexer's first use.
func BenchmarkReadXML(b *testing.B) {
	for b.Loop() {
		if _, err := readXML("embedded/python.xml"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkXMLRules measures reading one lexer's rules: decompressing and
// parsing its file.
func BenchmarkXMLRules(b *testing.B) {
	for b.Loop() {
		xmlRules("embedded/python.xml")
	}
}
