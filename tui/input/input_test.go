package input

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/agenttui/agenttui/tui/internal/text"
)

// TestWrappedRowsMatchTheTextArea checks the input's count of wrapped rows
// against what the text area draws, for random text at several widths.
func TestWrappedRowsMatchTheTextArea(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	words := []string{"a", "to", "word", "longer", "extraordinarily", "世界", "🙂", "x", "", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}
	for i := 0; i < 300; i++ {
		var parts []string
		for n := rng.Intn(25); n > 0; n-- {
			parts = append(parts, words[rng.Intn(len(words))])
		}
		line := strings.Join(parts, strings.Repeat(" ", 1+rng.Intn(2)))
		width := 3 + rng.Intn(40)
		in := New("", nil, DefaultKeyMap(), text.DefaultStyles())
		in.ta.EndOfBufferCharacter = '~'
		in.ta.SetWidth(width)
		in.SetValue(line)
		in.ta.SetHeight(200)
		drawn := 0
		for _, row := range strings.Split(in.ta.View(), "\n") {
			if strings.HasPrefix(ansi.Strip(row), "~") {
				break
			}
			drawn++
		}
		if got := wrappedRows([]rune(line), width); got != drawn {
			t.Fatalf("%q at width %d: counted %d rows, the text area draws %d", line, width, got, drawn)
		}
	}
}
