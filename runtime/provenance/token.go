package provenance

import (
	"net/netip"
	"strings"
)

// maxChunk is the longest run of text without a hard separator that is
// looked at for tokens; longer runs (minified code, base64) have none. It
// bounds the cost of checking a token candidate. A URL longer than that is
// still found through its windows.
const maxChunk = 4096

// Tokens are found in chunks: runs of bytes between hard separators
// (whitespace and control bytes, quotes and backquotes, round, curly and
// angle brackets, and the bytes , ; | \), so that a token found in a text
// can be checked by looking at its chunk alone. In a chunk, a URL (a scheme,
// "://", and the rest of the chunk less trailing punctuation) is a token,
// and so is its host. The part of the chunk before its first URL is
// searched for IPv6 addresses, then split at the soft separators
// = : @ [ ] ! $ & * ? # ^ + % into words. A word with a slash is a path when
// it holds a letter, does not start with "//", and starts with "/", "./",
// "../" or "~/" or has two non-empty components. A word's runs of letters,
// digits, dots and hyphens are hosts when they are IPv4 addresses or dotted
// names whose last label is a well-known top-level domain (see tlds).

// hard reports whether c ends a chunk.
func hard(c byte) bool {
	if c <= ' ' || c == 0x7f {
		return true
	}
	switch c {
	case '"', '\'', '`', '<', '>', '(', ')', '{', '}', ',', ';', '|', '\\':
		return true
	}
	return false
}

// soft reports whether c ends a word within a chunk.
func soft(c byte) bool {
	switch c {
	case '=', ':', '@', '[', ']', '!', '$', '&', '*', '?', '#', '^', '+', '%':
		return true
	}
	return false
}

