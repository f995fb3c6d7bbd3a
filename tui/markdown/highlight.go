package markdown

import (
	"io"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters"
	"github.com/muesli/termenv"
)

// highlighter is the chroma formatter glamour writes code blocks with. It
// writes each token in its style's colours as the terminal's colour profile
// can show them, and works the escape sequence of each token type out once
// per style, where chroma's own terminal formatters work the whole style out
// again for every code block, which took a tenth of the time of rendering
// an answer with a few code blocks.
type highlighter struct {
	profile termenv.Profile

	mu     sync.Mutex // guards themes
	themes map[*chroma.Style]map[chroma.TokenType]string
}

// formatterName returns the name glamour asks chroma for the highlighter of
// profile by.
func formatterName(p termenv.Profile) string {
	return [...]string{"agenttui-truecolor", "agenttui-256", "agenttui-16", "agenttui-none"}[p]
}

func init() {
	// Registered when the package is loaded, since chroma's registry is a
	// plain map that rendering reads; registering costs four map entries.
	for _, p := range []termenv.Profile{termenv.TrueColor, termenv.ANSI256, termenv.ANSI, termenv.Ascii} {
		formatters.Register(formatterName(p), &highlighter{profile: p, themes: map[*chroma.Style]map[chroma.TokenType]string{}})
	}
}

// Format writes the tokens it gives, each line of a token styled on its
// own and reset at its end, so that the lines can be indented and cut.
func (h *highlighter) Format(w io.Writer, style *chroma.Style, it chroma.Iterator) error {
	theme := h.theme(style)
	var b strings.Builder
	for t := it(); t != chroma.EOF; t = it() {
		seq, ok := theme[t.Type]
		if !ok {
			if seq, ok = theme[t.Type.SubCategory()]; !ok {
				if seq, ok = theme[t.Type.Category()]; !ok {
					seq = theme[chroma.Text]
				}
			}
		}
		if seq == "" {
			b.WriteString(t.Value)
			continue
		}
		for i, line := range strings.Split(t.Value, "\n") {
			if i > 0 {
				b.WriteByte('\n')
			}
			if line != "" {
				b.WriteString(seq)
				b.WriteString(line)
				b.WriteString("\x1b[0m")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// theme returns the escape sequence of each token type of style.
func (h *highlighter) theme(style *chroma.Style) map[chroma.TokenType]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t, ok := h.themes[style]; ok {
		return t
	}
	// The background of the code block as a whole is left to the
	// terminal, as chroma's terminal formatters leave it: token types
	// that set no background of their own get none.
	b := style.Builder()
	bg := b.Get(chroma.Background)
	bg.Background, bg.NoInherit = 0, true
	b.AddEntry(chroma.Background, bg)
	if cleared, err := b.Build(); err == nil {
		style = cleared
	}
	t := map[chroma.TokenType]string{}
	for _, tt := range style.Types() {
		t[tt] = h.sequence(style.Get(tt))
	}
	h.themes[style] = t
	return t
}

// sequence returns the escape sequence that styles text as e says.
func (h *highlighter) sequence(e chroma.StyleEntry) string {
	var codes []string
	if e.Bold == chroma.Yes {
		codes = append(codes, "1")
	}
	if e.Italic == chroma.Yes {
		codes = append(codes, "3")
	}
	if e.Underline == chroma.Yes {
		codes = append(codes, "4")
	}
	if e.Colour.IsSet() {
		if c := h.profile.Color(e.Colour.String()); c != nil {
			codes = append(codes, c.Sequence(false))
		}
	}
	if e.Background.IsSet() {
		if c := h.profile.Color(e.Background.String()); c != nil {
			codes = append(codes, c.Sequence(true))
		}
	}
	if len(codes) == 0 || h.profile == termenv.Ascii {
		return ""
	}
	return "\x1b[" + strings.Join(codes, ";") + "m"
}
