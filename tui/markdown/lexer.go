package markdown

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
	"github.com/dlclark/regexp2/v2"
	"github.com/dlclark/regexp2/v2/syntax"

	"github.com/agenttui/agenttui/tui/internal/lexers"
)

// fastLexer tokenises text into exactly the tokens of a chroma regular
// expression lexer, in a fraction of the time.
//
// Chroma tries the rules of the current state one after another at the
// current position, each through the full machinery of a regular
// expression match (a match object, a runner, a timeout watch), and most
// fail on their first character: lexing a few code blocks took half the time
// of rendering an answer. A fastLexer knows, for each rule, which characters
// a match can start with (the regular expression engine's own analysis of
// the pattern), and tries only the rules that can match at the character
// in front of it. Everything else — the rules, their order, the emitters,
// the mutators, the state stack — is chroma's, driven the way chroma's
// LexerState.Iterator drives it, so the tokens are the same.
type fastLexer struct {
	chroma.Lexer // the chroma lexer, for its Config and everything else
	re           *chroma.RegexLexer
	registry     *chroma.LexerRegistry
	// compiled holds the rules as chroma compiles them, which is what
	// emitters and mutators see, and states the same with their first
	// characters, in the same order. A state's regular expressions are
	// compiled when the state is first entered: a code block enters few of
	// a lexer's states, and compiling them all took longer than lexing.
	compiled chroma.CompiledRules
	states   map[string]*lazyState

	mu       sync.Mutex                      // guards patterns, each rule's Regexp while it is nil, and prefixes
	patterns map[*chroma.CompiledRule]string // each rule's pattern with its flags, not anchored
	prefixes map[*chroma.CompiledRule]*syntax.Prefix
}

// lazyState is a state's rules, and once they are compiled, the same with
// their first characters.
type lazyState struct {
	rules []*chroma.CompiledRule
	ready atomic.Pointer[[]fastRule]
}

// fastRule is a compiled rule and the characters a match of it can start
// with.
type fastRule struct {
	*chroma.CompiledRule
	// first is nil when the rule may match at any character (it can
	// match the empty string, or the analysis knows no better).
	first *syntax.Prefix
	// ascii has bit c set when first allows the ASCII character c, so
	// that most characters are looked up with one test.
	ascii [2]uint64
	// unnamed is set when neither the rule's emitter nor its mutator can
	// read the named groups of its match (it emits one token type, and
	// pushes or pops states at most), so they need not be collected.
	unnamed bool
}

// matchTimeout is chroma's bound on one match of one rule.
const matchTimeout = 250 * time.Millisecond

// fastLexers holds the fastLexer of each chroma lexer, built on first use.
var fastLexers sync.Map // *chroma.RegexLexer → *fastLexer (or error)

// fastLexerFor returns a fastLexer that gives l's tokens, or l itself when
// l is not a regular expression lexer (a delegating lexer, say) or its
// rules cannot be compiled.
func fastLexerFor(l chroma.Lexer) chroma.Lexer {
	re, ok := l.(*chroma.RegexLexer)
	if !ok {
		return l
	}
	if v, ok := fastLexers.Load(re); ok {
		if f, ok := v.(*fastLexer); ok {
			return f
		}
		return l
	}
	f, err := newFastLexer(re)
	if err != nil {
		fastLexers.Store(re, err)
		return l
	}
	v, _ := fastLexers.LoadOrStore(re, f)
	if f, ok := v.(*fastLexer); ok {
		return f
	}
	return l
}

