package docs

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// TestLinksResolve checks every relative link and image in the README and
// in docs/*.md: the file or folder it names exists inside the repository,
// and a #fragment names a heading (or an HTML id) of the Markdown file it
// points to. Absolute URLs (http, https, mailto) are not checked.
func TestLinksResolve(t *testing.T) {
	files := []string{filepath.Join("..", "README.md")}
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, pages...)
	problems, links := checkLinks("..", files)
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("%d links checked in %d files", links, len(files))
}

// TestCheckLinksReportsBrokenOnes runs the checker on a small tree with one
// link of every kind, good and broken, so the test above is known to fail
// when a link breaks.
func TestCheckLinksReportsBrokenOnes(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("README.md", strings.Join([]string{
		"# Title",
		"[good page](docs/a.md) [good anchor](docs/a.md#the-input-lines-history)",
		"[second of two](docs/a.md#twice-1) [image](docs/demo.svg) ![image](docs/demo.svg)",
		"[own heading](#title) [folder](docs/) [web](https://example.com/x#y) [mail](mailto:a@b.c)",
		"`[in code](missing.md)`",
		"```",
		"[in a fence](missing.md)",
		"```",
		"[ref]: docs/a.md#twice",
		"[missing page](docs/nope.md)",
		"[missing anchor](docs/a.md#nope)",
		"![missing image](docs/nope.svg)",
		"[missing own heading](#nope)",
		"[outside](../elsewhere.md)",
		"[rooted](/docs/a.md)",
		"[third of two](docs/a.md#twice-2)",
		"[bad]: docs/gone.md",
		"[a link over",
		"two lines](docs/missing-too.md) [and a good one over",
		"two](docs/a.md#twice)",
	}, "\n"))
	write("docs/a.md", "# A\n\n## The input: lines, history\n\n## Twice\n\n### Twice\n")
	write("docs/demo.svg", "<svg/>")

	problems, links := checkLinks(root, []string{filepath.Join(root, "README.md")})
	if links != 20 {
		t.Errorf("checked %d links, want 20", links)
	}
	want := []string{
		"README.md:10: docs/nope.md",
		"README.md:11: docs/a.md#nope",
		"README.md:12: docs/nope.svg",
		"README.md:13: #nope",
		"README.md:14: ../elsewhere.md",
		"README.md:15: /docs/a.md",
		"README.md:16: docs/a.md#twice-2",
		"README.md:17: docs/gone.md",
		"README.md:18: docs/missing-too.md",
	}
	if len(problems) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(problems), len(want), strings.Join(problems, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(problems[i], w) {
			t.Errorf("problem %d = %q, want it to name %q", i, problems[i], w)
		}
	}
}

func TestAnchor(t *testing.T) {
	for heading, want := range map[string]string{
		"The input: lines, history, editor, commands":               "the-input-lines-history-editor-commands",
		"Sessions, crashes and resuming":                            "sessions-crashes-and-resuming",
		"Start-up":                                                  "start-up",
		"`--record` and `agenttui_x`":                               "--record-and-agenttui_x",
		"Tools from [MCP](https://modelcontextprotocol.io) servers": "tools-from-mcp-servers",
		"What the model reads — in full":                            "what-the-model-reads--in-full",
		"Ünïcode stays":                                             "ünïcode-stays",
	} {
		if got := anchor(heading); got != want {
			t.Errorf("anchor(%q) = %q, want %q", heading, got, want)
		}
	}
}

func TestWithoutCodeSpans(t *testing.T) {
	for line, want := range map[string]string{
		"a `[x](y.md)` b":       "a code b",
		"a ``[x](`y`.md)`` b":   "a code b",
		"``` not closed":        "``` not closed",
		"one ` tick [x](y.md)":  "one ` tick [x](y.md)",
		"`a` and `b`":           "code and code",
		"`` a ``` b `` c":       "code c",
		"[`--autopilot`](#a-b)": "[code](#a-b)",
	} {
		if got := withoutCodeSpans(line); got != want {
			t.Errorf("withoutCodeSpans(%q) = %q, want %q", line, got, want)
		}
	}
}

var (
	fence      = regexp.MustCompile("^ {0,3}(```|~~~)")
	atxHeading = regexp.MustCompile(`^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$`)
	// The text of a link may run over lines, but not over a blank line.
	inlineLink = regexp.MustCompile(`!?\[(?:[^\]\n]|\n[^\]\n])*\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)`)
	refDef     = regexp.MustCompile(`(?m)^ {0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)`)
	htmlRef    = regexp.MustCompile(`(?i)<(?:img|a|source)\b[^>]*?\s(?:src|href|srcset)\s*=\s*"([^"]*)"`)
	htmlID     = regexp.MustCompile(`(?i)<[a-z][^>]*?\s(?:id|name)\s*=\s*"([^"]*)"`)
	linkText   = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	scheme     = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	tag        = regexp.MustCompile(`<[^>]*>`)
)

// checkLinks checks the links of files (paths as the caller names them)
// against the repository at root. It returns one line per broken link,
// "file:line: target: why", in file and line order, and how many links it
// checked.
func checkLinks(root string, files []string) (problems []string, checked int) {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return []string{err.Error()}, 0
	}
	anchors := map[string]map[string]bool{} // absolute path of a Markdown file → its anchors
	anchorsOf := func(path string) (map[string]bool, error) {
		if a, ok := anchors[path]; ok {
			return a, nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		a := headingAnchors(string(data))
		anchors[path] = a
		return a, nil
	}
	for _, file := range files {
		abs, err := filepath.Abs(file)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		data, err := os.ReadFile(abs)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		name, _ := filepath.Rel(absRoot, abs)
		for _, l := range extractLinks(string(data)) {
			checked++
			if why := checkOne(absRoot, abs, l.target, anchorsOf); why != "" {
				problems = append(problems, fmt.Sprintf("%s:%d: %s: %s", filepath.ToSlash(name), l.line, l.target, why))
			}
		}
	}
	return problems, checked
}

