// This file is lexers/erb.go of chroma v2.27.0 (github.com/alecthomas/chroma),
// Copyright (C) 2017 Alec Thomas, MIT licence (see LICENSE). It is changed
// only so that its lexers are made when the registry is first built, by
// buildRegistry, instead of at package init.
// Its package-level Register call became a register function taking the
// HTML lexer, and it uses newXMLLexer instead of chroma.MustNewXMLLexer.

package lexers

import (
	"strings"

	. "github.com/alecthomas/chroma/v2" // nolint
)

// ERB lexer is Ruby embedded in HTML.
func registerERB(reg *LexerRegistry, html Lexer) Lexer {
	return reg.Register(DelegatingLexer(html, newXMLLexer("embedded/erb.xml").SetConfig(
		&Config{
			Name:      "ERB",
			Aliases:   []string{"erb", "html+erb", "html+ruby", "rhtml"},
			Filenames: []string{"*.erb", "*.html.erb", "*.xml.erb", "*.rhtml"},
			MimeTypes: []string{"application/x-ruby-templating"},
			DotAll:    true,
		},
	).SetAnalyser(func(text string) float32 {
		if strings.Contains(text, "<%=") && strings.Contains(text, "%>") {
			return 0.4
		}
		if strings.Contains(text, "<%") {
			return 0.1
		}
		return 0.0
	})))
}
