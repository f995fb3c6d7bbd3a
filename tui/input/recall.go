package input

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// The input's history: recalling earlier inputs with ↑, ↓, Ctrl+P and
// Ctrl+N, and searching them with Ctrl+R.

// historySearch is a search of the history for the inputs that contain
// query; match is the index in the history of the one shown, or -1.
type historySearch struct {
	query string
	match int
	draft string
}

// recall moves through the history: -1 to the older entry, 1 to the newer;
// past the newest comes back to the text being written.
func (in *Box) recall(step int) {
	pos := in.histPos + step
	if pos < 0 || pos > len(in.history) {
		return
	}
	if in.histPos == len(in.history) {
		in.histDraft = in.Value()
	}
	in.histPos = pos
	if pos == len(in.history) {
		in.SetValue(in.histDraft)
		return
	}
	in.SetValue(in.history[pos])
}

// searchKey handles a key during a history search. It reports whether the
// key was the search's; any other key ends the search, keeping the match,
// and then does what it always does.
func (in *Box) searchKey(msg tea.KeyMsg) bool {
	s := in.search
	switch {
	case msg.Type == tea.KeyRunes && !msg.Paste, msg.Type == tea.KeySpace:
		s.query += string(msg.Runes)
		in.find(len(in.history) - 1)
	case msg.Type == tea.KeyBackspace:
		if r := []rune(s.query); len(r) > 0 {
			s.query = string(r[:len(r)-1])
		}
		in.find(len(in.history) - 1)
	case key.Matches(msg, in.Keys.Search), msg.Type == tea.KeyUp:
		if s.match > 0 {
			old := s.match
			in.find(s.match - 1)
			if s.match < 0 {
				s.match = old
			}
		}
	case msg.Type == tea.KeyDown:
		for i := s.match + 1; i >= 1 && i < len(in.history); i++ {
			if matches(in.history[i], s.query) {
				s.match = i
				break
			}
		}
	case key.Matches(msg, in.Keys.Close):
		in.SetValue(s.draft)
		in.search = nil
	case key.Matches(msg, in.Keys.Submit, in.Keys.Complete):
		// The match becomes the input, to be read and edited before
		// it is sent.
		in.takeMatch()
	default:
		in.takeMatch()
		return false
	}
	if in.search != nil && in.search.match >= 0 {
		in.SetValue(in.history[in.search.match])
	} else if in.search != nil {
		in.SetValue(s.draft)
	}
	return true
}

// takeMatch ends the search with its match in the input.
func (in *Box) takeMatch() {
	s := in.search
	in.search = nil
	if s.match >= 0 {
		in.histPos, in.histDraft = s.match, s.draft
		in.SetValue(in.history[s.match])
	} else {
		in.SetValue(s.draft)
	}
}

// find sets the search's match to the newest entry at or before from that
// contains the query, or -1.
func (in *Box) find(from int) {
	s := in.search
	s.match = -1
	for i := min(from, len(in.history)-1); i >= 0; i-- {
		if matches(in.history[i], s.query) {
			s.match = i
			return
		}
	}
}

// matches reports whether entry contains query, ignoring case.
func matches(entry, query string) bool {
	return strings.Contains(strings.ToLower(entry), strings.ToLower(query))
}