// newFastLexer lays re's rules out as chroma does (RegexLexer.maybeCompile),
// leaving their regular expressions to be compiled state by state.
func newFastLexer(re *chroma.RegexLexer) (*fastLexer, error) {
	raw, err := re.Rules()
	if err != nil {
		return nil, err
	}
	config := re.Config()
	flags := ""
	if !config.NotMultiline {
		flags += "m"
	}
	if config.CaseInsensitive {
		flags += "i"
	}
	if config.DotAll {
		flags += "s"
	}
	f := &fastLexer{Lexer: re, re: re, registry: lexers.Registry(), compiled: chroma.CompiledRules{},
		patterns: map[*chroma.CompiledRule]string{}, prefixes: map[*chroma.CompiledRule]*syntax.Prefix{}}
	for state, rules := range raw {
		f.compiled[state] = nil
		for _, rule := range rules {
			pattern := "(?:" + rule.Pattern + ")"
			if flags != "" {
				pattern = "(?" + flags + ")" + pattern
			}
			cr := &chroma.CompiledRule{Rule: rule}
			f.compiled[state] = append(f.compiled[state], cr)
			f.patterns[cr] = pattern
		}
	}
	// Rules that change the rules (include, combined) do so now, as in
	// chroma, each once.
restart:
	seen := map[chroma.LexerMutator]bool{}
	for state := range f.compiled {
		for i := range len(f.compiled[state]) {
			m, ok := f.compiled[state][i].Mutator.(chroma.LexerMutator)
			if !ok {
				continue
			}
			if seen[m] {
				return nil, fmt.Errorf("%s: mutator %T seen twice", config.Name, m)
			}
			seen[m] = true
			if err := m.MutateLexer(f.compiled, state, i); err != nil {
				return nil, err
			}
			goto restart
		}
	}
	f.states = make(map[string]*lazyState, len(f.compiled))
	for state, rules := range f.compiled {
		f.states[state] = &lazyState{rules: rules}
	}
	return f, nil
}

