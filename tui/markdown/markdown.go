// Package markdown draws the model's Markdown in the terminal: headings,
// lists, emphasis, inline code, fenced code blocks with syntax highlighting,
// tables, and links shown as their text followed by the URL.
//
// The text is untrusted, so it is made safe before and after rendering: the
// input is sanitised (escape sequences and control characters become visible
// placeholders, and character references that would decode to one are
// replaced by the placeholder too), and the renderer's output keeps nothing
// but its own styling (SGR sequences). A Markdown answer can therefore never
// move the cursor, plant a hyperlink (OSC 8), set the clipboard or reorder
// text with bidirectional controls.
//
// Rendering is done by the renderer of package render, which draws what
// glamour's ANSI renderer would, in glamour's styles, but for wrapping each
// paragraph once, at spaces, where glamour may wrap a line twice. The parser, the style
// and the highlighter are set up on first use, not when the package is
// loaded; a Doc renders its text at most once per width, and each code block
// is highlighted once, whatever the width.
package markdown

import (
	"bytes"
	"html"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"

	xansi "github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/agenttui/agenttui/internal/sanitize"
	"github.com/agenttui/agenttui/tui/internal/lexers"
	"github.com/agenttui/agenttui/tui/markdown/internal/render"
)

// tabWidth is how many columns a tab in the text stands for; the terminal
// never sees a tab.
const tabWidth = 4

// Renderer renders Markdown at any width, in one style: colours for a dark
// or a light background, or none at all (NO_COLOR, or a terminal without
// colours), where headings and code keep their Markdown marks so they still
// read as such. A Renderer is safe for use by several goroutines.
type Renderer struct {
	profile termenv.Profile
	dark    bool

	// once builds style, draw, code and parser, which every render reads.
	once  sync.Once
	style render.Config
	draw  drawFunc
	code  *highlighter // nil without colours

	mu     sync.Mutex // guards parser while it parses
	parser parser.Parser
}

// drawFunc draws doc, parsed from source, wrapped at width columns, to w.
type drawFunc func(w io.Writer, source []byte, doc ast.Node, width int) error

// New returns a Renderer for a terminal with the given colour profile and
// background. It does no work until the first Render.
func New(profile termenv.Profile, dark bool) *Renderer {
	return &Renderer{profile: profile, dark: dark}
}

// warmDoc has what makes the parser set itself up: a table, a task, a link
// to find in the text, an HTML block and a code block.
const warmDoc = "| a | b |\n|---|:-:|\n| 1 | 2 |\n\n- [x] done, see https://example.com\n\n<div>x</div>\n\n```go\nx := 1\n```\n"

// Warm sets up what the first Markdown a process renders would otherwise
// wait for, and which is not set up when the program starts so that the
// console's first frame comes sooner and smaller: the parser's extensions
// (their regular expressions), the renderer, and the lexer registry. The
// console calls it on a goroutine of its own when a run starts, while the
// model thinks of its first answer. It does its work once; it is safe to
// call at any time, from any goroutine.
func Warm() { warmOnce.Do(warm) }

// warmOnce makes Warm's work happen once.
var warmOnce sync.Once

func warm() {
	New(termenv.Ascii, true).Render(warmDoc, 80)
	lexers.Registry()
}

// Render returns text rendered for a terminal width columns wide: lines
// without trailing newlines, none wider than width, with no blank lines at
// the start or the end. text is untrusted. If rendering fails, the text is
// returned wrapped but otherwise as it was, still sanitised.
func (r *Renderer) Render(text string, width int) []string {
	width = max(width, 1)
	r.setUpOnce()
	src := prepare(text)
	out, err := r.render(src, width)
	if err != nil {
		out = plain(src, width)
	}
	return finish(out, width)
}

// setUpOnce sets r up, if it is not yet, and returns it.
func (r *Renderer) setUpOnce() *Renderer {
	r.once.Do(r.setUp)
	return r
}

// setUp works out the style, the renderer, the highlighter of code blocks
// and the parser.
func (r *Renderer) setUp() {
	r.style = r.styleConfig()
	r.draw = render.New(r.style, r.profile).Render
	if r.profile != termenv.Ascii {
		r.code = newHighlighter(r.profile, r.style.CodeBlock)
	}
	// As glamour.NewTermRenderer builds its parser, whose documents the
	// renderer draws as glamour's would.
	r.parser = goldmark.New(
		goldmark.WithExtensions(extension.GFM, extension.DefinitionList),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()),
	).Parser()
}

