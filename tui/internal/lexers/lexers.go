// Package lexers is chroma v2.27.0's lexers package
// (github.com/alecthomas/chroma/v2/lexers) with its lexers loaded language
// by language: the same lexers, found by the same names, file names and MIME
// types, giving the same tokens, but costing nothing at program start.
//
// chroma's package builds its registry when the program starts: it parses
// the XML of all 279 of its XML lexers and makes its 21 files of lexers
// written in Go, about 19 ms and 2.7 MB before main runs, though a program
// may never highlight anything. This package keeps the data, not the
// parsing. The configuration of each XML lexer (names, aliases, file name
// patterns, MIME types, priority, flags, analyser) is in index.go, generated
// from the XML by "go run ./gen" (see go:generate in xml.go), so the registry
// is built without reading any XML, on the first call of Get, Match,
// MatchMimeType, Names, Aliases, Analyse or Registry, in about a
// millisecond. A lexer's XML is parsed for its rules only when the lexer
// first tokenises, and chroma compiles the rules' regular expressions then
// too, as it always does.
//
// The lexers are the types chroma's are: XML lexers are *chroma.RegexLexer,
// and chroma's delegating and remapping lexers wrap them as in chroma; the
// Markdown and HTTP lexers are copies of chroma's unexported types.
//
// The files in embedded/ are chroma v2.27.0's lexers/embedded/*.xml, each
// gzipped on its own by "go run ./gen", and the lexers written in Go
// (caddyfile.go to zed.go; each file says how it was changed) are chroma
// v2.27.0's lexers/*.go, both copyright Alec Thomas and under the MIT
// licence in LICENSE, which is chroma's. The XML is stored gzipped because
// it is embedded in every program that uses the package: the 1.98 MB of it
// takes 0.48 MB gzipped, which made agenttui 1.49 MB smaller. Each file is
// gzipped on its own so that a lexer's first use decompresses only its own
// few kilobytes, in about a tenth of the time it then takes to parse them.
// The tests compare everything with chroma's own package; to move to
// another chroma version, copy its Go files again and run "go generate",
// which copies its XML files.
package lexers

import (
	"github.com/alecthomas/chroma/v2"
)

// Names returns the names of all lexers, and their aliases if withAliases,
// sorted.
func Names(withAliases bool) []string {
	return Registry().Names(withAliases)
}

// Aliases returns the aliases of all lexers, sorted. A lexer without aliases
// is listed by its name, or left out if skipWithoutAliases.
func Aliases(skipWithoutAliases bool) []string {
	return Registry().Aliases(skipWithoutAliases)
}

// Get returns the lexer named name, by name or alias, ignoring case, or else
// the lexer for the file extension name, or for the file name name. It
// returns nil if there is none.
//
// Finding a lexer by file name tries every lexer's file name patterns, so it
// is much slower than finding one by name.
func Get(name string) chroma.Lexer {
	return Registry().Get(name)
}

// MatchMimeType returns the lexer for the MIME type mimeType, or nil.
func MatchMimeType(mimeType string) chroma.Lexer {
	return Registry().MatchMimeType(mimeType)
}

// Match returns the lexer for the file named filename, by the base name's
// match with the lexers' file name patterns, or nil. It tries every
// lexer's patterns, so it is not fast.
func Match(filename string) chroma.Lexer {
	return Registry().Match(filename)
}

// Register adds lexer to the registry, replacing any lexer of the same name,
// and returns it. A lexer registered before the registry is built is added
// when it is built, after chroma's lexers, so that registering one at init
// does not build the registry.
func Register(lexer chroma.Lexer) chroma.Lexer {
	return registry.register(lexer)
}

// Registry returns the registry of all of chroma's lexers, and of those
// given to Register, building it on the first call. The lexers look up the
// lexers they delegate to (chroma's "using") in it.
func Registry() *chroma.LexerRegistry {
	return registry.get()
}

// Analyse returns the lexer whose analyser scores text highest, or nil if
// none scores it above zero. It runs every analyser, so it is slow.
func Analyse(text string) chroma.Lexer {
	return Registry().Analyse(text)
}

// PlaintextRules returns the rules of the fallback lexer, which are those of
// the plaintext lexer too: all text is chroma.Text.
func PlaintextRules() chroma.Rules {
	return chroma.Rules{
		"root": []chroma.Rule{
			{Pattern: `.+`, Type: chroma.Text},
			{Pattern: `\n`, Type: chroma.Text},
		},
	}
}

// Fallback is the lexer to use when no other fits: it gives all text as
// chroma.Text. It is not in the registry. The registered lexer for plain text
// is Get("plaintext").
var Fallback chroma.Lexer = chroma.MustNewLexer(&chroma.Config{
	Name:      "fallback",
	Filenames: []string{"*"},
	Priority:  -1,
}, PlaintextRules)
