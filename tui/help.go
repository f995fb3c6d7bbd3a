package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/agenttui/agenttui/tui/internal/text"
)

// helpOverlay is the overlay that lists every key, opened with ? (or F1).
type helpOverlay struct {
	open bool
	// files are the lines of the person's commands from command files.
	files []helpFile
}

// toggle opens or closes the overlay.
func (h *helpOverlay) toggle() { h.open = !h.open }

// View draws the overlay in exactly height lines, listing every binding of
// keys by the part it belongs to, and the slash commands; in two columns
// when one does not fit.
func (h helpOverlay) View(st *text.Styles, keys KeyMap, width, height int) string {
	titles := []string{"On the board", "In the input and the transcript", "Anywhere", "In the full-screen diff (f)"}
	var blocks [][]string
	for i, group := range keys.FullHelp() {
		block := []string{st.Title.Render(titles[i])}
		for _, b := range group {
			if !b.Enabled() {
				continue
			}
			block = append(block, bindingLine(st, b))
		}
		blocks = append(blocks, append(block, ""))
	}
	cmds := []string{st.Title.Render("Slash commands") + st.Dim.Render(" (type / in the input; tab completes)")}
	for _, c := range commands() {
		cmds = append(cmds, "  "+st.Key.Render(text.Pad(strings.TrimSpace("/"+c.Name+" "+c.Args), 30))+" "+c.Desc)
	}
	blocks = append(blocks, append(cmds, "  "+st.Key.Render(text.Pad("//text", 30))+" "+"send text that begins with /", ""))
	if len(h.files) > 0 {
		mine := []string{st.Title.Render("Your commands") + st.Dim.Render(" (from command files: each sends its file's text, with your arguments)")}
		for _, f := range h.files {
			mine = append(mine, "  "+st.Key.Render(text.Pad(f.label, 30))+" "+f.desc+st.Dim.Render(" · "+f.from))
		}
		blocks = append(blocks, append(mine, ""))
	}
	var lines []string
	for _, b := range blocks {
		lines = append(lines, b...)
	}
	head := []string{st.Title.Render("Keys") + st.Dim.Render(" · esc or ? closes this · approvals are ignored for ½ s after the call under focus changes"), ""}
	if len(lines)+2 > height && width >= 80 {
		// Two columns, each block going to the shorter one.
		half := width / 2
		var left, right []string
		for _, b := range blocks {
			if len(left) <= len(right) {
				left = append(left, b...)
			} else {
				right = append(right, b...)
			}
		}
		lines = nil
		for i := 0; i < max(len(left), len(right)); i++ {
			var l, r string
			if i < len(left) {
				l = left[i]
			}
			if i < len(right) {
				r = right[i]
			}
			lines = append(lines, text.Pad(l, half)+text.Cut(r, width-half))
		}
	}
	out := append(head, lines...)
	for i, l := range out {
		out[i] = text.Cut(l, width)
	}
	return text.JoinLines(out, height)
}

func bindingLine(st *text.Styles, b key.Binding) string {
	h := b.Help()
	k := h.Key
	if n := ansi.StringWidth(k); n < 12 {
		k += strings.Repeat(" ", 12-n)
	}
	return "  " + st.Key.Render(k) + " " + h.Desc
}
