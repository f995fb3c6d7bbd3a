//go:build !race

package markdown

// raceEnabled is set when the tests run with the race detector, which
// makes rendering some ten times slower.
const raceEnabled = false
