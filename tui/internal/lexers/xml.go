package lexers

//go:generate go run ./gen

import (
	"embed"
	"encoding/xml"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/alecthomas/chroma/v2"
	"github.com/dlclark/regexp2/v2"
)

// embedded holds chroma's XML lexers, copied unchanged from its
// lexers/embedded directory.
//
//go:embed embedded/*.xml
var embedded embed.FS

// xmlLexer is what index.go holds of one XML lexer: the file that has its
// rules and the configuration read from that file by the generator, which is
// all that finding lexers needs.
type xmlLexer struct {
	file   string
	config chroma.Config
}

// xmlParsed counts the XML files parsed for their rules, so that tests can
// tell that nothing is parsed until a lexer is used.
var xmlParsed atomic.Int64

// newXMLLexer returns a new lexer of the file at path in embedded, as
// chroma.MustNewXMLLexer(embedded, path) would, but without reading the file.
func newXMLLexer(path string) *chroma.RegexLexer {
	i, ok := slices.BinarySearchFunc(xmlLexers[:], path, func(x xmlLexer, path string) int {
		return strings.Compare(x.file, path)
	})
	if !ok {
		panic("lexers: no lexer " + path)
	}
	return xmlLexers[i].lexer()
}

// lexer returns a new lexer of x. It is the *chroma.RegexLexer that
// chroma.NewXMLLexer makes of x.file, with the same configuration and
// analyser, but its rules are read from the file only when chroma first
// needs them (on the first Tokenise or Rules), and its analyser's regular
// expressions are compiled on its first AnalyseText; chroma's NewXMLLexer
// reads the configuration and compiles the analyser at once.
func (x *xmlLexer) lexer() *chroma.RegexLexer {
	// Each lexer has a Config of its own, as each of chroma's has: callers
	// may change it.
	config := x.config
	path := x.file
	lexer := chroma.MustNewLexer(&config, func() chroma.Rules { return xmlRules(path) })
	if config.Analyse != nil {
		lexer.SetAnalyser(xmlAnalyser(&config))
	}
	return lexer
}

// xmlRules parses the rules of the lexer in the file at path, as the rules
// function of chroma.NewXMLLexer does. The files are chroma's and the tests
// parse every one, so an error is a broken build and panics rather than
// failing the Tokenise that asked for the rules, as chroma's would.
func xmlRules(path string) chroma.Rules {
	xmlParsed.Add(1)
	f, err := embedded.Open(path)
	if err != nil {
		panic(fmt.Errorf("lexers: %w", err))
	}
	defer f.Close()
	var lexer struct {
		chroma.Config
		Rules chroma.Rules `xml:"rules"`
	}
	if err := xml.NewDecoder(f).Decode(&lexer); err != nil {
		panic(fmt.Errorf("lexers: %s: %w", path, err))
	}
	return lexer.Rules
}

// xmlAnalyser returns the analyser chroma.NewXMLLexer makes of
// config.Analyse, with its regular expressions compiled on first use. Like
// chroma's, it keeps using config even if the lexer is given another.
func xmlAnalyser(config *chroma.Config) func(text string) float32 {
	type regexAnalyse struct {
		re    *regexp2.Regexp
		score float32
	}
	compiled := sync.OnceValue(func() []regexAnalyse {
		regexAnalysers := make([]regexAnalyse, 0, len(config.Analyse.Regexes))
		regexFlags := regexp2.None
		if config.CaseInsensitive {
			regexFlags = regexp2.IgnoreCase
		}
		for _, ra := range config.Analyse.Regexes {
			// chroma fails to make the lexer on a bad pattern; the tests
			// run every analyser, so one here is a broken build.
			re, err := regexp2.Compile(ra.Pattern, regexFlags)
			if err != nil {
				panic(fmt.Errorf("lexers: %s: %q is not a valid analyser regex: %w", config.Name, ra.Pattern, err))
			}
			regexAnalysers = append(regexAnalysers, regexAnalyse{re, ra.Score})
		}
		return regexAnalysers
	})
	// The rest is chroma's analyser, unchanged.
	return func(text string) float32 {
		var score float32
		for _, ra := range compiled() {
			ok, err := ra.re.MatchString(text)
			if err != nil {
				return 0
			}
			if ok && config.Analyse.First {
				return float32(math.Min(float64(ra.score), 1.0))
			}
			if ok {
				score += ra.score
			}
		}
		return float32(math.Min(float64(score), 1.0))
	}
}
