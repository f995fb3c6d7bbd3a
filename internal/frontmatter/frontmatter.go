// Package frontmatter reads the YAML front matter block that opens a
// Markdown file, as Claude Code's agent and command files write it:
//
//	---
//	description: Review the open pull request
//	model: sonnet
//	---
//	The body, in Markdown.
//
// The package finds the block ([Split]) and its top-level keys ([Fields]);
// what the keys mean, and which are required, is the caller's. Errors are
// worded to follow a file's name in a notice, as in
// "review.md: its front matter block is not closed by a line ---".
package frontmatter

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Errors that Split returns.
var (
	// ErrMissing means the text does not start with a front matter
	// block. Callers for whom the block is optional take the whole text
	// as the body.
	ErrMissing = errors.New("it does not start with a front matter block (---)")
	// ErrUnclosed means the text opens a front matter block that no line
	// closes.
	ErrUnclosed = errors.New("its front matter block is not closed by a line ---")
)

// Split splits text into its front matter and its body. The front matter is
// the lines between a first line "---" and the next line "---", either of
// which may end in spaces or tabs; the body is all that follows the closing
// line. Lines end in "\n": callers turn "\r\n" into "\n" first.
//
// The front matter keeps an empty line in place of the opening "---", so
// that the line numbers in YAML's errors about it, and in Fields' errors,
// are the file's.
//
// Split returns ErrMissing when text's first line is not "---", and
// ErrUnclosed when no later line is.
func Split(text string) (front, body string, err error) {
	first, rest, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t") != "---" {
		return "", "", ErrMissing
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
	return "", "", ErrUnclosed
}

// Fields parses front, front matter as Split returns it, and returns its
// top-level keys and their values. Empty or null front matter has no keys.
// A value that is an alias is returned as the node it refers to, and a key
// that is not a scalar is skipped, since it cannot be one a caller knows.
//
// When front is not valid YAML, the error is the parser's after "the front
// matter is not valid YAML: ", and errors.Unwrap returns the parser's. Front
// matter that is not a mapping is refused, and so is a key given twice:
// YAML forbids it, and it is unclear which of the values was meant.
func Fields(front string) (map[string]*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(front), &doc); err != nil {
		return nil, fmt.Errorf("the front matter is not valid YAML: %w", err)
	}
	fields := make(map[string]*yaml.Node)
	root := &doc
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
			continue
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

// quote returns key quoted for an error, cut to 70 runes with an ellipsis so
// that a long key does not swamp the message.
func quote(key string) string {
	const maxRunes = 70
	if utf8.RuneCountInString(key) > maxRunes {
		key = strings.TrimRight(string([]rune(key)[:maxRunes-1]), " ") + "…"
	}
	return fmt.Sprintf("%q", key)
}