// render converts src, with code blocks highlighted beforehand, once
// whatever the width, and put in afterwards (see highlightCode).
func (r *Renderer) render(src string, width int) (string, error) {
	out, done, err := r.convert(src, width, true)
	if err == nil && !done {
		out, _, err = r.convert(src, width, false)
	}
	return out, err
}

// convert converts src. With mark set, code lines that fit are marked and
// spliced in once the document is drawn; done is false if one did not fit
// after all, and then src must be converted again without marks.
func (r *Renderer) convert(src string, width int, mark bool) (out string, done bool, err error) {
	source := []byte(src)
	r.mu.Lock()
	doc := r.parser.Parse(text.NewReader(source))
	r.mu.Unlock()
	var sp *spliced
	if r.code != nil {
		source, sp = r.code.highlightCode(doc, source, width, mark)
	}
	var b bytes.Buffer
	err = r.draw(&b, source, doc, width)
	if sp == nil {
		return b.String(), true, err
	}
	sp.done.Wait()
	if err != nil {
		return "", false, err
	}
	out, done = splice(b.String(), sp.lines)
	return out, done, nil
}

// styleConfig returns the style for the terminal, glamour's, without the
// margins and blank lines glamour puts around a whole document: the
// transcript places and indents the text itself.
func (r *Renderer) styleConfig() render.Config {
	var s render.Config
	switch {
	case r.profile == termenv.Ascii:
		s = render.ASCII
		// Without colour, inline code keeps its backticks to stand out.
		s.Code.Prefix, s.Code.Suffix = "`", "`"
		s.Code.BlockPrefix, s.Code.BlockSuffix = "", ""
	case r.dark:
		s = render.Dark
	default:
		s = render.Light
	}
	s.Document.Margin = 0
	s.Document.BlockPrefix, s.Document.BlockSuffix = "", ""
	s.Document.Color = ""
	// Images cannot be shown: say what they are and where.
	s.ImageText.Format = "image: {{.text}} →"
	return s
}

// prepare makes untrusted Markdown safe to hand to the renderer: escape
// sequences and control characters become placeholders, tabs spaces, and
// character references that would decode to a control character (&#27;,
// &#x202e;, &rlm;…) become the placeholder of that character, since the
// Markdown parser decodes them after sanitising could see them.
func prepare(text string) string {
	s := expandTabs(sanitize.Text(text))
	if strings.Contains(s, "&") {
		s = charRef().ReplaceAllStringFunc(s, defuse)
	}
	return s
}

// charRef matches an HTML character reference: named, decimal or hex. It is
// compiled on first use: the console's first frame renders no Markdown.
var charRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`&(?:#[0-9]{1,8}|#[xX][0-9a-fA-F]{1,8}|[A-Za-z][A-Za-z0-9]{1,31});`)
})

// defuse returns a character reference as it is, unless it stands for a
// character the terminal must not see; then it returns that character's
// placeholder.
func defuse(ref string) string {
	var decoded string
	if strings.HasPrefix(ref, "&#") {
		// Decoded here rather than by html.UnescapeString, which maps
		// 0x80–0x9F to Windows-1252 where the Markdown parser keeps
		// the C1 control.
		num := ref[2 : len(ref)-1]
		base := 10
		if num[0] == 'x' || num[0] == 'X' {
			num, base = num[1:], 16
		}
		n, err := strconv.ParseUint(num, base, 32)
		if err != nil || n == 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff) {
			return ref
		}
		decoded = string(rune(n))
	} else {
		decoded = html.UnescapeString(ref)
		if decoded == ref {
			return ref
		}
	}
	if safe := sanitize.Text(decoded); safe != decoded || strings.ContainsAny(decoded, "\n\t") {
		return strings.NewReplacer("\n", " ", "\t", " ").Replace(safe)
	}
	return ref
}

// expandTabs replaces each tab with the spaces up to the next tab stop.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		switch r {
		case '\t':
			n := tabWidth - col%tabWidth
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case '\n':
			b.WriteRune(r)
			col = 0
		default:
			b.WriteRune(r)
			col++
		}
	}
	return b.String()
}

// plain is the fallback when the renderer fails: the text wrapped.
func plain(s string, width int) string {
	return xansi.Wrap(s, width, "")
}

