package indexgen

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"
)

// TestCompress checks that Compress gives the same bytes for the same data,
// that they decompress to the data, and that their header holds nothing
// that would differ from one run or machine to another.
func TestCompress(t *testing.T) {
	data := []byte(strings.Repeat("<lexer><config><name>x</name></config></lexer>\n", 100))
	a, err := Compress(data)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Compress(bytes.Clone(data))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("Compress gave different bytes for the same data")
	}
	if len(a) >= len(data)/10 {
		t.Errorf("Compress made %d bytes of %d repetitive ones; want it to compress", len(a), len(data))
	}
	zr, err := gzip.NewReader(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	if h := zr.Header; h.Name != "" || !h.ModTime.IsZero() || h.Comment != "" || h.Extra != nil {
		t.Errorf("header %+v; want no name, time, comment or extra field", h)
	}
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Error("the data decompressed differs from the data compressed")
	}
}
