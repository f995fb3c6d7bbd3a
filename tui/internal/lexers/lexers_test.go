package lexers

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// atInit is what package init left: the XML files parsed and whether the
// registry was built, read by TestMain before any test runs.
var atInit struct {
	parsed int64
	built  bool
}

func TestMain(m *testing.M) {
	atInit.parsed = xmlParsed.Load()
	atInit.built = registry.reg != nil
	os.Exit(m.Run())
}

// TestNothingAtInit checks that package init parses no XML and builds no
// registry, and that a lexer's XML is parsed when it first tokenises and
// only then.
func TestNothingAtInit(t *testing.T) {
	if atInit.parsed != 0 || atInit.built {
		t.Fatalf("after init: %d XML files parsed, registry built %v; want 0 and false", atInit.parsed, atInit.built)
	}
	before := xmlParsed.Load()
	reg := buildRegistry()
	lexer := reg.Get("python")
	if n := xmlParsed.Load() - before; n != 0 {
		t.Fatalf("building a registry and finding Python parsed %d XML files; want 0", n)
	}
	for range 2 {
		if _, err := chroma.Tokenise(lexer, nil, "x = 1\n"); err != nil {
			t.Fatal(err)
		}
		if n := xmlParsed.Load() - before; n != 1 {
			t.Fatalf("tokenising Python parsed %d XML files; want 1", n)
		}
	}
}

// TestRegistryOrder checks that the registry holds chroma's lexers in
// chroma's order, of the same types wrapping the same lexers, with equal
// configurations: the order decides between lexers of equal priority.
func TestRegistryOrder(t *testing.T) {
	ours, theirs := Registry().Lexers, lexers.GlobalLexerRegistry.Lexers
	for i := range max(len(ours), len(theirs)) {
		if i >= len(ours) || i >= len(theirs) {
			t.Fatalf("%d lexers, chroma has %d", len(ours), len(theirs))
		}
		if got, want := shape(ours[i]), shape(theirs[i]); got != want {
			t.Errorf("lexer %d is %s; chroma's is %s", i, got, want)
		}
		if got, want := ours[i].Config(), theirs[i].Config(); !reflect.DeepEqual(got, want) {
			t.Errorf("lexer %d: config\n%#v\nchroma's\n%#v", i, got, want)
		}
	}
}

// shape describes a lexer by its type and, for the lexers that wrap
// others, theirs, down to the name of each regular expression lexer and
// whether it has an analyser. Types of chroma's lexers package are named as
// the copies of them here.
func shape(l chroma.Lexer) string {
	var describe func(v reflect.Value) string
	describe = func(v reflect.Value) string {
		if v.Kind() == reflect.Interface {
			if v.IsNil() {
				return "nil"
			}
			v = v.Elem()
		}
		name := v.Type().String()
		if v.Kind() != reflect.Pointer || v.IsNil() {
			return name
		}
		if name == "*lexers.markdownLexer" || name == "*lexers.httpBodyContentTyper" {
			// Both packages are named lexers; require them to be one of the
			// two, and name them alike.
			if p := v.Type().Elem().PkgPath(); p != "github.com/alecthomas/chroma/v2/lexers" && p != reflect.TypeFor[xmlLexer]().PkgPath() {
				return p + "." + name
			}
		}
		s := v.Elem()
		if s.Kind() != reflect.Struct {
			return name
		}
		if name == "*chroma.RegexLexer" {
			analyser := ""
			if !s.FieldByName("analyser").IsNil() {
				analyser = "+analyser"
			}
			return fmt.Sprintf("%s(%s%s)", name, s.FieldByName("config").Elem().FieldByName("Name").String(), analyser)
		}
		var parts []string
		for i := range s.NumField() {
			if f := s.Field(i); s.Type().Field(i).Type == reflect.TypeFor[chroma.Lexer]() {
				parts = append(parts, s.Type().Field(i).Name+":"+describe(f))
			}
		}
		return name + "{" + strings.Join(parts, " ") + "}"
	}
	return describe(reflect.ValueOf(&l).Elem())
}

// same reports how the lexer ours, from this package, differs from theirs,
// from chroma's, or "" if it does not: both nil, or of the same shape and
// at the same place in their registries (-1 for a lexer not in the
// registry's list but still found by name, as a lexer replaced in the list
// can be).
func same(ours, theirs chroma.Lexer) string {
	if ours == nil || theirs == nil {
		if ours == nil && theirs == nil {
			return ""
		}
		return fmt.Sprintf("got %v, chroma's %v", describeLexer(ours, nil), describeLexer(theirs, nil))
	}
	o := describeLexer(ours, Registry().Lexers)
	c := describeLexer(theirs, lexers.GlobalLexerRegistry.Lexers)
	if o != c {
		return fmt.Sprintf("got %s, chroma's %s", o, c)
	}
	return ""
}

