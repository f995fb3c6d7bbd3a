package usercommands

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agenttui/agenttui/internal/ctrlchar"
	"github.com/agenttui/agenttui/internal/frontmatter"
)

// parse reads one command file: an optional YAML front matter block between
// a first line "---" and a closing "---" line, then the Markdown body.
//
// The front matter's keys are those of Claude Code's command files:
// description, argument-hint and model; allowed-tools, disable-model-
// invocation and any other key are accepted and ignored. argument-hint is
// taken as written on its line unless it is quoted or a block scalar,
// because Claude Code's own examples write it as "[pr-number] [priority]",
// which YAML would read as a list, or refuse.
func parse(data []byte) (Command, error) {
	text := strings.TrimPrefix(strings.ToValidUTF8(string(data), "\uFFFD"), "\uFEFF")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	front, body, err := frontmatter.Split(text)
	switch {
	case errors.Is(err, frontmatter.ErrMissing):
		// The front matter is optional: the whole text is the prompt.
		front, body = "", text
	case err != nil:
		return Command{}, err
	}
	front, hint, err := literalHint(front)
	if err != nil {
		return Command{}, err
	}
	fields, err := frontmatter.Fields(front)
	if err != nil {
		return Command{}, err
	}
	c := Command{Body: strings.TrimSpace(body)}
	if c.Body == "" {
		return Command{}, errors.New("has no text after its front matter, so the command would send nothing")
	}
	if hint == nil {
		if hint, err = screenField(fields, "argument-hint"); err != nil {
			return Command{}, err
		}
	} else if _, dup := fields["argument-hint"]; dup {
		return Command{}, errors.New("its front matter sets argument-hint twice")
	}
	if hint != nil {
		c.ArgumentHint = *hint
	}
	desc, err := screenField(fields, "description")
	if err != nil {
		return Command{}, err
	}
	if desc != nil {
		c.Description = *desc
	}
	if c.Description == "" {
		c.Description = firstLine(c.Body)
	}
	model, err := screenField(fields, "model")
	if err != nil {
		return Command{}, err
	}
	if model != nil {
		c.Model = modelSpec(*model)
	}
	return c, nil
}

// literalHint takes a top-level argument-hint out of front when its value
// is plain text on its own line, and returns it as written, with the line
// left blank so YAML's line numbers stay the file's. A quoted value, a
// block scalar or an anchor is left to YAML.
func literalHint(front string) (rest string, hint *string, err error) {
	lines := strings.Split(front, "\n")
	for i, l := range lines {
		v, ok := strings.CutPrefix(l, "argument-hint:")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if v == "" || strings.ContainsRune(`"'|>&*!`, rune(v[0])) {
			continue
		}
		if hint != nil {
			return "", nil, errors.New("its front matter sets argument-hint twice")
		}
		if err := checkScreen("argument-hint", v); err != nil {
			return "", nil, err
		}
		hint = &v
		lines[i] = ""
	}
	return strings.Join(lines, "\n"), hint, nil
}

// screenField returns the text of the scalar field key, trimmed, or nil
// when it is absent or null. The text is drawn on screen, so a value with
// a line break or a control character is refused rather than mended.
func screenField(fields map[string]*yaml.Node, key string) (*string, error) {
	n, ok := fields[key]
	if !ok || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null") {
		return nil, nil
	}
	if n.Kind != yaml.ScalarNode {
		return nil, fmt.Errorf("its %s is not text (line %d)", key, n.Line)
	}
	v := strings.TrimSpace(n.Value)
	if err := checkScreen(key, v); err != nil {
		return nil, err
	}
	return &v, nil
}

// checkScreen refuses a value of key that holds a line break or a control
// character.
func checkScreen(key, v string) error {
	if strings.ContainsFunc(v, isControl) {
		return fmt.Errorf("its %s %s holds a line break or a control character; write it on one line", key, quote(v))
	}
	return nil
}

// firstLine returns the first non-empty line of body as a description: a
// Markdown heading's marks dropped, control characters made spaces, cut to
// DescriptionRunes.
func firstLine(body string) string {
	for l := range strings.SplitSeq(body, "\n") {
		l = ctrlchar.OneLine(strings.TrimLeft(strings.TrimSpace(l), "#"))
		if l != "" {
			return cut(l, DescriptionRunes)
		}
	}
	return ""
}

// modelSpec turns the front matter's model into Command.Model.
func modelSpec(model string) string {
	switch strings.ToLower(model) {
	case "inherit", "sonnet", "opus", "haiku":
		return ""
	}
	if strings.HasPrefix(model, "claude-") {
		// Claude Code names Anthropic's models without a provider.
		return "anthropic:" + model
	}
	return model
}
