package frontmatter

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestReadFileRefusesWhatIsNotASmallRegularFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.md")
	if err := os.WriteFile(small, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(small, 10); err != nil || string(data) != "0123456789" {
		t.Errorf("a file of exactly the bound: %q, %v", data, err)
	}
	if _, err := ReadFile(small, 9); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a file over the bound: %v", err)
	}
	if _, err := ReadFile(dir, 10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a folder: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.md"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	fifo := filepath.Join(dir, "fifo.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	// Opening a FIFO with no writer would block: it must be refused first.
	if _, err := ReadFile(fifo, 10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a FIFO: %v", err)
	}
}
