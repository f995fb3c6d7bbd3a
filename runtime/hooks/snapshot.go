package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sync"

	"github.com/agenttui/agenttui/internal/cmdfiles"
)

// Snapshot is a workspace's hooks as they are at one moment: each command
// and the workspace files it may run, with their contents' hashes. It is
// what the person trusts when they answer the question built from it, and
// Trust checks each command against it again before the command runs.
type Snapshot struct {
	// Digest is what the trust store keeps for these hooks (see Digest).
	Digest string

	workspace string
	// commands are the files each command may run, as found when the
	// snapshot was taken.
	commands map[commandKey][]string
	// files are the files as they were; nil for a file that did not
	// exist or could not be read as a script.
	files map[string]*fileState
}

// fileState is what a file was: its content's hash and its permissions. The
// permissions are not in the digest, whose form trust stores keep, but a
// change to them is noticed before a hook runs: a sandboxed command cannot
// be kept from changing them (Landlock does not govern chmod), and a
// script made unexecutable stops a guard as surely as one rewritten.
type fileState struct {
	sum  [sha256.Size]byte
	perm fs.FileMode
}

// commandKey is a command's definition as the Runner knows it.
type commandKey struct {
	event   Event
	command string
	timeout float64
	onError string
}

func keyOf(ev Event, c Command) commandKey { return commandKey{ev, c.Command, c.Timeout, c.OnError} }

// Take reads the workspace files the commands of c may run and returns the
// snapshot of c in workspace now.
func Take(workspace string, c Config) *Snapshot {
	ws, err := filepath.Abs(workspace)
	if err != nil {
		ws = filepath.Clean(workspace)
	}
	s := &Snapshot{workspace: ws, commands: map[commandKey][]string{}, files: map[string]*fileState{}}
	h := sha256.New()
	type entry struct {
		Event   Event   `json:"event"`
		Matcher string  `json:"matcher"`
		Command string  `json:"command"`
		Timeout float64 `json:"timeout"`
		OnError string  `json:"on_error"`
	}
	var entries []entry
	var files []string
	for _, ev := range Events() {
		for _, g := range c[ev] {
			for _, cmd := range g.Hooks {
				entries = append(entries, entry{ev, g.Matcher, cmd.Command, cmd.Timeout, cmd.OnError})
				paths := cmdfiles.Shell(ws, cmd.Command)
				s.commands[keyOf(ev, cmd)] = paths
				for _, p := range paths {
					if _, seen := s.files[p]; !seen {
						s.files[p] = nil
						files = append(files, p)
					}
				}
			}
		}
	}
	// Marshalling a slice of structs cannot fail, and its form is fixed:
	// fields in declaration order, no map.
	canon, _ := json.Marshal(entries)
	h.Write(canon)
	for _, p := range files {
		content, perm, ok := cmdfiles.Read(p)
		if !ok {
			continue
		}
		s.files[p] = &fileState{sha256.Sum256(content), perm}
		rel, _ := filepath.Rel(ws, p)
		// Lengths before contents, so that no two sets of files hash
		// alike by moving bytes from one field to the next.
		fmt.Fprintf(h, "\x00file %d %s %d\x00", len(rel), rel, len(content))
		h.Write(content)
	}
	s.Digest = hex.EncodeToString(h.Sum(nil))
	return s
}

