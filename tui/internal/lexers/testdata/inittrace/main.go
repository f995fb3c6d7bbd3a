// Command inittrace shows what package lexers costs at start: run with
// GODEBUG=inittrace=1, it prints the package's init line, and given a
// language it times the first lookup of the language and its first
// tokenising. It calls the package only after init, so that the whole
// package is linked in, as in a program that uses it.
//
//	go build -o /tmp/inittrace ./testdata/inittrace
//	GODEBUG=inittrace=1 /tmp/inittrace
//	/tmp/inittrace go 'package main'
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/alecthomas/chroma/v2"

	"github.com/agenttui/agenttui/tui/internal/lexers"
)

func main() {
	if len(os.Args) < 3 {
		return
	}
	start := time.Now()
	lexer := lexers.Get(os.Args[1])
	found := time.Since(start)
	if lexer == nil {
		fmt.Println("no lexer for", os.Args[1])
		return
	}
	start = time.Now()
	tokens, err := chroma.Tokenise(lexer, nil, os.Args[2])
	fmt.Printf("%s: found in %v, %d tokens in %v, err %v\n", lexer.Config().Name, found, len(tokens), time.Since(start), err)
}
