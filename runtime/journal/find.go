package journal

import (
	"fmt"
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

// List loads the sessions of workspace kept in dir, newest activity first.
// Journals that cannot be read are skipped; their problems are returned as
// notes.
func List(dir, workspace string) ([]*Replay, []string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil
	}
	var out []*Replay
	var notes []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		rp, err := Load(filepath.Join(dir, e.Name()))
		if err != nil {
			notes = append(notes, err.Error())
			continue
		}
		if rp.Header.Workspace == workspace {
			out = append(out, rp)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].LastActivity.After(out[j].LastActivity) })
	return out, notes
}

// Latest returns the session of workspace with the most recent activity.
func Latest(dir, workspace string) (*Replay, error) {
	all, _ := List(dir, workspace)
	if len(all) == 0 {
		return nil, fmt.Errorf("%w for the workspace %s: there is nothing to continue", ErrNoSession, workspace)
	}
	return all[0], nil
}
