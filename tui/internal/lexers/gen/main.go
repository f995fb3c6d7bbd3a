// Command gen writes the generated files of package lexers from chroma's XML
// lexers, in the chroma module that the package is built with: each of its
// lexers/embedded/*.xml gzipped as embedded/*.xml.gz, and index.go. Run it
// in the package directory, as "go generate" does:
//
//	go run ./gen
package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/agenttui/agenttui/tui/internal/lexers/internal/indexgen"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// run writes the files.
func run() error {
	// The go command knows which chroma the package is built with, and where
	// the module cache keeps it.
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/alecthomas/chroma/v2")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("finding chroma: %w", err)
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		return fmt.Errorf("finding chroma: the go command gives no directory")
	}
	chroma := os.DirFS(filepath.Join(dir, "lexers"))
	paths, err := fs.Glob(chroma, indexgen.Pattern)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("no files match %s in %s", indexgen.Pattern, dir)
	}
	if err := os.MkdirAll(filepath.Dir(indexgen.Pattern), 0o755); err != nil {
		return err
	}
	written := make(map[string]bool)
	for _, path := range paths {
		data, err := fs.ReadFile(chroma, path)
		if err != nil {
			return err
		}
		gz, err := indexgen.Compress(data)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := os.WriteFile(path+".gz", gz, 0o644); err != nil {
			return err
		}
		written[path+".gz"] = true
	}
	// A lexer that chroma no longer has must not stay embedded.
	old, err := filepath.Glob(indexgen.Pattern + ".gz")
	if err != nil {
		return err
	}
	for _, path := range old {
		if !written[filepath.ToSlash(path)] {
			if err := os.Remove(path); err != nil {
				return err
			}
		}
	}
	src, err := indexgen.Generate(chroma)
	if err != nil {
		return err
	}
	return os.WriteFile("index.go", src, 0o644)
}