// eachToken calls f with the bounds of each token of s, in order of their
// chunks; tokens may overlap (a URL and its host).
func eachToken(s string, f func(a, b int)) {
	for i := 0; i < len(s); {
		if hard(s[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && !hard(s[j]) {
			j++
		}
		if j-i <= maxChunk {
			chunkTokens(s, i, j, f)
		}
		i = j
	}
}

// isTokenAt reports whether s[a:b] is one of the tokens eachToken finds in
// s, by looking at its chunk only.
func isTokenAt(s string, a, b int) bool {
	if a < 0 || b > len(s) || a >= b {
		return false
	}
	for i := a; i < b; i++ {
		if hard(s[i]) {
			return false
		}
	}
	ca := a
	for ca > 0 && !hard(s[ca-1]) {
		if ca--; b-ca > maxChunk {
			return false
		}
	}
	cb := b
	for cb < len(s) && !hard(s[cb]) {
		if cb++; cb-ca > maxChunk {
			return false
		}
	}
	found := false
	chunkTokens(s, ca, cb, func(ta, tb int) { found = found || ta == a && tb == b })
	return found
}

// knownSchemes are schemes a longer run of scheme characters may end with,
// as in "\nhttps://" escaped in JSON; the URL then starts at the known one.
var knownSchemes = []string{"https", "http", "ftps", "ftp", "sftp", "wss", "ws", "file", "ssh", "git", "s3", "gs"}

// chunkTokens calls f with the tokens of the chunk s[a:b].
func chunkTokens(s string, a, b int, f func(a, b int)) {
	rest := b // the chunk before its first URL is searched for words
	for k := a; ; {
		c := strings.Index(s[k:b], "://")
		if c < 0 {
			break
		}
		c += k
		k = c + 3
		st := c
		for st > a && scheme(s[st-1]) {
			st--
		}
		st = knownScheme(s[st:c], st)
		if st == c || !letter(s[st]) {
			continue
		}
		end := b
		for end > k && strings.IndexByte(".,:;!?]*", s[end-1]) >= 0 {
			end--
		}
		if end == k {
			continue
		}
		f(st, end)
		urlHost(s, k, end, f)
		rest = min(rest, st)
	}
	plain(s, a, rest, f)
}

// knownScheme returns where the scheme sch, starting at st, should start:
// at the longest known scheme it ends with, unless it is known itself.
func knownScheme(sch string, st int) int {
	best := ""
	for _, k := range knownSchemes {
		if len(k) > len(sch) || !strings.EqualFold(sch[len(sch)-len(k):], k) {
			continue
		}
		if len(k) == len(sch) {
			return st
		}
		if len(k) > len(best) {
			best = k
		}
	}
	return st + len(sch) - len(best)
}

// urlHost calls f with the host of the URL whose authority starts at h.
func urlHost(s string, h, end int, f func(a, b int)) {
	ae := h
	for ae < end && s[ae] != '/' && s[ae] != '?' && s[ae] != '#' {
		ae++
	}
	if at := strings.LastIndexByte(s[h:ae], '@'); at >= 0 {
		h += at + 1
	}
	if h < ae && s[h] == '[' {
		if c := strings.IndexByte(s[h:ae], ']'); c > 1 {
			if ip, err := netip.ParseAddr(s[h+1 : h+c]); err == nil && ip.Is6() {
				f(h+1, h+c)
			}
		}
		return
	}
	he := h
	for he < ae && s[he] != ':' {
		he++
	}
	if he > h && s[he-1] == '.' {
		he-- // a fully qualified name's dot
	}
	if he > h && labels(s[h:he]) > 0 {
		f(h, he)
	}
}

// plain calls f with the tokens of s[a:b], a chunk or the part of one
// before its first URL.
func plain(s string, a, b int, f func(a, b int)) {
	// IPv6 addresses, before ':' splits them.
	if strings.IndexByte(s[a:b], ':') >= 0 {
		for i := a; i < b; {
			if !v6(s[i]) {
				i++
				continue
			}
			j := i + 1
			for j < b && v6(s[j]) {
				j++
			}
			e := j
			for e > i && s[e-1] == '.' {
				e--
			}
			if strings.IndexByte(s[i:e], ':') >= 0 && (i == a || !ident(s[i-1])) && (j == b || !ident(s[j])) {
				if ip, err := netip.ParseAddr(s[i:e]); err == nil && ip.Is6() {
					f(i, e)
				}
			}
			i = j
		}
	}
	for i := a; i < b; {
		if soft(s[i]) {
			i++
			continue
		}
		j := i + 1
		for j < b && !soft(s[j]) {
			j++
		}
		word(s, i, j, f)
		i = j
	}
}

// word calls f with the tokens of the word s[a:b]: itself when it is a
// path, and the hosts in it.
func word(s string, a, b int, f func(a, b int)) {
	e := b
	for e > a && s[e-1] == '.' {
		e--
	}
	if path(s[a:e]) {
		f(a, e)
	}
	if strings.IndexByte(s[a:b], '.') < 0 {
		return // no host
	}
	for i := a; i < b; {
		if !hostRun(s[i]) {
			i++
			continue
		}
		j := i + 1
		for j < b && hostRun(s[j]) {
			j++
		}
		if (i == a || s[i-1] < 0x80) && (j == b || s[j] < 0x80) {
			ra, rb := i, j
			for ra < rb && (s[ra] == '.' || s[ra] == '-') {
				ra++
			}
			for rb > ra && (s[rb-1] == '.' || s[rb-1] == '-') {
				rb--
			}
			if ra < rb && host(s[ra:rb]) {
				f(ra, rb)
			}
		}
		i = j
	}
}

// path reports whether w is a path token.
func path(w string) bool {
	if !strings.Contains(w, "/") || strings.HasPrefix(w, "//") {
		return false
	}
	hasLetter := false
	for i := 0; i < len(w); i++ {
		if letter(w[i]) {
			hasLetter = true
			break
		}
	}
	if !hasLetter {
		return false
	}
	for _, p := range []string{"/", "./", "../", "~/"} {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	n := 0
	for i := 0; i < len(w); i++ {
		if w[i] != '/' && (i == 0 || w[i-1] == '/') {
			n++
		}
	}
	return n >= 2
}

// host reports whether r, a run of letters, digits, dots, hyphens and
// underscores, is an IPv4 address or a dotted name with a well-known
// top-level domain.
func host(r string) bool {
	digits := true
	for i := 0; i < len(r); i++ {
		if c := r[i]; c != '.' && (c < '0' || c > '9') {
			digits = false
			break
		}
	}
	if digits {
		ip, err := netip.ParseAddr(r)
		return err == nil && ip.Is4()
	}
	if labels(r) < 2 {
		return false
	}
	tld := r[strings.LastIndexByte(r, '.')+1:]
	var buf [16]byte
	if len(tld) > len(buf) {
		return false
	}
	for i := 0; i < len(tld); i++ {
		buf[i] = tld[i] | 0x20 // letters only: labels checked them
	}
	return tlds[string(buf[:len(tld)])]
}

// labels returns the number of labels of the host name r, or 0 when it is
// not one: labels of 1 to 63 letters, digits and inner hyphens.
func labels(r string) int {
	n, start := 0, 0
	for i := 0; i <= len(r); i++ {
		if i < len(r) && r[i] != '.' {
			if c := r[i]; !letter(c) && (c < '0' || c > '9') && c != '-' {
				return 0
			}
			continue
		}
		if l := r[start:i]; l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return 0
		}
		n++
		start = i + 1
	}
	return n
}

// tlds are the top-level domains a dotted name must end with to count as a
// host outside a URL: common generic ones that are not also common names in
// code ("log.info", "user.name", "button.click" are not hosts), the
// reserved "example", "invalid" and "localhost", and country codes that are
// neither common file extensions (.go, .md, .py, .rs, .sh, .pl, .cc, .in)
// nor common method names (.at, .is, .be, .id).
var tlds = func() map[string]bool {
	m := map[string]bool{}
	for t := range strings.FieldsSeq(`com net org edu gov mil io ai dev co me tv gg ly gl to fm xyz
		example invalid localhost internal arpa onion
		uk de fr nl ru cn jp br au ca it es ch se no dk fi eu us nz za
		kr tw hk sg ir ua cz sk hu ro gr pt ie il tr mx ar cl vn lt lv ee
		bg hr si by kz th ph pk bd ng ke eg sa ae qa`) {
		m[t] = true
	}
	return m
}()

func letter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func scheme(c byte) bool {
	return letter(c) || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}

func ident(c byte) bool { return letter(c) || c >= '0' && c <= '9' || c == '_' || c >= 0x80 }

func v6(c byte) bool {
	return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f' || c == ':' || c == '.'
}

func hostRun(c byte) bool {
	return letter(c) || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_'
}
