// Package plural words a count and its noun so that they agree: "1 hook
// command", "3 hook commands". Every text that says how many of something
// there are, the console's, the command line's and the notices of the
// runtime, words it here. It is a leaf: it imports nothing of the project.
package plural

import "strconv"

// Of returns n and noun, with an s added to the noun unless n is 1:
// "1 file", "0 files", "3 hook commands".
func Of(n int, noun string) string { return Irregular(n, noun, noun+"s") }

// Irregular returns n and one when n is 1, else n and many, for a noun
// whose plural is not its singular and an s: "1 entry", "2 entries".
func Irregular(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
