package text

import (
	"fmt"
	"strings"
	"time"

	"github.com/agenttui/agenttui/internal/plural"
	"github.com/agenttui/agenttui/runtime/model"
)

// JoinLines joins lines, cut or padded with empty lines to exactly n.
func JoinLines(lines []string, n int) string {
	if len(lines) > n {
		lines = lines[:n]
	}
	var sb strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteByte('\n')
		}
		if i < len(lines) {
			sb.WriteString(lines[i])
		}
	}
	return sb.String()
}

// Since renders a duration for the board: "0.4s", "12s", "3m04s".
func Since(d time.Duration) string {
	switch {
	case d < 0:
		d = 0
		fallthrough
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// Tokens renders token usage as the runtime words it, so the status bar,
// the transcript and the final outcome say it alike: "tokens 48k in (41k
// cached) · 2.1k out · $0.07", the cost only when it is known.
func Tokens(u model.Usage) string { return u.String() }

// Count renders a token count compactly, as Tokens does: 950, 2.1k, 48k,
// 1.2M.
func Count(n int) string { return model.CountTokens(n) }

// WindowSize renders a context window: "128k", "1M", "32k".
func WindowSize(n int) string {
	switch {
	case n >= 1_000_000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1_000_000), ".0") + "M"
	case n >= 1000:
		return fmt.Sprintf("%dk", (n+500)/1000)
	}
	return fmt.Sprint(n)
}

// Plural returns n and noun, with an s unless n is 1, as plural.Of does.
func Plural(n int, noun string) string { return plural.Of(n, noun) }

// Numbers renders call indices as "#1, #3".
func Numbers(idx []int) string {
	parts := make([]string, len(idx))
	for i, x := range idx {
		parts[i] = fmt.Sprintf("#%d", x+1)
	}
	return strings.Join(parts, ", ")
}
