package markdown

// The code blocks of a document reach the renderer plain and marked, and are
// spliced back highlighted once it is done: see highlightCode.

import (
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	xansi "github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// highlightCode highlights the code blocks of doc, parsed from source, and
// turns them into fenced blocks without a language whose code is appended
// to source; it returns the source to render doc from, and the highlighted
// lines (nil when none is marked), which splice puts into the rendered
// document once they are done. The renderer writes the code of a block as
// it is given, highlighted already.
//
// The renderer is given each block's code as plain text, each line marked
// with an escape sequence after its first character that says which line it
// is, and ended by a reset: it indents and frames the lines as it would the
// highlighted ones (the sequences take no room), but its writers, which go
// through their input a character at a time, do not go through the escape
// sequences of the highlighting, which make up most of a highlighted line.
//
// A block some of whose lines the renderer may wrap, being wider than width
// less the room its container takes, is given to it highlighted, as are all
// blocks when mark is false: splicing a wrapped line back is not worth its
// trouble.
func (h *highlighter) highlightCode(doc ast.Node, source []byte, width int, mark bool) ([]byte, *spliced) {
	var blocks []ast.Node
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && (n.Kind() == ast.KindFencedCodeBlock || n.Kind() == ast.KindCodeBlock) {
			blocks = append(blocks, n)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	if len(blocks) == 0 {
		return source, nil
	}
	out := append(make([]byte, 0, len(source)+len(blocks)*256), source...)
	sp := &spliced{lines: make([][]string, len(blocks))}
	var todo []codeBlock // the marked blocks, highlighted while the document is drawn
	var at []int         // their indices
	for b, n := range blocks {
		lang := ""
		if f, ok := n.(*ast.FencedCodeBlock); ok && f.Info != nil {
			// As FencedCodeBlock.Language has it, without calling it:
			// it keeps its first answer.
			lang, _, _ = strings.Cut(string(f.Info.Segment.Value(source)), " ")
		}
		var code strings.Builder
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			code.Write(seg.Value(source))
		}
		start := len(out)
		plain := strings.Split(code.String(), "\n")
		if !mark || !fits(plain, width-room(n)) {
			out = append(out, h.highlight(lang, code.String())...)
		} else {
			todo = append(todo, codeBlock{lang, code.String()})
			at = append(at, b)
			for i, line := range plain {
				if i > 0 {
					out = append(out, '\n')
				}
				if line != "" {
					_, first := utf8.DecodeRuneInString(line)
					out = append(out, line[:first]...)
					out = appendMark(out, b, i)
					out = append(out, line[first:]...)
					out = append(out, "\x1b[0m"...)
				}
			}
		}
		fenced := ast.NewFencedCodeBlock(nil)
		fenced.Lines().Append(text.NewSegment(start, len(out)))
		n.Parent().ReplaceChild(n.Parent(), n, fenced)
	}
	if len(todo) == 0 {
		return out, nil
	}
	// Lexing takes as long as drawing the document or more: it is done on
	// other cores meanwhile, when there are any.
	workers := min(len(todo), max(1, runtime.GOMAXPROCS(0)-1))
	var next atomic.Int32
	sp.done.Add(workers)
	for range workers {
		go func() {
			defer sp.done.Done()
			for j := int(next.Add(1)) - 1; j < len(todo); j = int(next.Add(1)) - 1 {
				// The highlighted text has the code's lines, and a line
				// is empty in one when it is in the other.
				sp.lines[at[j]] = strings.Split(h.highlight(todo[j].lang, todo[j].code), "\n")
			}
		}()
	}
	return out, sp
}

// spliced is the highlighted lines of the marked code blocks of a document:
// lines[n][i] is line i of block n, nil for a block that is not marked. They
// are ready once done is.
type spliced struct {
	done  sync.WaitGroup
	lines [][]string
}

// room returns at least as many columns as the containers of code block n
// take from the width (the renderer indents a code block by 2, and a list
// item or a quote by less than 4), so that a line no wider than the width
// less room is never wrapped by the renderer.
func room(n ast.Node) int {
	r := 2
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Kind() != ast.KindDocument {
			r += 4
		}
	}
	return r
}

// fits reports whether every line is at most width columns wide.
func fits(lines []string, width int) bool {
	for _, l := range lines {
		if len(l) > width && (ascii(l) || xansi.StringWidth(l) > width) {
			return false
		}
	}
	return true
}

// appendMark appends to b the escape sequence that marks line i of code
// block n: ESC [ n ; i z. The input was sanitised, so no other escape
// sequence but the renderer's own styling (SGR) can be in the rendered
// document.
func appendMark(b []byte, n, i int) []byte {
	b = append(b, "\x1b["...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, ';')
	b = strconv.AppendInt(b, int64(i), 10)
	return append(b, 'z')
}

// splice puts the highlighted code lines into out, the rendering of the
// marked ones, as the renderer would have written them had it been given
// them: each line's first escape sequence, then a reset, then whatever the
// renderer put before the line (its indentation, a quote's bar), then the
// line. It reports false, and out is to be rendered again from
// highlighted code, if the renderer wrapped a marked line after all.
func splice(out string, highlighted [][]string) (string, bool) {
	if highlighted == nil {
		return out, true
	}
	var b strings.Builder
	b.Grow(len(out) * 3)
	pos := 0 // out[:pos] is in b
	for at := pos; ; {
		i := strings.Index(out[at:], "\x1b[")
		if i < 0 {
			break
		}
		i += at
		n, line, size, ok := parseMark(out[i:])
		end := -1
		if ok && n < len(highlighted) && line < len(highlighted[n]) && i > pos {
			end = strings.Index(out[i+size:], "\x1b[0m")
		}
		if end < 0 {
			// The renderer's own styling.
			at = i + 2
			continue
		}
		if strings.IndexByte(out[i+size:i+size+end], '\n') >= 0 {
			return "", false
		}
		_, first := utf8.DecodeLastRuneInString(out[pos:i])
		code := i - first
		start := strings.LastIndexByte(out[pos:code], '\n') + 1 + pos
		b.WriteString(out[pos:start])
		hl := highlighted[n][line]
		if strings.HasPrefix(hl, "\x1b[") {
			b.WriteString(hl[:strings.IndexByte(hl, 'm')+1])
			b.WriteString("\x1b[0m")
		}
		b.WriteString(out[start:code])
		b.WriteString(hl)
		pos = i + size + end + len("\x1b[0m")
		at = pos
	}
	b.WriteString(out[pos:])
	return b.String(), true
}

// parseMark reads the mark of a code line at the start of s: the block, the
// line and the length of the mark.
func parseMark(s string) (n, line, size int, ok bool) {
	i := len("\x1b[")
	num := func() int {
		v, start := 0, i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' && i-start < 9 {
			v = v*10 + int(s[i]-'0')
			i++
		}
		if i == start {
			return -1
		}
		return v
	}
	if n = num(); n < 0 || i >= len(s) || s[i] != ';' {
		return 0, 0, 0, false
	}
	i++
	if line = num(); line < 0 || i >= len(s) || s[i] != 'z' {
		return 0, 0, 0, false
	}
	return n, line, i + 1, true
}
