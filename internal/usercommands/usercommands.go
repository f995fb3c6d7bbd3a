// Package usercommands loads the person's own slash commands from Markdown
// files, in the format Claude Code reads from .claude/commands, so files
// written for it work here unchanged.
//
// A command file is a prompt: its body, with the arguments typed after the
// command put in place of $ARGUMENTS, $1, $2 and so on ([Command.Expand]),
// is sent to the model as if the person had typed it. An optional YAML
// front matter block gives the command a description, a hint of the
// arguments it takes and a model to run on.
//
// Nothing in a file is ever run: a Claude Code line such as !`git status`
// and a file reference such as @src/main.go reach the model as the text
// they are. Descriptions and argument hints are shown on screen, so a file
// whose front matter puts control characters or line breaks in them is
// refused.
//
// The package imports nothing from the rest of agenttui but internal/xdg
// and two leaves, internal/ctrlchar and internal/frontmatter.
package usercommands

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agenttui/agenttui/internal/ctrlchar"
	"github.com/agenttui/agenttui/internal/frontmatter"
	"github.com/agenttui/agenttui/internal/xdg"
)

// Limits on what is read. They keep a stray or hostile folder from costing
// much memory or time at start-up.
const (
	// MaxFileSize is the largest command file Load accepts, in bytes.
	MaxFileSize = 256 << 10
	// MaxFilesPerDir is how many command files Load reads from one
	// folder, its subfolders included; the rest (in the order of their
	// paths) are left out with a notice.
	MaxFilesPerDir = 500
	// MaxNameRunes is the longest command name, in runes.
	MaxNameRunes = 100
	// DescriptionRunes is how many runes of a file's first line make its
	// description when the front matter gives none.
	DescriptionRunes = 80
)

// Command is one slash command loaded from a file.
type Command struct {
	// Name is the command without its slash: the file's path below its
	// folder without ".md", with ':' for each subfolder, so
	// frontend/review.md is "frontend:review".
	Name string
	// Description says what the command does: the front matter's, else
	// the body's first non-empty line, cut to DescriptionRunes. It is one
	// line without control characters.
	Description string
	// ArgumentHint says what the command takes, such as "[pr-number]";
	// empty when the file does not say. It is one line without control
	// characters.
	ArgumentHint string
	// Model is the model the command asks to run on, as /model takes it
	// ("anthropic:claude-haiku-4-5"); empty keeps the model in use.
	// Claude Code's "inherit" and its aliases "sonnet", "opus" and
	// "haiku" become empty, since they do not say which provider's model
	// they mean; a bare "claude-…" name gets the "anthropic:" prefix.
	Model string
	// Body is the prompt, the file's text after the front matter with
	// the blank lines around it removed; it is never empty.
	Body string
	// Path is the file the command came from.
	Path string
	// Project is true when the file is the workspace's, rather than one
	// of the person's own folders.
	Project bool
}

// Dir is a folder that command files are loaded from.
type Dir struct {
	// Path is the folder.
	Path string
	// Project is true for the workspace's folders.
	Project bool
}

// Dirs returns the folders command files are loaded from for workspace, in
// the order Load reads them, a later one's command replacing an earlier
// one's of the same name: the person's ~/.claude/commands (Claude Code's),
// then $XDG_CONFIG_HOME/agenttui/commands, then the workspace's
// .claude/commands and .agenttui/commands, so the most specific wins. A
// folder whose place cannot be found (no home folder) is left out, and so
// are the workspace's when workspace is empty. When the workspace is the
// home folder, its .claude/commands is listed once, as the person's own.
func Dirs(workspace string) []Dir {
	var dirs []Dir
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		dirs = append(dirs, Dir{Path: filepath.Join(home, ".claude", "commands")})
	}
	if cfg, err := xdg.ConfigHome(); err == nil && cfg != "" {
		dirs = append(dirs, Dir{Path: filepath.Join(cfg, "agenttui", "commands")})
	}
	if workspace != "" {
		for _, d := range []string{".claude", ".agenttui"} {
			p := filepath.Join(workspace, d, "commands")
			if !slices.ContainsFunc(dirs, func(o Dir) bool { return filepath.Clean(o.Path) == filepath.Clean(p) }) {
				dirs = append(dirs, Dir{Path: p, Project: true})
			}
		}
	}
	return dirs
}

