package agents

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/agenttui/agenttui/internal/ctrlchar"
	"github.com/agenttui/agenttui/internal/frontmatter"
)

// Load reads the agent files in dirs, in order, and returns their
// definitions sorted by name, with a definition from a later folder replacing
// an earlier one of the same name. Callers pass the user's configuration
// folder first, then the workspace's .claude/agents, then .agenttui/agents, so
// the most specific wins. Load returns only the files' definitions: use Merge
// to lay them over Builtins.
//
// In each folder Load reads the files named *.md, not recursively, in the
// order of their names, skipping names that start with '.' and reading at
// most MaxFilesPerDir of them. A folder that does not exist is skipped
// silently. Anything that goes wrong (a folder that cannot be read, a file
// that does not parse, two files of one folder with the same name) gives one
// notice, a single line without control characters that names the file or
// folder, and the other files still load.
func Load(dirs ...string) (defs []Definition, notices []string) {
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				notices = append(notices, ctrlchar.OneLine(fmt.Sprintf("agent folder %s: cannot be read: %v", dir, err)))
			}
			// ReadDir may return the entries it read before an error;
			// carry on with those.
		}
		var files []string
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".md") || e.IsDir() {
				continue
			}
			files = append(files, name)
		}
		if len(files) > MaxFilesPerDir {
			notices = append(notices, ctrlchar.OneLine(fmt.Sprintf(
				"agent folder %s: has %d agent files; only the first %d by name are loaded",
				dir, len(files), MaxFilesPerDir)))
			files = files[:MaxFilesPerDir]
		}
		fromHere := make(map[string]string) // name → file of this folder
		var here []Definition
		for _, name := range files {
			path := filepath.Join(dir, name)
			d, err := readFile(path)
			if err != nil {
				notices = append(notices, err.Error())
				continue
			}
			if earlier, ok := fromHere[d.Name]; ok {
				notices = append(notices, ctrlchar.OneLine(fmt.Sprintf(
					"agent file %s: the name %s is also used by %s in the same folder; this file wins",
					path, d.Name, earlier)))
			}
			fromHere[d.Name] = path
			here = append(here, d)
		}
		defs = append(defs, here...)
	}
	return Merge(nil, defs), notices
}

// readFile reads and parses one agent file, refusing anything that is not a
// regular file (a FIFO would block the open) or is too large.
func readFile(path string) (Definition, error) {
	data, err := frontmatter.ReadFile(path, MaxFileSize)
	switch {
	case errors.Is(err, frontmatter.ErrNotRegular):
		return Definition{}, fileErr(path, "is not a regular file")
	case errors.Is(err, frontmatter.ErrTooLarge):
		return Definition{}, fileErr(path, tooLarge)
	case err != nil:
		return Definition{}, fileErr(path, "cannot be read: "+err.Error())
	}
	return Parse(path, data)
}

const tooLarge = "is larger than 256 KiB"

// fileError is a problem with one agent file. Its message is one line,
// "agent file <path>: <problem>", without control characters, so it can be
// shown as a notice as it is.
type fileError struct {
	path    string
	problem string
	err     error // the underlying error, if any
}

func (e *fileError) Error() string {
	return ctrlchar.OneLine("agent file " + e.path + ": " + e.problem)
}

func (e *fileError) Unwrap() error { return e.err }

func fileErr(path, problem string) error {
	return &fileError{path: path, problem: problem}
}

