package journal

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Find returns the journal of the session whose id is id, or the only one
// whose id starts with id.
func Find(dir, id string) (string, error) {
	id = strings.TrimSpace(id)
	if id == "" || strings.ContainsAny(id, `/\`) {
		return "", fmt.Errorf("%w: %q is not a session id", ErrNoSession, id)
	}
	exact := Path(dir, id)
	if _, err := os.Stat(exact); err == nil {
		return exact, nil
	}
	matches, _ := filepath.Glob(filepath.Join(dir, globEscape(id)+"*.jsonl"))
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("%w %s in %s (agenttui sessions lists this workspace's sessions)", ErrNoSession, id, dir)
	case 1:
		return matches[0], nil
	default:
		return "", fmt.Errorf("session id %s is ambiguous: %d sessions start with it", id, len(matches))
	}
}

func globEscape(s string) string {
	r := strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`)
	return r.Replace(s)
}

// Damaged is a journal of a workspace that cannot be loaded because it is
// damaged, as List reports it, so that a listing can say so beside the
// sessions that load.
type Damaged struct {
	// ID is the session's id as its file names it: the id --resume and
	// agenttui sessions rm take.
	ID string
	// Header is what the journal's first line says.
	Header Header
	// Damage says where the journal is damaged, and how.
	Damage *DamageError
}

// List loads the sessions of workspace kept in dir, newest activity first,
// and returns the damaged journals whose header names workspace, newest
// first. The problems of other journals that cannot be read, of whichever
// workspace, are returned as notes.
func List(dir, workspace string) (sessions []*Replay, damaged []Damaged, notes []string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, nil
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		rp, err := Load(path)
		var damage *DamageError
		switch {
		case errors.As(err, &damage):
			if h, err := ReadHeader(path); err == nil && h.Workspace == workspace {
				damaged = append(damaged, Damaged{ID: strings.TrimSuffix(e.Name(), ".jsonl"), Header: h, Damage: damage})
			}
		case err != nil:
			notes = append(notes, err.Error())
		case rp.Header.Workspace == workspace:
			sessions = append(sessions, rp)
		}
	}
	sort.Slice(sessions, func(i, j int) bool { return sessions[i].LastActivity.After(sessions[j].LastActivity) })
	sort.SliceStable(damaged, func(i, j int) bool { return damaged[i].Header.Started.After(damaged[j].Header.Started) })
	return sessions, damaged, notes
}

// ReadHeader returns what the first line of the journal at path says,
// without loading the rest, which may be damaged: enough to know the
// session's workspace, and to remove it.
func ReadHeader(path string) (Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, fmt.Errorf("reading the journal %s: %w", path, err)
	}
	defer f.Close()
	// A header is a few hundred bytes and the goal; a first line longer
	// than this is not one.
	line, _ := bufio.NewReader(io.LimitReader(f, 16<<20)).ReadBytes('\n')
	var h Header
	if json.Unmarshal(line, &h) != nil || h.Type != "header" {
		return Header{}, fmt.Errorf("the journal %s: its first line is not an agenttui journal header", path)
	}
	return h, nil
}

// Latest returns the session of workspace with the most recent activity.
func Latest(dir, workspace string) (*Replay, error) {
	all, _, _ := List(dir, workspace)
	if len(all) == 0 {
		return nil, fmt.Errorf("%w for the workspace %s: there is nothing to continue", ErrNoSession, workspace)
	}
	return all[0], nil
}
