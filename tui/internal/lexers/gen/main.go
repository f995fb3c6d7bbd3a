// Command gen writes index.go of package lexers from the XML files in
// embedded/. Run it in the package directory, as "go generate" does:
//
//	go run ./gen
package main

import (
	"fmt"
	"os"

	"github.com/agenttui/agenttui/tui/internal/lexers/internal/indexgen"
)

func main() {
	src, err := indexgen.Generate(os.DirFS("."))
	if err == nil {
		err = os.WriteFile("index.go", src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
