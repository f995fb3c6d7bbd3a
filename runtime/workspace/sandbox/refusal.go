package sandbox

import (
	"path/filepath"
	"strings"
)

// maxRefusals bounds how many refused lines Refusals returns.
const maxRefusals = 3

// fileRefusals are the words programs print for the errors the sandbox
// gives on files: EACCES, EPERM, and EXDEV for a link or a rename that
// would carry a file out of the writable roots.
var fileRefusals = []string{"Permission denied", "Operation not permitted", "Invalid cross-device link", "cross-device link"}

// netRefusals are the words programs print when a connection or a name
// lookup fails, which with the network off is the sandbox's doing.
var netRefusals = []string{
	"Failed to connect", "Couldn't connect", "could not connect", "Could not resolve host",
	"Temporary failure in name resolution", "Name or service not known", "Network is unreachable",
	"Protocol not supported", "Address family not supported",
}

// Refusals returns the lines of a sandboxed command's output (at most three)
// that look like the sandbox refusing something: a permission error on a
// path the sandbox does not let it change, or on no path it names (a
// refused connection); and, with the network off, a failed connection or
// name lookup. A permission error whose paths are all writable is the
// file's own permissions, not the sandbox, and is left out. dir is the
// folder relative paths in the output are taken from.
func (s *Sandbox) Refusals(output, dir string) []string {
	if !s.Enabled() {
		return nil
	}
	var out []string
	for _, line := range strings.Split(output, "\n") {
		if len(out) == maxRefusals {
			break
		}
		line = strings.TrimSpace(line)
		switch {
		case containsAny(line, fileRefusals):
			if s.blocksAny(pathsIn(line), dir) {
				out = append(out, cutLine(line))
			}
		case !s.network && containsAny(line, netRefusals):
			out = append(out, cutLine(line))
		}
	}
	return out
}

// blocksAny reports whether the sandbox keeps a command from changing one of
// paths (taken from dir when relative), or whether there are none to judge
// by.
func (s *Sandbox) blocksAny(paths []string, dir string) bool {
	if len(paths) == 0 {
		return true
	}
	for _, p := range paths {
		if strings.HasPrefix(p, "~/") {
			// The shell did not expand it, so it is not a path it used.
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if !s.CanWrite(filepath.Clean(p)) {
			return true
		}
	}
	return false
}

// pathsIn picks out what looks like a path in an error line: a quoted word,
// or else a word with a slash (with punctuation around it trimmed), such as
// "touch: cannot touch '/etc/x': Permission denied" or "bash: line 1: ../x:
// Permission denied".
func pathsIn(line string) []string {
	var paths []string
	rest := line
	for {
		i := strings.IndexAny(rest, "'\"‘“`")
		if i < 0 {
			break
		}
		closing := map[byte]string{'\'': "'", '"': "\"", '`': "'"}[rest[i]]
		open := rest[i:]
		width := 1
		if strings.HasPrefix(open, "‘") || strings.HasPrefix(open, "“") {
			width = len("‘")
			closing = map[bool]string{true: "’", false: "”"}[strings.HasPrefix(open, "‘")]
		}
		end := strings.Index(rest[i+width:], closing)
		if end < 0 {
			break
		}
		if q := rest[i+width : i+width+end]; q != "" && !strings.ContainsAny(q, " \t") {
			paths = append(paths, q)
		}
		rest = rest[i+width+end+len(closing):]
	}
	if len(paths) > 0 {
		return paths
	}
	for _, word := range strings.Fields(line) {
		word = strings.TrimRight(word, ":,;)")
		word = strings.TrimLeft(word, "(")
		if strings.Contains(word, "/") && !strings.Contains(word, "://") {
			paths = append(paths, word)
		}
	}
	return paths
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// cutLine bounds a quoted line so a long one cannot flood the note.
func cutLine(s string) string {
	const limit = 200
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
