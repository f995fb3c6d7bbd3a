package render

import (
	"io"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// stripHTML returns the text that s, a piece of HTML, shows once every tag,
// comment and declaration is removed, with what scripts, styles, titles,
// frames and objects hold, and with the spaces at its ends trimmed.
//
// It drops what bluemonday's strict policy drops, and keeps what it keeps,
// character references decoded: the HTML tokenizer it goes through is the
// one bluemonday uses, and the tokens it keeps are those the policy keeps.
func stripHTML(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	var (
		b strings.Builder
		// recent is the name of the latest element started and not
		// yet ended: the text of a script or a style is dropped.
		recent string
		// hidden counts the elements whose content is dropped that are
		// open; it may go below zero with stray end tags, and shows
		// nothing again only once it comes back to zero.
		hidden int
		hiding bool
	)
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		if z.Next() == html.ErrorToken {
			if z.Err() != io.EOF {
				return ""
			}
			return strings.TrimSpace(b.String())
		}
		t := z.Token()
		switch t.Type {
		case html.StartTagToken:
			recent = elementName(t.Data)
			if recent == "script" || recent == "style" {
				continue
			}
			if hidesContent(t.Data) {
				hiding = true
				hidden++
			}
		case html.EndTagToken:
			name := elementName(t.Data)
			if recent == name {
				recent = ""
			}
			if name == "script" || name == "style" {
				continue
			}
			if hidesContent(t.Data) {
				hidden--
				if hidden == 0 {
					hiding = false
				}
			}
		case html.TextToken:
			if !hiding && recent != "script" && recent != "style" {
				b.WriteString(t.Data)
			}
		}
	}
}

// elementName returns an element's name as bluemonday compares it: in
// lower case, with what is not printable ASCII escaped as in a Go string.
func elementName(s string) string {
	q := strings.ToLower(strconv.QuoteToASCII(s))
	return strings.TrimSuffix(strings.TrimPrefix(q, `"`), `"`)
}

// hidesContent reports whether what an element holds is dropped with it.
func hidesContent(name string) bool {
	switch name {
	case "frame", "frameset", "iframe", "noembed", "noframes", "noscript", "nostyle", "object", "script", "style", "title":
		return true
	}
	return false
}
