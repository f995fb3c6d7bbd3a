package mcp

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Describe returns one line per server of c, in name order, for asking the
// person whether to start them: the server's name and how it starts, its
// command and arguments and the environment it is given, or its URL and
// the headers sent to it, as in
//
//	MCP server fs: npx -y @modelcontextprotocol/server-filesystem .
//	MCP server x: sh -c "touch /tmp/m" (env LEVEL=${LEVEL:-warn})
//	MCP server t: https://mcp.example.com/mcp (headers Authorization=Bearer ${TOKEN})
//
// Read from ParseConfigAsWritten, the values are as the file writes them.
// A word with a blank, a quote or a character that is not printed as it
// is (a control or a formatting character) is quoted with Go's escapes, so
// that a command cannot hide part of itself, or act on the terminal, in
// the question that asks about it.
func (c *Config) Describe() []string {
	if c == nil {
		return nil
	}
	lines := make([]string, 0, len(c.Servers))
	for _, s := range c.Servers {
		line := "MCP server " + word(s.Name) + ": "
		if s.Transport == TransportHTTP {
			line += word(s.URL) + pairs("headers", s.Headers)
		} else {
			words := []string{word(s.Command)}
			for _, a := range s.Args {
				words = append(words, word(a))
			}
			line += strings.Join(words, " ") + pairs("env", s.Env)
		}
		lines = append(lines, line)
	}
	return lines
}

// pairs writes a map as " (what K=V K=V)" in key order; empty for none.
func pairs(what string, m map[string]string) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = word(k) + "=" + word(m[k])
	}
	return " (" + what + " " + strings.Join(parts, " ") + ")"
}

// word returns w as it is when it is plain, else quoted with escapes.
func word(w string) string {
	if w == "" {
		return `""`
	}
	for _, r := range w {
		if unicode.IsSpace(r) || r == '"' || r == '\'' || r == '\\' || !unicode.IsPrint(r) || unicode.Is(unicode.Cf, r) {
			return strconv.Quote(w)
		}
	}
	return w
}