// validName is the shape of a definition's name: ^[a-z0-9][a-z0-9_-]{0,63}$.
// It is compiled on first use: its counted repetition makes a regexp of
// some size, which every start of the console would otherwise build.
var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`) })

// Parse reads one agent file: a YAML front matter block between a first line
// "---" and a closing "---" line, then the Markdown body, which becomes the
// Prompt. path is used for Source, for the name when the front matter has
// none (the file name without ".md") and in errors; nothing is read from it.
//
// The front matter's keys are those of Claude Code's agent files:
//   - name: the definition's name; it must have the shape described at
//     Definition.Name. It is not lower-cased, so a file written for a
//     case-insensitive tool fails loudly rather than loading under another
//     name.
//   - description: required and not empty. Whitespace, line breaks
//     included, is folded to single spaces, making it one paragraph.
//   - tools: a comma-separated string ("Read, Grep, Glob") or a YAML list.
//     Claude Code's names are translated (Read → read_file, Bash →
//     run_shell, "mcp__server__tool" → "server__tool", and so on); Claude
//     Code tools agenttui lacks (TodoWrite, WebSearch, …) are dropped; other
//     names are kept as written. Duplicates are removed, order kept. An
//     omitted or null `tools` means AllTools; an empty string or list means
//     no tools.
//   - model: a model as the configuration writes it ("openai:gpt-5").
//     Claude Code's "inherit" and its aliases "sonnet", "opus" and "haiku"
//     become "", the parent's model, because agenttui cannot tell which
//     provider's model they would mean.
//
// Other keys (color, permissionMode, skills, …) are ignored. A file larger
// than MaxFileSize is refused. Errors are one line and name the file; the
// line numbers in YAML errors count from the file's first line, the opening
// "---" (as closely as the YAML parser reports them: for an unclosed bracket
// it names the line before).
func Parse(path string, data []byte) (Definition, error) {
	if len(data) > MaxFileSize {
		return Definition{}, fileErr(path, tooLarge)
	}
	text := strings.TrimPrefix(string(data), "\uFEFF")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	front, body, err := frontmatter.Split(text)
	if err != nil {
		return Definition{}, fileErr(path, err.Error())
	}
	fields, err := frontmatter.Fields(front)
	if err != nil {
		// The file's error wraps the YAML parser's error, so a caller can
		// reach it; errors.Unwrap returns it, and nil for the other
		// problems.
		return Definition{}, &fileError{path: path, problem: err.Error(), err: errors.Unwrap(err)}
	}

	d := Definition{Source: path, Prompt: strings.ToValidUTF8(strings.TrimSpace(body), "\uFFFD")}

	name, named, err := scalarField(fields, "name")
	if err != nil {
		return Definition{}, fileErr(path, err.Error())
	}
	name = strings.TrimSpace(name)
	if !named || name == "" {
		name = strings.TrimSuffix(filepath.Base(path), ".md")
		if !validName().MatchString(name) {
			return Definition{}, fileErr(path, fmt.Sprintf(
				"it has no name, and its file name %s cannot serve as one: %s", quote(name), nameRule))
		}
	} else if !validName().MatchString(name) {
		return Definition{}, fileErr(path, fmt.Sprintf("its name %s is not valid: %s", quote(name), nameRule))
	}
	d.Name = name

	desc, _, err := scalarField(fields, "description")
	if err != nil {
		return Definition{}, fileErr(path, err.Error())
	}
	d.Description = ctrlchar.OneLine(desc)
	if d.Description == "" {
		return Definition{}, fileErr(path, "it has no description")
	}

	model, _, err := scalarField(fields, "model")
	if err != nil {
		return Definition{}, fileErr(path, err.Error())
	}
	d.Model, err = parseModel(model)
	if err != nil {
		return Definition{}, fileErr(path, err.Error())
	}

	d.Tools, d.AllTools, err = parseTools(fields["tools"])
	if err != nil {
		return Definition{}, fileErr(path, err.Error())
	}
	return d, nil
}

const nameRule = "use lower-case letters, digits, '-' and '_', starting with a letter or digit, at most 64 characters"

// quote returns s quoted for an error message, shortened so a long value
// does not swamp the message.
func quote(s string) string {
	return fmt.Sprintf("%q", cut(s, 70))
}

// scalarField returns the text of the scalar field key, and whether it is
// present and not null.
func scalarField(fields map[string]*yaml.Node, key string) (string, bool, error) {
	n, ok := fields[key]
	if !ok {
		return "", false, nil
	}
	if n.Kind != yaml.ScalarNode {
		return "", false, fmt.Errorf("its %s is not text (line %d)", key, n.Line)
	}
	if n.ShortTag() == "!!null" {
		return "", false, nil
	}
	return n.Value, true, nil
}

// parseModel turns the front matter's model into Definition.Model.
func parseModel(model string) (string, error) {
	model = strings.TrimSpace(model)
	for _, r := range model {
		if ctrlchar.Is(r) {
			return "", fmt.Errorf("its model %s contains control characters or line breaks", quote(model))
		}
	}
	switch strings.ToLower(model) {
	case "inherit", "sonnet", "opus", "haiku":
		return "", nil
	}
	return model, nil
}

// claudeTools translates Claude Code's tool names to agenttui's.
var claudeTools = map[string]string{
	"Bash":      "run_shell",
	"Edit":      "edit_file",
	"MultiEdit": "edit_file",
	"Write":     "write_file",
	"Read":      "read_file",
	"Glob":      "glob",
	"Grep":      "grep",
	"LS":        "list_dir",
	"WebFetch":  "web_fetch",
	"Task":      TaskTool,
}

// claudeOnly are Claude Code tools agenttui has no counterpart for; a file
// that names them still loads, without them. KillBash is KillShell's older
// name.
var claudeOnly = map[string]bool{
	"NotebookEdit": true,
	"NotebookRead": true,
	"TodoWrite":    true,
	"WebSearch":    true,
	"BashOutput":   true,
	"KillShell":    true,
	"KillBash":     true,
	"ExitPlanMode": true,
	"SlashCommand": true,
}

// parseTools turns the front matter's tools into Definition.Tools and
// AllTools.
func parseTools(n *yaml.Node) (tools []string, all bool, err error) {
	if n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null") {
		return nil, true, nil
	}
	var raw []string
	switch n.Kind {
	case yaml.ScalarNode:
		raw = splitTools(n.Value)
	case yaml.SequenceNode:
		for _, item := range n.Content {
			if item.Kind == yaml.AliasNode && item.Alias != nil {
				item = item.Alias
			}
			if item.Kind != yaml.ScalarNode {
				return nil, false, fmt.Errorf("its tools list holds something other than a name (line %d)", item.Line)
			}
			raw = append(raw, item.Value)
		}
	default:
		return nil, false, fmt.Errorf("its tools are neither a comma-separated string nor a list (line %d)", n.Line)
	}
	for _, t := range raw {
		t = mapTool(strings.TrimSpace(t))
		if t != "" && !slices.Contains(tools, t) {
			tools = append(tools, t)
		}
	}
	return tools, false, nil
}

// splitTools splits a comma-separated tools string. Commas inside
// parentheses, as in Claude Code's "Bash(git add:*, git commit:*)", do not
// split.
func splitTools(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

// mapTool returns agenttui's name for a tool named in a file, or "" for a
// Claude Code tool agenttui lacks. Names it does not know are kept as
// written: a restricted form such as "Bash(git:*)" then matches no tool, so
// it grants less, never more, than the file asked for.
func mapTool(t string) string {
	if ours, ok := claudeTools[t]; ok {
		return ours
	}
	if claudeOnly[t] {
		return ""
	}
	if rest, ok := strings.CutPrefix(t, "mcp__"); ok && strings.Contains(rest, "__") {
		return rest
	}
	return t
}
