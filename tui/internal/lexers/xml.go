package lexers

//go:generate go run ./gen

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/alecthomas/chroma/v2"
	"github.com/dlclark/regexp2/v2"
)

// embedded holds chroma's XML lexers, each gzipped on its own:
// embedded/foo.xml.gz is chroma's lexers/embedded/foo.xml, which the package
// calls embedded/foo.xml. Gzipped, the files take a quarter of the space in
// the binary, and each is small enough to decompress when its lexer is first
// used (about 0.1 ms for Python's 20 KB, a tenth of parsing it); see
// readXML.
//
//go:embed embedded/*.xml.gz
var embedded embed.FS

// readXML returns the XML file at path, such as "embedded/go.xml", which
// embedded holds gzipped at path+".gz".
func readXML(path string) ([]byte, error) {
	f, err := embedded.Open(path + ".gz")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// Reading to the end makes gzip check the data against its checksum.
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}

// xmlLexer is what index.go holds of one XML lexer: the file that has its
// rules, named as in chroma's lexers directory (readXML reads it), and the
// configuration read from that file by the generator, which is all that
// finding lexers needs.
type xmlLexer struct {
	file   string
	config chroma.Config
}

// xmlParsed counts the XML files parsed for their rules, so that tests can
// tell that nothing is parsed until a lexer is used.
var xmlParsed atomic.Int64

// newXMLLexer returns a new lexer of the XML file at path, as
// chroma.MustNewXMLLexer would of the file chroma embeds at path, but
// without reading the file.
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
	data, err := readXML(path)
	if err != nil {
		panic(fmt.Errorf("lexers: %w", err))
	}
	var lexer struct {
		chroma.Config
		Rules chroma.Rules `xml:"rules"`
	}
	if err := xml.NewDecoder(bytes.NewReader(data)).Decode(&lexer); err != nil {
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
