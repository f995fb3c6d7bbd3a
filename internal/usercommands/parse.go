package usercommands

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
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
	front, body, err := splitFrontMatter(text)
	if err != nil {
		return Command{}, err
	}
	front, hint, err := literalHint(front)
	if err != nil {
		return Command{}, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(front), &doc); err != nil {
		return Command{}, errors.New("the front matter is not valid YAML: " + err.Error())
	}
	fields, err := frontFields(&doc)
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

// splitFrontMatter splits text into the front matter and the body; text
// without a first line "---" is all body. The front matter keeps a blank
// line in place of the opening "---", so YAML's line numbers are the
// file's.
func splitFrontMatter(text string) (front, body string, err error) {
	first, rest, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t") != "---" {
		return "", text, nil
	}
	for off := 0; ; {
		line, _, found := strings.Cut(rest[off:], "\n")
		if strings.TrimRight(line, " \t") == "---" {
			front = "\n" + rest[:off]
			if found {
				body = rest[off+len(line)+1:]
			}
			return front, body, nil
		}
		if !found {
			break
		}
		off += len(line) + 1
	}
	return "", "", errors.New("its front matter block is not closed by a line ---")
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

// frontFields returns the front matter's top-level keys and values. Later
// duplicates are refused, since YAML forbids them and it is unclear which
// was meant.
func frontFields(doc *yaml.Node) (map[string]*yaml.Node, error) {
	fields := make(map[string]*yaml.Node)
	root := doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return fields, nil
		}
		root = root.Content[0]
	}
	switch {
	case root.Kind == 0:
		return fields, nil // empty front matter
	case root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null":
		return fields, nil
	case root.Kind != yaml.MappingNode:
		return nil, errors.New("its front matter is not a YAML mapping of keys to values")
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			continue // not a key we know
		}
		if _, dup := fields[k.Value]; dup {
			return nil, fmt.Errorf("its front matter sets %s twice (line %d)", quote(k.Value), k.Line)
		}
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		fields[k.Value] = v
	}
	return fields, nil
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
		l = oneLine(strings.TrimLeft(strings.TrimSpace(l), "#"))
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
