// This file is lexers/gemtext.go of chroma v2.27.0 (github.com/alecthomas/chroma),
// Copyright (C) 2017 Alec Thomas, MIT licence (see LICENSE). It is changed
// only so that its lexers are made when the registry is first built, by
// buildRegistry, instead of at package init.
// Its package-level Register call became a register function.
// Its chroma.Rule and chroma.Token literals are keyed, as go vet asks.

package lexers

import (
	. "github.com/alecthomas/chroma/v2" // nolint
)

// Gemtext lexer.
func registerGemtext(reg *LexerRegistry) Lexer {
	return reg.Register(MustNewLexer(
		&Config{
			Name:      "Gemtext",
			Aliases:   []string{"gemtext", "gmi", "gmni", "gemini"},
			Filenames: []string{"*.gmi", "*.gmni", "*.gemini"},
			MimeTypes: []string{"text/gemini"},
		},
		gemtextRules,
	))
}

func gemtextRules() Rules {
	return Rules{
		"root": {
			{Pattern: `^(#[^#].+\r?\n)`, Type: ByGroups(GenericHeading), Mutator: nil},
			{Pattern: `^(#{2,3}.+\r?\n)`, Type: ByGroups(GenericSubheading), Mutator: nil},
			{Pattern: `^(\* )(.+\r?\n)`, Type: ByGroups(Keyword, Text), Mutator: nil},
			{Pattern: `^(>)(.+\r?\n)`, Type: ByGroups(Keyword, GenericEmph), Mutator: nil},
			{Pattern: "^(```\\r?\\n)([\\w\\W]*?)(^```)(.+\\r?\\n)?", Type: ByGroups(String, Text, String, Comment), Mutator: nil},
			{
				Pattern: "^(```)(\\w+)(\\r?\\n)([\\w\\W]*?)(^```)(.+\\r?\\n)?",
				Type:    UsingByGroup(2, 4, String, String, String, Text, String, Comment),
				Mutator: nil,
			},
			{Pattern: "^(```)(.+\\r?\\n)([\\w\\W]*?)(^```)(.+\\r?\\n)?", Type: ByGroups(String, String, Text, String, Comment), Mutator: nil},
			{Pattern: `^(=>)(\s*)([^\s]+)(\s*)$`, Type: ByGroups(Keyword, Text, NameAttribute, Text), Mutator: nil},
			{Pattern: `^(=>)(\s*)([^\s]+)(\s+)(.+)$`, Type: ByGroups(Keyword, Text, NameAttribute, Text, NameTag), Mutator: nil},
			{Pattern: `(.|(?:\r?\n))`, Type: ByGroups(Text), Mutator: nil},
		},
	}
}
