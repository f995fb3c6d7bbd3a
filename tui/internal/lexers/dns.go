// This file is lexers/dns.go of chroma v2.27.0 (github.com/alecthomas/chroma),
// Copyright (C) 2017 Alec Thomas, MIT licence (see LICENSE). It is changed
// only so that its lexers are made when the registry is first built, by
// buildRegistry, instead of at package init.
// Its init function became setDNSAnalyser, and its regular expression is
// compiled on first use instead of at package init.

package lexers

import (
	"regexp"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

func setDNSAnalyser(reg *chroma.LexerRegistry) {
	// TODO(moorereason): can this be factored away?
	zoneAnalyserRe := sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^@\s+IN\s+SOA\s+`) })
	reg.Get("dns").SetAnalyser(func(text string) float32 {
		if zoneAnalyserRe().FindString(text) != "" {
			return 1.0
		}
		return 0.0
	})
}
