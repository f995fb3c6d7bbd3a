package termtest

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// cursorKeys are the keys whose xterm sequence is CSI (or SS3 in
// application cursor mode) followed by a final letter.
var cursorKeys = map[string]byte{
	"up": 'A', "down": 'B', "right": 'C', "left": 'D', "home": 'H', "end": 'F',
}

// tildeKeys are the keys whose xterm sequence is CSI number ~.
var tildeKeys = map[string]int{
	"insert": 2, "delete": 3, "pgup": 5, "pgdown": 6,
}

// plainKeys are the keys that send a fixed byte string and take no
// modifiers other than alt.
var plainKeys = map[string]string{
	"enter": "\r", "tab": "\t", "esc": "\x1b", "backspace": "\x7f", "space": " ",
}

// Key sends the named key, as xterm encodes it, in one write. Names are
// "enter", "esc", "tab", "space", "backspace", "up", "down", "left",
// "right", "home", "end", "pgup", "pgdown", "insert", "delete", or a single
// character; they may be prefixed with modifiers: "ctrl+c", "alt+x",
// "shift+tab", "shift+up", "ctrl+alt+left". The cursor keys follow the
// application cursor mode (DECCKM) the program has set. An unknown name
// fails the test.
func (t *Term) Key(name string) {
	t.tb.Helper()
	t.mu.Lock()
	app := t.cursorApp
	t.mu.Unlock()
	seq, err := keySeq(name, app)
	if err != nil {
		t.tb.Fatalf("termtest: %v", err)
	}
	t.Send(seq)
}

// keySeq returns the bytes a terminal sends for the named key; app reports
// whether application cursor mode is set.
func keySeq(name string, app bool) (string, error) {
	var shift, alt, ctrl bool
	base := name
	for {
		// A lone "+" is a key, not a separator.
		i := strings.Index(base, "+")
		if i <= 0 || i == len(base)-1 {
			break
		}
		switch base[:i] {
		case "shift":
			shift = true
		case "alt":
			alt = true
		case "ctrl":
			ctrl = true
		default:
			return "", fmt.Errorf("unknown modifier in key %q", name)
		}
		base = base[i+1:]
	}
	// xterm's modifier parameter: 1 + shift + 2·alt + 4·ctrl.
	mod := 1
	if shift {
		mod++
	}
	if alt {
		mod += 2
	}
	if ctrl {
		mod += 4
	}

	if final, ok := cursorKeys[base]; ok {
		switch {
		case mod > 1:
			return fmt.Sprintf("\x1b[1;%d%c", mod, final), nil
		case app:
			return "\x1bO" + string(final), nil
		default:
			return "\x1b[" + string(final), nil
		}
	}
	if n, ok := tildeKeys[base]; ok {
		if mod > 1 {
			return fmt.Sprintf("\x1b[%d;%d~", n, mod), nil
		}
		return fmt.Sprintf("\x1b[%d~", n), nil
	}

	prefix := ""
	if alt {
		// Alt sends ESC before the key (xterm's metaSendsEscape).
		prefix = "\x1b"
	}
	if base == "tab" && shift && !ctrl {
		return prefix + "\x1b[Z", nil
	}
	if s, ok := plainKeys[base]; ok && !shift && !ctrl {
		return prefix + s, nil
	}
	if r, size := utf8.DecodeRuneInString(base); size == len(base) && r != utf8.RuneError && !shift {
		if !ctrl {
			return prefix + base, nil
		}
		switch {
		case r >= 'a' && r <= 'z':
			return prefix + string(rune(r-'a'+1)), nil
		case r >= '@' && r <= '_': // ctrl+@ … ctrl+_, ctrl+[ is ESC
			return prefix + string(rune(r-'@')), nil
		}
	}
	return "", fmt.Errorf("unknown key %q", name)
}
