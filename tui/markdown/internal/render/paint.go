package render

import (
	"io"
	"net/url"
	"strings"

	"github.com/muesli/termenv"
)

// look is what of a Primitive shows in its escape sequence.
type look struct {
	fg, bg                                              string
	underline, bold, italic, crossedOut, inverse, blink Flag
}

// sgr returns the parameters of the escape sequence that styles text as p
// says, in the order termenv writes them, or "" when p asks for nothing
// the profile can show. A colour the profile cannot show at all still
// takes its place in the list, empty, as it does in termenv.
func (st *state) sgr(p Primitive) string {
	k := look{p.Color, p.BackgroundColor, p.Underline, p.Bold, p.Italic, p.CrossedOut, p.Inverse, p.Blink}
	// Most calls paint the padding of a line, a space at a time, in the
	// style of the call before.
	if k == st.last {
		return st.lastSeq
	}
	seq, ok := st.looks[k]
	if !ok {
		seq = st.sequence(p)
		st.looks[k] = seq
	}
	st.last, st.lastSeq = k, seq
	return seq
}

// sequence works sgr out.
func (st *state) sequence(p Primitive) string {
	var parts []string
	if p.Color != "" {
		if c := st.profile.Color(p.Color); c != nil {
			parts = append(parts, c.Sequence(false))
		}
	}
	if p.BackgroundColor != "" {
		if c := st.profile.Color(p.BackgroundColor); c != nil {
			parts = append(parts, c.Sequence(true))
		}
	}
	for _, a := range [...]struct {
		f   Flag
		seq string
	}{
		{p.Underline, termenv.UnderlineSeq}, {p.Bold, termenv.BoldSeq}, {p.Italic, termenv.ItalicSeq},
		{p.CrossedOut, termenv.CrossOutSeq}, {p.Inverse, termenv.ReverseSeq}, {p.Blink, termenv.BlinkSeq},
	} {
		if a.f == On {
			parts = append(parts, a.seq)
		}
	}
	return strings.Join(parts, ";")
}

// paint writes s to w styled as p says; it writes nothing for an empty s.
func (st *state) paint(w io.Writer, p Primitive, s string) {
	if s == "" {
		return
	}
	seq := st.sgr(p)
	if seq == "" {
		_, _ = io.WriteString(w, s)
		return
	}
	_, _ = io.WriteString(w, termenv.CSI+seq+"m"+s+termenv.CSI+termenv.ResetSeq+"m")
}

// format returns text as f formats it: f with each {{.text}} replaced by
// text.
func format(f, text string) string {
	return strings.ReplaceAll(f, "{{.text}}", text)
}

// escapable holds the characters a backslash escapes in the Markdown the
// renderer draws.
const escapable = "\\`*_{}[]<>()#+-.!|"

// unescape returns s with each backslash that escapes one of the
// characters in escapable removed, scanning from the left: the renderer
// removes those from text the parser left them in.
func unescape(s string) string {
	i := strings.IndexByte(s, '\\')
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(escapable, s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// resolve returns the address shown for a link to ref: ref itself when it
// is absolute or does not parse, otherwise ref resolved against an empty
// base, its leading slash taken off first, which drops its dot segments,
// escapes what needs escaping and starts its path with a slash.
func resolve(ref string) string {
	u, err := url.Parse(ref)
	if err != nil || u.IsAbs() {
		return ref
	}
	u.Path = strings.TrimPrefix(u.Path, "/")
	return new(url.URL).ResolveReference(u).String()
}
