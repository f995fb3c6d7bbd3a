package eval

import (
	"fmt"
	"io"
	"strings"

	"github.com/agenttui/agenttui/internal/sanitize"
)

// barWidth is the progress bar's width in cells: fixed, so the line never
// wraps on a narrow terminal and always redraws over itself.
const barWidth = 20

// progress writes how far a suite has got. Run calls it from the one
// goroutine that collects results, so its writes never interleave and it
// needs no lock.
type progress struct {
	w       io.Writer // nil writes nothing
	bar     bool
	total   int
	repeat  int
	done    int
	failing int
}

func newProgress(w io.Writer, bar bool, total, repeat int) *progress {
	return &progress{w: w, bar: bar, total: total, repeat: repeat}
}

// start draws the empty bar, so a terminal shows at once that the suite
// is under way; a log gets nothing until a run finishes.
func (p *progress) start() {
	if p.w != nil && p.bar {
		p.draw()
	}
}

// finished records run r of case c, and redraws the bar or writes the
// run's line.
func (p *progress) finished(c *Case, r RunResult) {
	p.done++
	if !r.Passed() {
		p.failing++
	}
	if p.w == nil {
		return
	}
	if p.bar {
		p.draw()
		return
	}
	name := sanitize.Line(c.Name)
	if p.repeat > 1 {
		name += fmt.Sprintf(" run %d", r.Run)
	}
	result := "pass"
	if !r.Passed() {
		result = "FAIL: " + clip(sanitize.Line(r.Failures[0]), 100)
	}
	digits := len(fmt.Sprint(p.total))
	fmt.Fprintf(p.w, "[%*d/%d] %s: %s (%s)\n", digits, p.done, p.total, name, result, seconds(r.Duration))
}

// draw redraws the bar over the line it is on.
func (p *progress) draw() {
	filled := 0
	if p.total > 0 {
		filled = p.done * barWidth / p.total
	}
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d runs · %d failing", strings.Repeat("█", filled),
		strings.Repeat("░", barWidth-filled), p.done, p.total, p.failing)
}

// end clears the bar's line, so what is printed next starts on a clean
// line.
func (p *progress) end() {
	if p.w != nil && p.bar {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
