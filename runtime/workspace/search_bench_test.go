package workspace

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The patterns grep is measured with over Go's own source tree. They are
// also in testdata/vs-ripgrep.sh, which times ripgrep on the same ones.
var benchPatterns = []struct{ name, pattern string }{
	// Literal-rich: the prefilter looks for ") Close() error"; fewer than
	// 200 lines match, so every file is searched.
	{"literal", `func \(\w+ \*\w+\) Close\(\) error`},
	// Rare: nothing matches, so every file is read whole.
	{"rare", `agenttui_no_such_text`},
	// Many matches: tens of thousands of lines.
	{"many", `err != nil`},
}

// gorootSrc returns a workspace over $(go env GOROOT)/src, or skips the
// benchmark when there is none.
func gorootSrc(b *testing.B) *Workspace {
	b.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "src")
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		b.Skipf("no Go source tree at %s", dir)
	}
	w, err := New(dir)
	if err != nil {
		b.Fatal(err)
	}
	return w
}

// BenchmarkGrepGOROOT runs the grep tool over Go's source tree, as the
// model would call it: the many-matches pattern stops at the match cap.
func BenchmarkGrepGOROOT(b *testing.B) {
	w := gorootSrc(b)
	for _, p := range benchPatterns {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				ret := w.grep(context.Background(), grepArgs{Pattern: p.pattern})
				if !ret.Outcome().IsSuccess() {
					b.Fatal(ret.Output)
				}
			}
		})
	}
}

// BenchmarkGrepGOROOTAll runs the same searches with no match cap, finding
// every matching line as ripgrep does; this is what is compared with rg.
func BenchmarkGrepGOROOTAll(b *testing.B) {
	w := gorootSrc(b)
	for _, p := range benchPatterns {
		b.Run(p.name, func(b *testing.B) {
			re := regexp.MustCompile(p.pattern)
			pf := newPrefilter(p.pattern, re)
			matches := 0
			for b.Loop() {
				s := newSearch(re, pf, math.MaxInt32)
				if err := w.walk(context.Background(), ".", w.baseRules(), s.walker(nil, false)); err != nil {
					b.Fatal(err)
				}
				out, r := s.result()
				matches = r.matches
				_ = out
			}
			b.ReportMetric(float64(matches), "lines")
		})
	}
}

// BenchmarkGlobGOROOT runs the glob tool for **/*_test.go over Go's source
// tree.
func BenchmarkGlobGOROOT(b *testing.B) {
	w := gorootSrc(b)
	for b.Loop() {
		ret := w.glob(context.Background(), globArgs{Pattern: "**/*_test.go"})
		if !ret.Outcome().IsSuccess() || !strings.Contains(ret.Output.(string), "_test.go") {
			b.Fatal(ret.Output)
		}
	}
}
