package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime/model"
)

// unknownOnPurpose are model names the texts give as names the tables do
// not know, with why.
var unknownOnPurpose = map[string]string{
	"claude-fable-5-3": "a newer version whose name begins with a known one, unknown until the table learns it",
	"claude-opus":      "the beginning of names, as the configuration's prices may give one",
}

// TestModelNamesAreInTheTables checks every OpenAI and Anthropic model name
// that a person reads: in the README and docs/*.md, in the string literals
// of the console and the command line (the Go files outside tests under
// tui/, cmd/agenttui/ and internal/), and in runtime/model's comments and
// strings, whose doc comments give names as examples. Each must be a row of
// the model tables (runtime/model/models_*.go), or a snapshot of one, so
// that no text names a model that does not exist.
func TestModelNamesAreInTheTables(t *testing.T) {
	texts := map[string]string{}
	files := []string{filepath.Join("..", "README.md")}
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append(files, pages...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			texts[f+":"+strconv.Itoa(i+1)] = line
		}
	}
	for _, dir := range []string{"tui", "cmd/agenttui", "internal"} {
		goTexts(t, texts, filepath.Join("..", dir), false)
	}
	goTexts(t, texts, filepath.Join("..", "runtime", "model"), true)
	names := 0
	for _, where := range sortedKeys(texts) {
		for _, name := range unknownModels(texts[where]) {
			t.Errorf("%s names %s, which is not in the model tables (runtime/model/models_*.go): %q", where, name, strings.TrimSpace(texts[where]))
		}
		names += len(modelNames(texts[where]))
	}
	if names < 20 {
		t.Fatalf("only %d model names found: is the extraction broken?", names)
	}
	t.Logf("%d model names checked in %d texts", names, len(texts))
}

// TestUnknownModelsAreFound checks that the test above would see a made-up
// name in every shape a text writes one, and passes the names it should.
func TestUnknownModelsAreFound(t *testing.T) {
	text := "run --model openai:gpt-6.2-sol or anthropic:claude-opus-5-5 (snapshot claude-sonnet-4-5-20250929), " +
		"not openai:gpt-7-turbo, anthropic:claude-opus-9, `claude-sonnet-9-9`, o9-mini or gpt-5.7; " +
		"openai:llama3.2, openai:NAME, anthropic:… and .claude/agents are no model names of the tables' providers, " +
		"and claude-fable-5-3 is unknown on purpose. ft:o4-mini-2025-04-16:org::id reasons as o4-mini."
	got := strings.Join(unknownModels(text), " ")
	if want := "openai:gpt-7-turbo anthropic:claude-opus-9 claude-sonnet-9-9 o9-mini gpt-5.7"; got != want {
		t.Fatalf("unknown models %q, want %q", got, want)
	}
}

// TestReadmeRecommendsTheConsolesModels checks that the README's quick start
// names the models the console's own hints recommend.
func TestReadmeRecommendsTheConsolesModels(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{model.RecommendedOpenAI, model.RecommendedAnthropic} {
		if !strings.Contains(string(b), "--model "+spec) {
			t.Errorf("the README does not show --model %s", spec)
		}
	}
}

// goTexts adds to texts the string literals of the Go files outside tests
// under dir, and their comments too when comments is set, each under its
// file and line.
func goTexts(t *testing.T, texts map[string]string, dir string, comments bool) {
	t.Helper()
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		mode := parser.SkipObjectResolution
		if comments {
			mode |= parser.ParseComments
		}
		f, err := parser.ParseFile(fset, path, nil, mode)
		if err != nil {
			return err
		}
		add := func(pos token.Pos, s string) {
			p := fset.Position(pos)
			key := p.Filename + ":" + strconv.Itoa(p.Line)
			texts[key] += " " + s
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					add(lit.Pos(), s)
				}
			}
			return true
		})
		for _, g := range f.Comments {
			for _, c := range g.List {
				add(c.Pos(), c.Text)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The shapes of model names: a provider's spec, and the bare names of the
// two providers' families.
var (
	specName = regexp.MustCompile(`\b(openai|anthropic):([A-Za-z0-9][A-Za-z0-9._-]*)`)
	bareName = regexp.MustCompile(`(^|[^A-Za-z0-9_.:/-])(gpt-[0-9][A-Za-z0-9._-]*|claude-[a-z0-9][A-Za-z0-9._-]*|o[1-9](?:-[a-z]+)?)\b`)
)

// modelNames returns the OpenAI and Anthropic model names in text: provider
// specs whose name is of the provider's families ("openai:gpt-…",
// "openai:o3…", "anthropic:claude-…"), and bare names of those families. A
// spec of another name ("openai:llama3.2", "openai:NAME") is a model of a
// compatible server or a placeholder, not one of the tables'.
func modelNames(text string) []string {
	var out []string
	for _, m := range specName.FindAllStringSubmatch(text, -1) {
		name := strings.TrimRight(m[2], ".-")
		if bareName.MatchString(name) && (m[1] == "anthropic") == strings.HasPrefix(name, "claude-") {
			out = append(out, m[1]+":"+name)
		}
	}
	for _, m := range bareName.FindAllStringSubmatch(specName.ReplaceAllString(text, " "), -1) {
		out = append(out, strings.TrimRight(m[2], ".-"))
	}
	return out
}

// unknownModels returns the model names in text that the tables do not
// know, but for those unknown on purpose.
func unknownModels(text string) []string {
	var out []string
	for _, name := range modelNames(text) {
		bare := name[strings.IndexByte(name, ':')+1:]
		if _, ok := model.Lookup(name); !ok && unknownOnPurpose[bare] == "" {
			out = append(out, name)
		}
	}
	return out
}

// sortedKeys returns m's keys in order, so that failures come in file order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
