// This file is lexers/php.go of chroma v2.27.0 (github.com/alecthomas/chroma),
// Copyright (C) 2017 Alec Thomas, MIT licence (see LICENSE). It is changed
// only so that its lexers are made when the registry is first built, by
// buildRegistry, instead of at package init.
// Its package-level Register call became a register function taking the
// HTML lexer.
// Its chroma.Rule and chroma.Token literals are keyed, as go vet asks.

package lexers

import (
	"strings"

	. "github.com/alecthomas/chroma/v2" // nolint
)

// phtml lexer is PHP in HTML.
func registerPHTML(reg *LexerRegistry, html Lexer) Lexer {
	return reg.Register(DelegatingLexer(html, MustNewLexer(
		&Config{
			Name:            "PHTML",
			Aliases:         []string{"phtml"},
			Filenames:       []string{"*.phtml", "*.php", "*.php[345]", "*.inc"},
			MimeTypes:       []string{"application/x-php", "application/x-httpd-php", "application/x-httpd-php3", "application/x-httpd-php4", "application/x-httpd-php5", "text/x-php"},
			DotAll:          true,
			CaseInsensitive: true,
			EnsureNL:        true,
			Priority:        2,
		},
		func() Rules {
			return Get("PHP").(*RegexLexer).MustRules().
				Rename("root", "php").
				Merge(Rules{
					"root": {
						{Pattern: `<\?(php)?`, Type: CommentPreproc, Mutator: Push("php")},
						{Pattern: `[^<]+`, Type: Other, Mutator: nil},
						{Pattern: `<`, Type: Other, Mutator: nil},
					},
				})
		},
	).SetAnalyser(func(text string) float32 {
		if strings.Contains(text, "<?php") {
			return 0.5
		}
		return 0.0
	})))
}
