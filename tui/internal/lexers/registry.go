package lexers

import (
	"sync"

	"github.com/alecthomas/chroma/v2"
)

// registry is the registry of all lexers, built on first use.
var registry = &lazyRegistry{}

// lazyRegistry is a registry of all lexers that is built on first use.
type lazyRegistry struct {
	once sync.Once
	mu   sync.Mutex // guards reg and pending for register

	// reg is the registry once built, and nil before.
	reg *chroma.LexerRegistry
	// pending are the lexers given to register before reg was built.
	pending []chroma.Lexer
}

// get returns the registry, building it on the first call: chroma's lexers
// and then those given to register before.
func (r *lazyRegistry) get() *chroma.LexerRegistry {
	r.once.Do(func() {
		reg := buildRegistry()
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, lexer := range r.pending {
			reg.Register(lexer)
		}
		r.pending = nil
		r.reg = reg
	})
	return r.reg
}

// register adds lexer to the registry if it is built, and otherwise keeps it
// for get to add when it builds it.
func (r *lazyRegistry) register(lexer chroma.Lexer) chroma.Lexer {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reg == nil {
		r.pending = append(r.pending, lexer)
		return lexer
	}
	return r.reg.Register(lexer)
}

// buildRegistry returns a new registry of chroma's lexers, made and
// registered in the order chroma's lexers package does at its init, so that
// the registry's Lexers, and so every choice between lexers of equal
// priority, and its name and alias maps are the same as chroma's.
//
// chroma's GlobalLexerRegistry registers the XML lexers in file name order.
// Then, in the order the package's variables are initialised, come the
// lexers written in Go: those named as an XML lexer replace it in place (Common
// Lisp, EmacsLisp, ERB, TypoScript), the others are appended. Last, the init
// functions of dns.go, mysql.go and zed.go give three XML lexers analysers.
// TestRegistryOrder checks the result against chroma's.
func buildRegistry() *chroma.LexerRegistry {
	reg := chroma.NewLexerRegistry()
	for i := range xmlLexers {
		reg.Register(xmlLexers[i].lexer())
	}
	// As in chroma, the HTML lexer that the template languages delegate to
	// is one of its own, not the registered one.
	html := newHTML()
	registerCaddyfile(reg)
	registerCaddyfileDirectives(reg)
	registerCommonLisp(reg)
	registerEmacsLisp(reg)
	registerERB(reg, html)
	registerGemtext(reg)
	registerGenshiText(reg)
	registerGenshiHTMLTemplate(reg)
	registerGenshi(reg)
	// Go's rules use Go Text Template, so chroma initialises that first,
	// but Go HTML Template, declared before it, before that.
	registerGoHTMLTemplate(reg, html)
	goTextTemplate := registerGoTextTemplate(reg)
	registerGo(reg, goTextTemplate)
	registerHaxe(reg)
	registerHTTP(reg)
	registerMarkdown(reg)
	registerMarkless(reg)
	registerPHTML(reg, html)
	registerRaku(reg)
	registerRestructuredtext(reg)
	registerSvelte(reg, html)
	registerTyposcript(reg)
	registerYAMLJinja(reg)
	setDNSAnalyser(reg)
	setMySQLAnalyser(reg)
	setZedAnalyser(reg)
	return reg
}
