// This file is lexers/mysql.go of chroma v2.27.0 (github.com/alecthomas/chroma),
// Copyright (C) 2017 Alec Thomas, MIT licence (see LICENSE). It is changed
// only so that its lexers are made when the registry is first built, by
// buildRegistry, instead of at package init.
// Its init function became setMySQLAnalyser, and its regular expressions
// are compiled on first use instead of at package init.

package lexers

import (
	"regexp"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

func setMySQLAnalyser(reg *chroma.LexerRegistry) {
	var (
		mysqlAnalyserNameBetweenBacktickRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`[a-zA-Z_]\\w*`") })
		mysqlAnalyserNameBetweenBracketRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[[a-zA-Z_]\w*\]`) })
	)

	reg.Get("mysql").
		SetAnalyser(func(text string) float32 {
			nameBetweenBacktickCount := len(mysqlAnalyserNameBetweenBacktickRe().FindAllString(text, -1))
			nameBetweenBracketCount := len(mysqlAnalyserNameBetweenBracketRe().FindAllString(text, -1))

			var result float32

			// Same logic as above in the TSQL analysis.
			dialectNameCount := nameBetweenBacktickCount + nameBetweenBracketCount
			if dialectNameCount >= 1 && nameBetweenBacktickCount >= (2*nameBetweenBracketCount) {
				// Found at least twice as many `name` as [name].
				result += 0.5
			} else if nameBetweenBacktickCount > nameBetweenBracketCount {
				result += 0.2
			} else if nameBetweenBacktickCount > 0 {
				result += 0.1
			}

			return result
		})
}
