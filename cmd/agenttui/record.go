package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/charmbracelet/x/term"

	"github.com/agenttui/agenttui/internal/asciicast"
)

// startRecording opens path for --record and starts an asciicast recording
// of the terminal out in it; with no path it records nothing. An existing
// file is not overwritten: a recording that took a while to make is not
// lost to a second run with the same name.
func startRecording(path string, out *os.File, title string) (*asciicast.Writer, error) {
	if path == "" {
		return nil, nil
	}
	cols, rows, err := term.GetSize(out.Fd())
	if err != nil {
		return nil, fmt.Errorf("--record: the size of the terminal: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil, usagef("--record: %s exists; remove it or choose another name", path)
	}
	if err != nil {
		return nil, usagef("--record: %v", err)
	}
	if title == "" {
		title = "agenttui"
	}
	env := map[string]string{"TERM": os.Getenv("TERM")}
	if env["TERM"] == "" {
		env["TERM"] = "xterm-256color"
	}
	rec, err := asciicast.New(f, asciicast.Options{Width: cols, Height: rows, Title: title, Env: env})
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("--record: %w", err)
	}
	return rec, nil
}

// stopRecording closes the recording and says on stderr, after the console
// has left the screen, where it is and how long it lasts, or why it stopped
// early.
func stopRecording(rec *asciicast.Writer, path string, stderr io.Writer) {
	err := rec.Close()
	switch {
	case errors.Is(err, asciicast.ErrLimit):
		fmt.Fprintf(stderr, "agenttui: the recording in %s stopped at %d MiB, its size limit, after %.1f s\n",
			path, asciicast.DefaultLimit>>20, rec.Duration().Seconds())
	case err != nil:
		fmt.Fprintf(stderr, "agenttui: the recording in %s is incomplete: %v\n", path, err)
	default:
		fmt.Fprintf(stderr, "agenttui: recorded %.1f s of the console to %s (play it with: asciinema play %s)\n",
			rec.Duration().Seconds(), path, path)
	}
}
