package cliflags

import "strings"

// Suggest returns the name among names that word is most likely a mistyped
// form of, and whether there is one. Words are compared without regard to
// case by their optimal string alignment distance (Levenshtein's edits,
// insert, delete and replace a letter, plus swapping two neighbouring
// letters, each counting one), so that "sesions", "evl" and "mpc" are one
// edit from "sessions", "eval" and "mcp".
//
// A word is taken for a name at most two edits away, and fewer for short
// words: the distance must be less than the name's length minus one and
// less than the word's own length. Two edits turn a three-letter name into
// almost any short word ("fix" is three from "run", "go" three from
// "mcp"), so a three-letter name allows one edit, and a word must keep more
// of its letters than it changes ("al" is not "eval"). Among names equally
// near, the first in names wins.
func Suggest(word string, names []string) (string, bool) {
	w := []rune(strings.ToLower(word))
	best, bestDistance := "", -1
	for _, name := range names {
		n := []rune(strings.ToLower(name))
		d := distance(w, n)
		if d > 2 || d >= len(n)-1 || d >= len(w) {
			continue
		}
		if bestDistance < 0 || d < bestDistance {
			best, bestDistance = name, d
		}
	}
	return best, bestDistance >= 0
}

// distance is the optimal string alignment distance between a and b: the
// fewest insertions, deletions, replacements and swaps of neighbouring
// letters that turn a into b, no letter being edited twice.
func distance(a, b []rune) int {
	// rows[i][j] is the distance between a[:i] and b[:j].
	rows := make([][]int, len(a)+1)
	for i := range rows {
		rows[i] = make([]int, len(b)+1)
		rows[i][0] = i
	}
	for j := range rows[0] {
		rows[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(rows[i-1][j]+1, rows[i][j-1]+1, rows[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, rows[i-2][j-2]+1)
			}
			rows[i][j] = d
		}
	}
	return rows[len(a)][len(b)]
}