// rules returns the compiled rules of state, compiling them if they are not
// yet; false if the lexer has no such state.
func (f *fastLexer) rules(state string) ([]fastRule, bool) {
	ls, ok := f.states[state]
	if !ok {
		return nil, false
	}
	if r := ls.ready.Load(); r != nil {
		return *r, true
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if r := ls.ready.Load(); r != nil {
		return *r, true
	}
	fr := make([]fastRule, len(ls.rules))
	for i, cr := range ls.rules {
		pattern := f.patterns[cr]
		if cr.Regexp == nil {
			// Chroma has compiled the same pattern (Rules does), so
			// it compiles.
			cr.Regexp = regexp2.MustCompile(`\G` + pattern)
			cr.Regexp.MatchTimeout = matchTimeout
			f.prefixes[cr] = firstChars(pattern)
		}
		fr[i] = fastRule{CompiledRule: cr, first: f.prefixes[cr], unnamed: unnamed(cr.Rule)}
		for c := rune(0); c < 128; c++ {
			if fr[i].startsWith(c) {
				fr[i].ascii[c/64] |= 1 << (c % 64)
			}
		}
	}
	ls.ready.Store(&fr)
	return fr, true
}

// firstChars returns the characters a match of pattern can start with, as
// the regular expression engine works them out for its own searches; nil
// when any character may start one (the pattern can match nothing at all,
// or looks ahead or behind in a way the analysis does not follow).
func firstChars(pattern string) *syntax.Prefix {
	tree, err := syntax.Parse(pattern, syntax.ParseOptions{})
	if err != nil {
		return nil
	}
	code, err := syntax.Write(tree)
	if err != nil || code.FcPrefix == nil || code.RightToLeft {
		return nil
	}
	code.PrepareCharSetASCIIBitmaps()
	return code.FcPrefix
}

// unnamed reports whether rule's emitter and mutator are of kinds known not
// to read the named groups of a match.
func unnamed(rule chroma.Rule) bool {
	if _, ok := rule.Type.(chroma.TokenType); !ok && rule.Type != nil {
		return false
	}
	if rule.Mutator == nil {
		return true
	}
	m, ok := rule.Mutator.(chroma.SerialisableMutator)
	return ok && (m.MutatorKind() == "push" || m.MutatorKind() == "pop")
}

// canStart reports whether a match of the rule can start with r.
func (f *fastRule) canStart(r rune) bool {
	if r < 128 {
		return f.ascii[r/64]&(1<<(r%64)) != 0
	}
	return f.startsWith(r)
}

// startsWith reports whether first allows r, as the regular expression
// engine tests it (FindFirstChar).
func (f *fastRule) startsWith(r rune) bool {
	if f.first == nil {
		return true
	}
	if f.first.CaseInsensitive {
		r = unicode.ToLower(r)
	}
	return f.first.PrefixSet.CharIn(r)
}

// Tokenise returns an iterator over the tokens of text; see
// chroma.RegexLexer.Tokenise.
func (f *fastLexer) Tokenise(options *chroma.TokeniseOptions, text string) (chroma.Iterator, error) {
	if options == nil {
		options = &chroma.TokeniseOptions{State: "root", EnsureLF: true}
	}
	if options.EnsureLF {
		text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	}
	newlineAdded := false
	if !options.Nested && f.Config().EnsureNL && !strings.HasSuffix(text, "\n") {
		text += "\n"
		newlineAdded = true
	}
	s := &fastState{
		f:            f,
		initial:      options.State,
		newlineAdded: newlineAdded,
		LexerState: chroma.LexerState{
			Lexer:          f.re,
			Registry:       f.registry,
			Text:           []rune(text),
			Stack:          []string{options.State},
			Rules:          f.compiled,
			MutatorContext: map[any]any{},
		},
	}
	return s.next, nil
}

// fastState is one run of a fastLexer over one text.
type fastState struct {
	chroma.LexerState
	f            *fastLexer
	initial      string // the state the run started in
	newlineAdded bool   // whether Tokenise added a newline to the text
	iterators    []chroma.Iterator
}

// next returns the next token; it is chroma.LexerState.Iterator with the
// rules tried only where they can match.
func (s *fastState) next() chroma.Token {
	l := &s.LexerState
	end := len(l.Text)
	if s.newlineAdded {
		end--
	}
	for l.Pos < end && len(l.Stack) > 0 {
		if t, ok := s.drain(); ok {
			return t
		}
		l.State = l.Stack[len(l.Stack)-1]
		rules, ok := s.f.rules(l.State)
		if !ok {
			panic("unknown state " + l.State)
		}
		rule, groups, named := s.match(rules)
		if groups == nil {
			// As in chroma: an unmatched newline outside the first
			// state goes back to it; anything else is an error token.
			if l.Text[l.Pos] == '\n' && l.State != s.initial {
				l.Stack = []string{s.initial}
				continue
			}
			l.Pos++
			return chroma.Token{Type: chroma.Error, Value: string(l.Text[l.Pos-1 : l.Pos])}
		}
		l.Groups = groups
		l.NamedGroups = named
		l.Pos += utf8.RuneCountInString(groups[0])
		if rule.Mutator != nil {
			if err := rule.Mutator.Mutate(l); err != nil {
				panic(err)
			}
		}
		if rule.Type != nil {
			s.iterators = append(s.iterators, rule.Type.Emit(l.Groups, l))
		}
	}
	if t, ok := s.drain(); ok {
		return t
	}
	if l.Pos != len(l.Text) && len(l.Stack) == 0 {
		value := string(l.Text[l.Pos:])
		l.Pos = len(l.Text)
		return chroma.Token{Type: chroma.Error, Value: value}
	}
	return chroma.EOF
}

// drain returns the next token of the emitted iterators, if they have one.
func (s *fastState) drain() (chroma.Token, bool) {
	for len(s.iterators) > 0 {
		n := len(s.iterators) - 1
		t := s.iterators[n]()
		if t.Type == chroma.Ignore {
			continue
		}
		if t == chroma.EOF {
			s.iterators = s.iterators[:n]
			continue
		}
		return t, true
	}
	return chroma.EOF, false
}

// match returns the first rule that matches at the current position, with
// its groups and named groups; nil groups when none does. It sets l.Rule.
func (s *fastState) match(rules []fastRule) (*chroma.CompiledRule, []string, map[string]string) {
	l := &s.LexerState
	at := l.Text[l.Pos]
	for i := range rules {
		rule := &rules[i]
		if !rule.canStart(at) {
			continue
		}
		m, err := rule.Regexp.FindRunesMatchStartingAt(l.Text, l.Pos)
		if m == nil || err != nil || m.RuneIndex != l.Pos {
			continue
		}
		all := m.Groups()
		groups := make([]string, len(all))
		var named map[string]string
		if !rule.unnamed {
			named = make(map[string]string, len(all))
		}
		for i, g := range all {
			groups[i] = g.String()
			if named != nil {
				named[g.Name] = groups[i]
			}
		}
		l.Rule = i
		return rule.CompiledRule, groups, named
	}
	return nil, nil, nil
}
