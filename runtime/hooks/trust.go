package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agenttui/agenttui/internal/ctrlchar"
)

// Digest returns what a person trusts when they trust a workspace's hooks
// c: the hex SHA-256 of c's commands (event, matcher, command, timeout and
// on_error, in order) and of every file inside the workspace that a
// command may run, path and content. A repository's hooks usually run its
// own scripts, so a change to such a script changes the digest and the
// person is asked again, as for a change to the configuration.
//
// The files are found as package cmdfiles finds them, the way the shell
// will: ./hooks/check.sh, and hook.sh in sh hook.sh or hooks.mk in
// make -f hooks.mk, each word of the command that names a file of the
// workspace. A regular file of at most 1 MiB is read; a word after an
// output redirection (">", "2>>", …) is the hook's output, not its code,
// and is left out so that the digest does not change each time the hook
// runs. Take gives the same digest with what is needed to check each
// command again before it runs.
func Digest(workspace string, c Config) string { return Take(workspace, c).Digest }

// TrustStore records which workspaces' hooks the person trusts, as a JSON
// file such as $XDG_STATE_HOME/agenttui/trusted-hooks.json, mapping each
// workspace to the Digest of the hooks trusted there. The zero TrustStore
// has no file and trusts nothing.
type TrustStore struct {
	// Path is the file.
	Path string
}

// trustFile is the form of the store's file.
type trustFile struct {
	Workspaces map[string]trustEntry `json:"workspaces"`
}

// trustEntry is what was trusted in one workspace, and when.
type trustEntry struct {
	Digest  string    `json:"digest"`
	Trusted time.Time `json:"trusted"`
}

// Trusted reports whether the person trusted the hooks with the given
// digest in workspace. A store whose file does not exist trusts nothing,
// without error; one whose file cannot be read or is corrupt trusts
// nothing, and the error says which file and what is wrong, in one line.
func (t TrustStore) Trusted(workspace, digest string) (bool, error) {
	if t.Path == "" || digest == "" {
		return false, nil
	}
	f, err := t.load()
	if err != nil {
		return false, err
	}
	e, ok := f.Workspaces[workspaceKey(workspace)]
	return ok && e.Digest == digest, nil
}

// Trust records that the person trusts the hooks with the given digest in
// workspace, replacing what was trusted there before and keeping the other
// workspaces' entries. The file's folders are made (0700) when missing; the
// file (0600) is replaced whole, through a temporary file renamed over it,
// so that a crash or a reader at the wrong moment never sees half of it. A
// corrupt file is replaced: what it held cannot be read anyway.
func (t TrustStore) Trust(workspace, digest string) error {
	if t.Path == "" {
		return errors.New("the hook trust store has no file")
	}
	f, err := t.load()
	if err != nil && !errors.Is(err, errCorrupt) {
		return err
	}
	if f.Workspaces == nil {
		f.Workspaces = map[string]trustEntry{}
	}
	f.Workspaces[workspaceKey(workspace)] = trustEntry{Digest: digest, Trusted: time.Now().UTC().Truncate(time.Second)}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("writing the hook trust store %s: %v", t.Path, err)
	}
	return writeAtomic(t.Path, append(data, '\n'))
}

// errCorrupt marks a store file that was read but is not a store.
var errCorrupt = errors.New("corrupt")

// load reads the store's file; a missing file is an empty store.
func (t TrustStore) load() (trustFile, error) {
	var f trustFile
	data, err := os.ReadFile(t.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("reading the hook trust store: %s", ctrlchar.ToSpaces(err.Error()))
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return trustFile{}, fmt.Errorf("the hook trust store %s is %w: %s", strconv.Quote(t.Path), errCorrupt, ctrlchar.ToSpaces(err.Error()))
	}
	return f, nil
}

// workspaceKey returns the workspace's cleaned absolute path, so that one
// workspace written two ways has one entry.
func workspaceKey(workspace string) string {
	if abs, err := filepath.Abs(workspace); err == nil {
		return abs
	}
	return filepath.Clean(workspace)
}

// writeAtomic replaces the file path with data, mode 0600.
func writeAtomic(path string, data []byte) error {
	fail := func(err error) error {
		return fmt.Errorf("writing the hook trust store: %s", ctrlchar.ToSpaces(err.Error()))
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fail(err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fail(err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fail(err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fail(err)
	}
	// Synced before the rename, so that after a crash the name holds
	// either the old file or the whole new one.
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fail(err)
	}
	return nil
}