// describeLexer returns l's shape and its index in list.
func describeLexer(l chroma.Lexer, list chroma.Lexers) string {
	if l == nil {
		return "nil"
	}
	return fmt.Sprintf("%s at %d", shape(l), slices.IndexFunc(list, func(m chroma.Lexer) bool { return m == l }))
}

// oddNames are inputs to Get and Match that are not any lexer's name.
var oddNames = []string{
	"", " ", ".", "*", "unknown", "no-such-language", "Makefile", "makefile", "MAKEFILE",
	".bashrc", "foo.tar.gz", "CMakeLists.txt", "cmakelists.txt", "Dockerfile", "dockerfile",
	"Dockerfile.dev", "GO", "Go", "PYTHON", "C++", "c#", "F#", "objective-c", "x.GO", "x.H",
	"x.h", "x.c", "x.ts", "x.tsx", "x.js", "x.pl", "x.m", "x.v", "x.inc", "x.sql", "x.txt",
	"x.go.bak", "x.go~", "x.py.orig", "config.in", "x.xml.in", "a/b/c.go", "/tmp/x.rs",
	"Caddyfile", "Caddyfile.local", ".env.local", "html+php", "PHTML", "php", "PHP", "erb",
	"rhtml", "html", "yaml", "md", "markdown", "text", "plaintext", "fallback", "json",
	"sh", "shell", "bash", "zsh", "console", "diff", "patch", "x.diff", "x.1", "x.xpm",
}

// patternSamples returns file names that glob matches: * stands for "x"
// (and for nothing too where it is not the start of "*.ext"), and there is
// one name for each choice in a [...] class.
func patternSamples(glob string) []string {
	out := []string{""}
	for i := 0; i < len(glob); i++ {
		var choices []string
		switch c := glob[i]; c {
		case '*':
			choices = []string{"x"}
			if !strings.HasPrefix(glob[i:], "*.") {
				choices = append(choices, "")
			}
		case '?':
			choices = []string{"x"}
		case '\\':
			i++
			choices = []string{glob[i : i+1]}
		case '[':
			end := strings.IndexByte(glob[i:], ']') + i
			class := glob[i+1 : end]
			i = end
			if strings.HasPrefix(class, "^") || strings.HasPrefix(class, "!") {
				choices = []string{"_"}
				break
			}
			for _, r := range strings.ReplaceAll(class, "-", "") {
				choices = append(choices, string(r))
			}
		default:
			choices = []string{string(c)}
		}
		var next []string
		for _, prefix := range out {
			for _, c := range choices {
				next = append(next, prefix+c)
			}
		}
		out = next
	}
	return out
}

// lookups returns the names to give Get: every lexer's name and aliases, as
// they are and in upper and lower case, the extensions of its "*.ext" file
// name patterns, and oddNames; and the file names to give Match: samples of
// every lexer's file name patterns, and oddNames. Matching a file name goes
// through all patterns of all lexers, which is slow, so there are no more
// variants of them.
func lookups() (names, files []string) {
	for _, l := range lexers.GlobalLexerRegistry.Lexers {
		c := l.Config()
		for _, n := range append([]string{c.Name}, c.Aliases...) {
			names = append(names, n, strings.ToUpper(n), strings.ToLower(n))
		}
		for _, glob := range append(slices.Clone(c.Filenames), c.AliasFilenames...) {
			for _, f := range patternSamples(glob) {
				files = append(files, f)
				if ext, ok := strings.CutPrefix(f, "x."); ok {
					names = append(names, ext)
				}
			}
		}
	}
	names = append(names, oddNames...)
	files = append(files, oddNames...)
	slices.Sort(names)
	slices.Sort(files)
	return slices.Compact(names), slices.Compact(files)
}

// TestGet checks that Get finds chroma's lexer for every name, alias and
// extension, and for odd names.
func TestGet(t *testing.T) {
	t.Parallel()
	names, _ := lookups()
	for _, name := range names {
		if d := same(Get(name), lexers.Get(name)); d != "" {
			t.Errorf("Get(%q): %s", name, d)
		}
	}
}