// Files returns the workspace files the snapshot's commands may run that
// existed when it was taken, sorted: those a sandboxed command must not
// change.
func (s *Snapshot) Files() []string {
	if s == nil {
		return nil
	}
	var out []string
	for p, f := range s.files {
		if f != nil {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// check reports why the command c of event ev may not run: it is not one
// of the snapshot's commands, or a file it may run is not as it was when
// the snapshot was taken (changed, gone, or there now and not then). It
// returns nil when the command is as it was.
func (s *Snapshot) check(ev Event, c Command) error {
	files, ok := s.commands[keyOf(ev, c)]
	if !ok {
		return fmt.Errorf("it is not one of the hooks that were trusted")
	}
	now := cmdfiles.Shell(s.workspace, c.Command)
	for _, p := range now {
		if !slices.Contains(files, p) {
			return fmt.Errorf("it now runs %s, which was not there when this workspace's hooks were trusted", s.rel(p))
		}
	}
	for _, p := range files {
		want := s.files[p]
		content, perm, ok := cmdfiles.Read(p)
		switch {
		case !ok && want == nil:
		case !ok:
			return fmt.Errorf("it runs %s, which is gone or no longer a script since this workspace's hooks were trusted", s.rel(p))
		case want == nil:
			return fmt.Errorf("it runs %s, which was not there when this workspace's hooks were trusted", s.rel(p))
		case sha256.Sum256(content) != want.sum:
			return fmt.Errorf("it runs %s, which changed since this workspace's hooks were trusted", s.rel(p))
		case perm != want.perm:
			return fmt.Errorf("it runs %s, whose permissions changed (%s, trusted as %s) since this workspace's hooks were trusted",
				s.rel(p), perm, want.perm)
		}
	}
	return nil
}

// rel names a file of the workspace for a message.
func (s *Snapshot) rel(p string) string {
	if r, err := filepath.Rel(s.workspace, p); err == nil {
		return r
	}
	return p
}

// Trust is the person's trust in a workspace's hooks during a session. A
// Runner asks it before each of the workspace's commands runs (see
// Command.Workspace): a command runs only while the trust holds and the
// command is as the person trusted it, files included.
//
// The trust breaks the first time a command is found changed: from then on
// none of the workspace's commands runs until Grant is called again. A
// command whose entry says on_error: deny is refused rather than left out,
// so that the call, input or stop it guards is blocked (see Runner.Run);
// the others are left out, as if the workspace had none. A Trust is safe
// for concurrent use; its zero value trusts nothing.
type Trust struct {
	mu     sync.Mutex
	snap   *Snapshot
	broken string
	// onBreak hears why the trust broke, once per Grant.
	onBreak func(why string)
}

// NewTrust returns a Trust that trusts nothing yet. onBreak, when not nil,
// is called once each time the trust breaks, with why in one line, from the
// goroutine of the hook that found the change; it must not block.
func NewTrust(onBreak func(why string)) *Trust { return &Trust{onBreak: onBreak} }

// Grant trusts the hooks of s, as the person trusted them, from now on.
func (t *Trust) Grant(s *Snapshot) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.snap, t.broken = s, ""
}

// Withdraw trusts nothing from now on: none of the workspace's commands
// runs, and none is refused.
func (t *Trust) Withdraw() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.snap, t.broken = nil, ""
}

// Files returns the files of the hooks trusted now (see Snapshot.Files):
// none while nothing is trusted.
func (t *Trust) Files() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.snap.Files()
}

// Broken returns why the trust broke since the last Grant, or "".
func (t *Trust) Broken() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.broken
}

// keeps reports whether the workspace's command c is among those that run
// or are refused now, rather than left out.
func (t *Trust) keeps(c Command) bool {
	if t == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.snap == nil:
		return false
	case t.broken != "":
		return c.OnError == OnErrorDeny
	}
	return true
}

// check reports why the workspace's command c of event ev may not run
// now, breaking the trust when c is found changed; nil lets it run.
func (t *Trust) check(ev Event, c Command) error {
	if t == nil {
		return fmt.Errorf("this workspace's hooks are not trusted")
	}
	t.mu.Lock()
	snap, broken := t.snap, t.broken
	t.mu.Unlock()
	switch {
	case snap == nil:
		return fmt.Errorf("this workspace's hooks are not trusted")
	case broken != "":
		return fmt.Errorf("this workspace's hooks are off until they are trusted again, since %s", broken)
	}
	// Read outside the lock: files are read, and other commands' checks
	// need not wait for them.
	err := snap.check(ev, c)
	if err == nil {
		return nil
	}
	why := fmt.Sprintf("the hook %s: %v", visible(c.Command), err)
	err = fmt.Errorf("%w; none of this workspace's hooks runs until they are trusted again", err)
	t.mu.Lock()
	first := t.snap == snap && t.broken == ""
	if first {
		t.broken = why
	}
	onBreak := t.onBreak
	t.mu.Unlock()
	if first && onBreak != nil {
		onBreak(why)
	}
	return err
}
