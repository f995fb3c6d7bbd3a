// This file is lexers/html.go of chroma v2.27.0 (github.com/alecthomas/chroma),
// Copyright (C) 2017 Alec Thomas, MIT licence (see LICENSE). It is changed
// only so that its lexers are made when the registry is first built, by
// buildRegistry, instead of at package init.
// Its package-level HTML variable became the function newHTML, and it
// uses newXMLLexer instead of chroma.MustNewXMLLexer.

package lexers

import (
	"github.com/alecthomas/chroma/v2"
)

// newHTML returns an HTML lexer.
func newHTML() *chroma.RegexLexer { return newXMLLexer("embedded/html.xml") }
