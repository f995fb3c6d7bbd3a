package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agenttui/agenttui/tui/callview"
	"github.com/agenttui/agenttui/tui/internal/text"
	"github.com/agenttui/agenttui/tui/transcript"
)

// editorCommand returns the command that opens path in the person's
// editor: $VISUAL, else $EDITOR, else vi. The variable may carry arguments
// ("code --wait"), so it runs through the shell, with the path passed as an
// argument rather than spliced into the command line.
func editorCommand(path string) *exec.Cmd {
	ed := os.Getenv("VISUAL")
	if ed == "" {
		ed = os.Getenv("EDITOR")
	}
	if ed == "" {
		ed = "vi"
	}
	return exec.Command("sh", "-c", ed+` "$1"`, "agenttui-editor", path)
}

// editorDone says the editor the person opened on a call's change has
// exited.
type editorDone struct {
	// call is the call whose change the person edits; when it is nil,
	// the call is looked up by turn and index on the session's board.
	call        *callview.Call
	turn, index int
	reqID       uint64
	// digest is the preview the person edited; proposed its new content.
	digest, proposed string
	file, dir        string
	err              error
}

// editChange opens the content c proposes in the person's editor. The
// console hands the terminal over to the editor (bubbletea's ExecProcess
// stops its renderer and restores it after), and takes up the person's
// version when the editor exits.
func (m *Model) editChange(c *callview.Call) tea.Cmd {
	pv := c.Change.Full
	dir, err := os.MkdirTemp("", "agenttui-edit-")
	if err != nil {
		m.note = "could not open the editor: " + text.CleanLine(err.Error())
		return nil
	}
	// The file keeps the name of the one it stands for, so the editor
	// highlights it by its type.
	file := filepath.Join(dir, filepath.Base(pv.Path))
	if err := os.WriteFile(file, []byte(pv.New), 0o600); err != nil {
		os.RemoveAll(dir)
		m.note = "could not open the editor: " + text.CleanLine(err.Error())
		return nil
	}
	done := editorDone{call: c, turn: c.Turn, index: c.Index, reqID: c.Req.ID, digest: c.Change.Digest, proposed: pv.New, file: file, dir: dir}
	edit := m.opts.Editor
	if edit == nil {
		edit = editorCommand
	}
	m.note = fmt.Sprintf("editing %s: save and quit to approve it with your version; quit without saving leaves it waiting", c.Title())
	return m.exec(edit(file), func(err error) tea.Msg {
		done.err = err
		return done
	})
}

// exec runs c, the person's editor, in the console's terminal: bubbletea
// stops reading keys and drawing, and the console hands the terminal over
// (its own screen and modes off, the terminal as it found it) and takes it
// back with a full redraw once c exits. done makes the message that says so.
func (m *Model) exec(c *exec.Cmd, done func(error) tea.Msg) tea.Cmd {
	if m.term != nil {
		return tea.Exec(m.term.Command(c), done)
	}
	return tea.ExecProcess(c, done)
}

// inputEdited says the editor the person opened on the input has exited.
type inputEdited struct {
	file, dir string
	err       error
}

// editInput opens what is typed in the person's editor; what they save
// becomes the input.
func (m *Model) editInput() tea.Cmd {
	dir, err := os.MkdirTemp("", "agenttui-input-")
	if err != nil {
		m.note = "could not open the editor: " + text.CleanLine(err.Error())
		return nil
	}
	// Markdown, so the editor highlights what people write to models.
	file := filepath.Join(dir, "input.md")
	if err := os.WriteFile(file, []byte(m.input.Value()), 0o600); err != nil {
		os.RemoveAll(dir)
		m.note = "could not open the editor: " + text.CleanLine(err.Error())
		return nil
	}
	edit := m.opts.Editor
	if edit == nil {
		edit = editorCommand
	}
	m.note = "editing the input: save and quit, and what you saved is the input"
	return m.exec(edit(file), func(err error) tea.Msg { return inputEdited{file: file, dir: dir, err: err} })
}

// inputEdited takes up what the person saved as the input. An editor that
// failed leaves the input as it was.
func (m *Model) inputEdited(e inputEdited) {
	defer os.RemoveAll(e.dir)
	data, err := os.ReadFile(e.file)
	switch {
	case e.err != nil:
		m.note = "the editor failed (" + text.CleanLine(e.err.Error()) + "); the input is as it was"
		return
	case err != nil:
		m.note = "could not read what the editor saved (" + text.CleanLine(err.Error()) + "); the input is as it was"
		return
	}
	// Editors end a file with a newline the person did not mean to send.
	text := strings.TrimRight(string(data), "\n")
	if text == m.input.Value() {
		m.note = "the input is unchanged"
		return
	}
	m.input.SetValue(text)
	m.note = "the input is what you saved: enter sends it"
	m.setFocus(focusInput)
}

// editorReturned takes up what the person saved: it approves the call with
// their version, unless they changed nothing, or the call or its change
// moved on while they edited (then their version is kept in its file, and
// the screen says where).
func (m *Model) editorReturned(d editorDone) {
	data, readErr := os.ReadFile(d.file)
	mine := string(data)
	c := d.call
	if r := m.board.Reply(); c == nil && r != nil && r.Turn == d.turn {
		c = r.Get(d.index)
	}
	remove := true
	defer func() {
		if remove {
			os.RemoveAll(d.dir)
		}
	}()
	keep := func(why string) {
		// The note line is short; the transcript keeps the whole of it,
		// so the person can find their version.
		remove = false
		m.note = why + " (see the transcript)"
		m.transcript.Add(transcript.Note{Text: why + "; your version is kept in " + text.CleanLine(d.file), Warn: true})
	}
	name := fmt.Sprintf("#%d", d.index+1)
	if c != nil {
		name = c.Title()
	}
	switch {
	case d.err != nil:
		keep(fmt.Sprintf("the editor failed (%s), so %s was not approved", text.CleanLine(d.err.Error()), name))
	case readErr != nil:
		m.note = fmt.Sprintf("could not read what the editor saved (%s), so %s was not approved", text.CleanLine(readErr.Error()), name)
	case mine == d.proposed:
		m.note = fmt.Sprintf("no change made in the editor: %s still waits for approval", name)
	case c == nil || c.Req == nil || c.Req.ID != d.reqID:
		keep(name + " is no longer waiting for approval, so your version was not used")
	case c.Digest() != d.digest:
		keep("the change of " + name + " moved while you edited, so your version was not used")
	case c.Change.Full != nil && mine == c.Change.Full.Old:
		m.note = "your version leaves the file as it is: skip " + name + " with n instead"
	default:
		m.respond(answer{kind: answerEdit, calls: []*callview.Call{c}, digest: d.digest, content: mine})
		m.note = fmt.Sprintf("approved %s with your version of the change", name)
	}
}
