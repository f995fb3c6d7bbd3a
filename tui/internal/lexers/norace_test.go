//go:build !race

package lexers

// raceEnabled reports whether the tests run with the race detector, which
// makes tokenising some twenty times slower.
const raceEnabled = false
