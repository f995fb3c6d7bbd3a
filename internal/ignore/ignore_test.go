package ignore

import "testing"

// The last pattern that matches decides, a negation keeps a path, comments
// and blank lines are no patterns, a CR before the newline is dropped, and
// a pattern read in a folder applies below it only.
func TestParseAndExcluded(t *testing.T) {
	ps := Parse([]byte("# comment\r\n\r\n*.log\r\n!keep.log\nbuild/\n"), nil)
	if len(ps) != 3 {
		t.Fatalf("%d patterns, want 3", len(ps))
	}
	sub := Parse([]byte("secret.txt\n"), []string{"sub"})
	all := append(ps, sub...)
	for _, c := range []struct {
		comps []string
		dir   bool
		want  bool
	}{
		{[]string{"a.log"}, false, true},
		{[]string{"keep.log"}, false, false},
		{[]string{"x", "build"}, true, true},
		{[]string{"build"}, false, false},
		{[]string{"sub", "secret.txt"}, false, true},
		{[]string{"secret.txt"}, false, false},
		{[]string{"# comment"}, false, false},
	} {
		if got := Excluded(all, c.comps, c.dir); got != c.want {
			t.Errorf("Excluded(%v, dir %v) = %v, want %v", c.comps, c.dir, got, c.want)
		}
	}
	if !IsFile(".ignore") || !IsFile(".gitignore") || IsFile(".gitignore~") {
		t.Error("IsFile")
	}
}