// Load reads the command files of dirs, in order, and returns the commands
// sorted by name, a command from a later folder replacing an earlier one's
// of the same name. builtins are the console's own commands, without the
// slash: a file that would shadow one is not used, since the person could
// no longer reach the built-in.
//
// Load reads every *.md file in each folder and its subfolders, skipping
// names that start with '.' and symbolic links to folders, and reading at
// most MaxFilesPerDir files of one folder. A folder that does not exist is
// skipped silently. Anything else that goes wrong (a folder that cannot be
// read, a file that is too large, does not parse or has a name that cannot
// be a command) gives one notice, a single line without control characters
// that names the file or folder, and the other files still load.
func Load(dirs []Dir, builtins []string) (cmds []Command, notices []string) {
	builtin := make(map[string]bool, len(builtins))
	for _, b := range builtins {
		builtin[strings.TrimPrefix(b, "/")] = true
	}
	byName := make(map[string]Command)
	for _, dir := range dirs {
		if dir.Path == "" {
			continue
		}
		files, ns := listFiles(dir.Path)
		notices = append(notices, ns...)
		fromHere := make(map[string]string) // name → file of this folder
		for _, f := range files {
			c, err := readFile(f.path, f.name)
			if err != nil {
				notices = append(notices, err.Error())
				continue
			}
			if builtin[c.Name] {
				notices = append(notices, notice(c.Path, fmt.Sprintf(
					"/%s is a built-in command, so this file is not used; rename it", c.Name)))
				continue
			}
			if earlier, ok := fromHere[c.Name]; ok {
				notices = append(notices, notice(c.Path, fmt.Sprintf(
					"the command /%s is also made by %s in the same folder; this file wins", c.Name, earlier)))
			}
			fromHere[c.Name] = c.Path
			c.Project = dir.Project
			byName[c.Name] = c
		}
	}
	for _, c := range byName {
		cmds = append(cmds, c)
	}
	slices.SortFunc(cmds, func(a, b Command) int { return cmp.Compare(a.Name, b.Name) })
	return cmds, notices
}

// file is a command file found in a folder, with the command name its path
// gives.
type file struct{ path, name string }

// listFiles returns the command files below dir, in the order of their
// paths, and notices for what could not be read.
func listFiles(dir string) (files []file, notices []string) {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, []string{notice(dir, "the command folder cannot be read: "+reason(err))}
	case !info.IsDir():
		return nil, []string{notice(dir, "is not a folder, so no commands are read from it")}
	}
	var skipped int
	walkErr := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			// A subfolder that cannot be read: say so, and go on with
			// the rest.
			notices = append(notices, notice(path, "the command folder cannot be read: "+reason(err)))
			if d != nil && d.IsDir() && path != dir {
				return fs.SkipDir
			}
			return nil
		}
		if path == dir {
			return nil
		}
		name := d.Name()
		if strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(name, ".md") {
			return nil
		}
		if len(files) == MaxFilesPerDir {
			skipped++
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return nil // cannot happen: WalkDir's paths are below dir
		}
		cmdName := strings.ReplaceAll(filepath.ToSlash(strings.TrimSuffix(rel, ".md")), "/", ":")
		files = append(files, file{path: path, name: cmdName})
		return nil
	})
	if walkErr != nil {
		notices = append(notices, notice(dir, "the command folder cannot be read: "+walkErr.Error()))
	}
	if skipped > 0 {
		notices = append(notices, notice(dir, fmt.Sprintf(
			"has %d command files; only the first %d by path are loaded", len(files)+skipped, MaxFilesPerDir)))
	}
	return files, notices
}

// readFile reads and parses the command file path, which makes the command
// name, refusing anything that is not a regular file (a FIFO would block
// the open) or is too large.
func readFile(path, name string) (Command, error) {
	if err := checkName(name); err != nil {
		return Command{}, fileErr(path, err.Error())
	}
	data, err := frontmatter.ReadFile(path, MaxFileSize)
	switch {
	case errors.Is(err, frontmatter.ErrNotRegular):
		return Command{}, fileErr(path, "is not a regular file")
	case errors.Is(err, frontmatter.ErrTooLarge):
		return Command{}, fileErr(path, tooLarge)
	case err != nil:
		return Command{}, fileErr(path, "cannot be read: "+reason(err))
	}
	c, err := parse(data)
	if err != nil {
		return Command{}, fileErr(path, err.Error())
	}
	c.Name, c.Path = name, path
	return c, nil
}

const tooLarge = "is larger than 256 KiB, so it is not used"

// checkName says why name cannot be a command's, or returns nil when it
// can: the console splits a typed line at the first space, and shows the
// name as it is.
func checkName(name string) error {
	bad := name == "" || utf8.RuneCountInString(name) > MaxNameRunes
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("-_.:", r) {
			bad = true
			break
		}
	}
	if bad {
		return fmt.Errorf("%s cannot be a command's name: use letters, digits, '-', '_', '.' and ':' (a subfolder's), at most %d of them",
			quote(name), MaxNameRunes)
	}
	return nil
}

// reason returns what went wrong in err without the path a *fs.PathError
// repeats, since the notice names it already.
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// fileError is a problem with one command file or folder. Its message is
// one line, "<path>: <problem>", without control characters, so it can be
// shown as a notice as it is.
type fileError struct {
	path, problem string
}

func (e *fileError) Error() string { return notice(e.path, e.problem) }

func fileErr(path, problem string) error { return &fileError{path: path, problem: problem} }

// notice words a problem with path as one safe line.
func notice(path, problem string) string { return ctrlchar.OneLine(path + ": " + problem) }

// quote returns s quoted for a notice, shortened so a long value does not
// swamp it.
func quote(s string) string { return fmt.Sprintf("%q", cut(s, 70)) }

// cut returns s cut to n runes, ending with an ellipsis when it was cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return strings.TrimRight(string([]rune(s)[:n-1]), " ") + "…"
}

// isControl is ctrlchar.Is, under the name the package's checks and tests use.
var isControl = ctrlchar.Is