// checkOne says what is wrong with one link target of the file at from, or
// "" when it resolves.
func checkOne(root, from, target string, anchorsOf func(string) (map[string]bool, error)) string {
	lower := strings.ToLower(target)
	switch {
	case strings.HasPrefix(lower, "http://"), strings.HasPrefix(lower, "https://"),
		strings.HasPrefix(lower, "mailto:"), strings.HasPrefix(lower, "//"):
		return ""
	case scheme.MatchString(target):
		return "not a relative link, and not http, https or mailto"
	case strings.HasPrefix(target, "/"):
		return "an absolute path does not resolve on GitHub; use a path relative to this file"
	}
	path, fragment, _ := strings.Cut(target, "#")
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	path, err := url.PathUnescape(path)
	if err != nil {
		return "cannot decode the path: " + err.Error()
	}
	dest := from
	if path != "" {
		dest = filepath.Join(filepath.Dir(from), filepath.FromSlash(path))
		if rel, err := filepath.Rel(root, dest); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "points outside the repository"
		}
		info, err := os.Stat(dest)
		if err != nil {
			return "no such file"
		}
		if info.IsDir() {
			if fragment != "" {
				return "a folder has no headings"
			}
			return ""
		}
	}
	if fragment == "" || !strings.HasSuffix(strings.ToLower(dest), ".md") {
		return "" // GitHub's line anchors (#L10) and the like are not checked
	}
	fragment, err = url.PathUnescape(fragment)
	if err != nil {
		return "cannot decode the fragment: " + err.Error()
	}
	a, err := anchorsOf(dest)
	if err != nil {
		return err.Error()
	}
	if !a[strings.ToLower(fragment)] {
		return "no such heading in " + filepath.Base(dest)
	}
	return ""
}

type link struct {
	line   int
	target string
}

// extractLinks returns the targets of the inline links and images, link
// reference definitions and HTML src/href attributes of a Markdown text,
// leaving out code blocks and code spans. A link's text may run over
// several lines of a paragraph; its line is the line it starts on.
func extractLinks(text string) []link {
	lines := strings.Split(text, "\n")
	inFence := false
	for i, line := range lines {
		switch {
		case fence.MatchString(line):
			inFence = !inFence
			lines[i] = ""
		case inFence:
			lines[i] = ""
		default:
			lines[i] = withoutCodeSpans(line)
		}
	}
	clean := strings.Join(lines, "\n")
	var found []struct {
		at     int
		target string
	}
	for _, re := range []*regexp.Regexp{refDef, inlineLink, htmlRef} {
		for _, m := range re.FindAllStringSubmatchIndex(clean, -1) {
			found = append(found, struct {
				at     int
				target string
			}{m[0], clean[m[2]:m[3]]})
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].at < found[j].at })
	links := make([]link, 0, len(found))
	for _, f := range found {
		target := strings.TrimSuffix(strings.TrimPrefix(f.target, "<"), ">")
		links = append(links, link{strings.Count(clean[:f.at], "\n") + 1, target})
	}
	return links
}

// withoutCodeSpans replaces each code span of a line (a run of backticks,
// up to the next run of the same length) by the word "code", so that what
// looks like a link inside one is not taken for a link.
func withoutCodeSpans(line string) string {
	var b strings.Builder
	for {
		start := strings.IndexByte(line, '`')
		if start < 0 {
			b.WriteString(line)
			return b.String()
		}
		n := start
		for n < len(line) && line[n] == '`' {
			n++
		}
		ticks := line[start:n]
		end := -1
		for i := n; i < len(line); {
			j := strings.Index(line[i:], ticks)
			if j < 0 {
				break
			}
			j += i
			k := j + len(ticks)
			if k < len(line) && line[k] == '`' { // a longer run does not close it
				for k < len(line) && line[k] == '`' {
					k++
				}
				i = k
				continue
			}
			end = k
			break
		}
		if end < 0 { // no closing run: the backticks are plain text
			b.WriteString(line[:n])
			line = line[n:]
			continue
		}
		b.WriteString(line[:start])
		b.WriteString("code")
		line = line[end:]
	}
}

// headingAnchors returns the anchors GitHub makes for the ATX headings of
// a Markdown text (outside code blocks), duplicates numbered -1, -2, …, and
// the id and name attributes of its HTML elements.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		for _, m := range htmlID.FindAllStringSubmatch(line, -1) {
			anchors[strings.ToLower(m[1])] = true
		}
		m := atxHeading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		a := anchor(m[2])
		if n := seen[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}

// anchor is GitHub's anchor for a heading: the text as rendered (links by
// their text, no tags), lowercased, each space a hyphen, and every
// character but letters, digits, marks, '-' and '_' dropped.
func anchor(heading string) string {
	heading = linkText.ReplaceAllString(heading, "$1")
	heading = tag.ReplaceAllString(heading, "")
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-', r == '_', unicode.IsLetter(r), unicode.IsDigit(r), unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
