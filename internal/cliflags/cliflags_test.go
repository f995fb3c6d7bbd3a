package cliflags

import (
	"errors"
	"flag"
	"io"
	"slices"
	"testing"
)

func newSet() (*flag.FlagSet, *int, *bool) {
	fs := flag.NewFlagSet("agenttui eval", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	n := fs.Int("parallel", 1, "")
	j := fs.Bool("json", false, "")
	return fs, n, j
}

func TestFlagsAnywhereAmongArguments(t *testing.T) {
	fs, n, j := newSet()
	got, err := Parse(fs, []string{"a", "--parallel", "3", "b", "--json", "--", "--c"})
	if err != nil || !slices.Equal(got, []string{"a", "b", "--c"}) || *n != 3 || !*j {
		t.Errorf("got %q, %v; parallel %d json %v", got, err, *n, *j)
	}
}

func TestProblemsAreOneLine(t *testing.T) {
	cases := map[string]string{
		"--nope":          "unknown flag --nope (see agenttui eval --help)",
		"--parallel":      "flag --parallel needs a value",
		"--parallel=many": `invalid value "many" for flag -parallel: parse error`,
	}
	for arg, want := range cases {
		fs, _, _ := newSet()
		_, err := Parse(fs, []string{"x", arg})
		if err == nil || Problem(err, "agenttui eval") != want {
			t.Errorf("%s: got %v, said %q, want %q", arg, err, Problem(err, "agenttui eval"), want)
		}
	}
	fs, _, _ := newSet()
	if _, err := Parse(fs, []string{"-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h gave %v", err)
	}
}