// TestMatch checks that Match finds chroma's lexer for a file name of each
// of every lexer's file name patterns, and for odd names.
func TestMatch(t *testing.T) {
	t.Parallel()
	_, files := lookups()
	for _, file := range files {
		if d := same(Match(file), lexers.Match(file)); d != "" {
			t.Errorf("Match(%q): %s", file, d)
		}
	}
}

// TestMatchMimeType checks that MatchMimeType finds chroma's lexer for every
// lexer's MIME types, and for odd ones.
func TestMatchMimeType(t *testing.T) {
	types := []string{"", "text/unknown", "TEXT/X-GOSRC", "text/plain", "application/json; charset=utf-8"}
	for _, l := range lexers.GlobalLexerRegistry.Lexers {
		types = append(types, l.Config().MimeTypes...)
	}
	for _, mime := range types {
		if d := same(MatchMimeType(mime), lexers.MatchMimeType(mime)); d != "" {
			t.Errorf("MatchMimeType(%q): %s", mime, d)
		}
	}
}

// TestNames checks Names and Aliases against chroma's.
func TestNames(t *testing.T) {
	for _, b := range []bool{false, true} {
		if got, want := Names(b), lexers.Names(b); !slices.Equal(got, want) {
			t.Errorf("Names(%v) = %q; chroma's %q", b, got, want)
		}
		if got, want := Aliases(b), lexers.Aliases(b); !slices.Equal(got, want) {
			t.Errorf("Aliases(%v) = %q; chroma's %q", b, got, want)
		}
	}
}

// TestFallback checks Fallback against chroma's.
func TestFallback(t *testing.T) {
	if got, want := shape(Fallback), shape(lexers.Fallback); got != want {
		t.Errorf("Fallback is %s; chroma's %s", got, want)
	}
	if !reflect.DeepEqual(Fallback.Config(), lexers.Fallback.Config()) {
		t.Errorf("Fallback's config %#v; chroma's %#v", Fallback.Config(), lexers.Fallback.Config())
	}
	if got, want := PlaintextRules(), lexers.PlaintextRules(); !reflect.DeepEqual(got, want) {
		t.Errorf("PlaintextRules() = %v; chroma's %v", got, want)
	}
}

// TestRegisterBeforeBuild checks that a lexer registered before the
// registry is built is in it once built, after chroma's lexers, and that one
// registered after is added at once.
func TestRegisterBeforeBuild(t *testing.T) {
	saved := registry
	defer func() { registry = saved }()
	registry = &lazyRegistry{}

	early := chroma.MustNewLexer(&chroma.Config{Name: "early", Aliases: []string{"golang"}}, PlaintextRules)
	if Register(early) != early || registry.reg != nil {
		t.Fatal("Register built the registry")
	}
	if Get("early") != early || Get("golang") != early {
		t.Errorf("Get(early) = %v, Get(golang) = %v; want the lexer registered early for both", Get("early"), Get("golang"))
	}
	if l := Registry().Lexers; l[len(l)-1] != early {
		t.Errorf("the last lexer is %v; want the one registered early", l[len(l)-1])
	}
	late := chroma.MustNewLexer(&chroma.Config{Name: "late"}, PlaintextRules)
	Register(late)
	if Get("late") != late {
		t.Errorf("Get(late) = %v; want the lexer registered late", Get("late"))
	}
}

// TestConcurrentFirstUse uses new lexers from many goroutines at once, for
// the race detector: their rules are parsed and their analysers compiled
// on first use.
func TestConcurrentFirstUse(t *testing.T) {
	reg := buildRegistry()
	names := []string{"python", "go", "html", "markdown", "phtml", "c", "bash", "mysql", "Common Lisp", "YAML+Jinja"}
	var wg sync.WaitGroup
	errs := make(chan error, 4*len(names))
	for range 4 {
		for _, name := range names {
			wg.Go(func() {
				l := reg.Get(name)
				l.AnalyseText("#include <stdio.h>\n<?php echo 1; ?>\npackage main\n")
				if _, err := chroma.Tokenise(l, nil, "<p>x = `1` # y</p>\n"); err != nil {
					errs <- fmt.Errorf("%s: %w", name, err)
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// chromaDir returns the directory of the chroma module the tests are built
// with, and skips the test if the go command cannot tell.
func chromaDir(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/alecthomas/chroma/v2").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Skipf("cannot find chroma's module directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "lexers")); err != nil {
		t.Skipf("cannot find chroma's lexers: %v", err)
	}
	return dir
}

// BenchmarkBuildRegistry measures what the first call of the package costs.
func BenchmarkBuildRegistry(b *testing.B) {
	for b.Loop() {
		buildRegistry()
	}
}