// finish turns the renderer's output into the lines the console draws: only
// styling survives as escape sequences, trailing padding is dropped, every
// line fits the width and closes its own styling, and blank lines at the
// start and the end go. Blank lines inside stay: they may be a code block's.
func finish(out string, width int) []string {
	lines := strings.Split(sanitize.Styled(out), "\n")
	first, last := -1, -1
	for i, l := range lines {
		lines[i] = fit(l, width)
		if lines[i] != "" {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return []string{""}
	}
	return lines[first : last+1]
}

// fit returns l without its trailing spaces, cut to width columns with an
// ellipsis when it is wider (a long code line), and with its styling reset
// at its end so that nothing bleeds into the next line. A line that shows
// nothing becomes "".
func fit(l string, width int) string {
	styled := strings.Contains(l, "\x1b")
	if styled {
		if end, w, ok := asciiEnd(l); ok {
			// The common case, worked out in one pass: the renderer pads
			// its lines with spaces to the width.
			switch {
			case end < 0:
				return ""
			case w > width:
				l = xansi.Truncate(l, width-1, "") + "…"
			case end < len(l):
				l = l[:end] + sgrOnly(l[end:])
			}
			return l + "\x1b[0m"
		}
	}
	return fitAny(l, width, styled)
}

// fitAny is fit for any line.
func fitAny(l string, width int, styled bool) string {
	text := l
	if styled {
		text = xansi.Strip(l)
	}
	trimmed := strings.TrimRight(text, " ")
	if trimmed == "" {
		return ""
	}
	w := len(trimmed)
	if !ascii(trimmed) {
		w = xansi.StringWidth(trimmed)
	}
	switch {
	case w > width:
		l = xansi.Truncate(l, width-1, "") + "…"
	case len(trimmed) < len(text) && styled:
		// Keep the styled text up to the last visible character: a
		// background colour on the padding would paint a block.
		l = xansi.Truncate(l, w, "")
	case len(trimmed) < len(text):
		l = trimmed
	}
	if styled {
		l += "\x1b[0m"
	}
	return l
}

// asciiEnd returns, for a line whose escape sequences are all SGR (it has
// been through sanitize.Styled), where its last visible character other
// than a space ends and how many columns the line takes up to there; end
// is -1 when it shows nothing but spaces. ok is false, and the rest
// meaningless, when it shows a character that is not ASCII.
func asciiEnd(l string) (end, width int, ok bool) {
	end, cols := -1, 0
	for i := 0; i < len(l); i++ {
		switch c := l[i]; {
		case c == 0x1b:
			m := strings.IndexByte(l[i:], 'm')
			if m < 0 {
				return 0, 0, false
			}
			i += m
		case c >= 0x80:
			return 0, 0, false
		default:
			cols++
			if c != ' ' {
				end, width = i+1, cols
			}
		}
	}
	return end, width, true
}

// sgrOnly returns the escape sequences of s, an SGR-only tail of spaces:
// what xansi.Truncate keeps of the part of a line it cuts off. Without its
// padding, a styled line ends where its text does: a background colour on
// the padding would paint a block.
func sgrOnly(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, 0x1b)
		if i < 0 {
			return b.String()
		}
		m := strings.IndexByte(s[i:], 'm')
		b.WriteString(s[i : i+m+1])
		s = s[i+m+1:]
	}
}

// ascii reports whether s is all ASCII, so that its width is its length.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// Doc is one finished piece of Markdown, such as a complete model reply. It
// renders its text at most once per width, keeping the last few widths, so
// that drawing it again, or going back to an earlier terminal size, costs
// nothing.
type Doc struct {
	r    *Renderer
	text string

	mu    sync.Mutex // guards cache
	cache []rendered // newest first
}

// rendered is a Doc's lines at one width.
type rendered struct {
	width int
	lines []string
}

// docWidths is how many widths a Doc keeps its lines for.
const docWidths = 3

// Doc returns the Doc of text, rendered by r.
func (r *Renderer) Doc(text string) *Doc { return &Doc{r: r, text: text} }

// Text returns the Markdown the Doc was made from, as it was given.
func (d *Doc) Text() string { return d.text }

// Lines returns the Doc's lines at width; see Renderer.Render. The slice is
// shared: callers must not change it.
func (d *Doc) Lines(width int) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, c := range d.cache {
		if c.width == width {
			if i > 0 {
				d.cache[0], d.cache[i] = d.cache[i], d.cache[0]
			}
			return c.lines
		}
	}
	lines := d.r.Render(d.text, width)
	d.cache = append([]rendered{{width, lines}}, d.cache...)
	if len(d.cache) > docWidths {
		d.cache = d.cache[:docWidths]
	}
	return lines
}
