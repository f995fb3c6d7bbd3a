package provenance

import "strings"

// A URL in a value is judged by its host and by the whole of what follows
// it, so that a trusted prefix cannot shorten what a page wrote. The person
// who names http://127.0.0.1:18080/page in the goal trusts that host, not
// every path and query under it: when a page then writes
// http://127.0.0.1:18080/exfil?q= and the model fills in a secret, the
// person's text covers the first 23 bytes, and what is left of the page's
// part, "exfil?q=", is too short to count as copied by the common rule. So,
// within a URL, a part of an untrusted copy that no trusted text holds
// counts when it holds a whole component of the URL (a path segment, a
// query name or value, a port: a run between the delimiters of urlDelim),
// and any part that counts, a host token included, reaches to the URL's
// end: whatever follows a page's path or query is read in the place the
// page chose, however trusted its own bytes (a secret from a workspace
// file) are. A shared first letter of a path segment ("/o" of "/overview"
// and "/other") is not a whole component, so a URL the model made up on a
// host the person named does not ask because a page links elsewhere there.

// urlSpan is a URL token of a value: bytes a to b, with its authority (what
// follows "://") starting at auth.
type urlSpan struct{ a, auth, b int }

// valueURLs appends the URL tokens among toks, the tokens of v, to buf.
func valueURLs(v string, toks []interval, buf []urlSpan) []urlSpan {
	for _, t := range toks {
		if c := strings.Index(v[t.a:t.b], "://"); c >= 0 {
			buf = append(buf, urlSpan{a: t.a, auth: t.a + c + 3, b: t.b})
		}
	}
	return buf
}

// urlDelim reports whether c separates the components of a URL's authority,
// path, query or fragment.
func urlDelim(c byte) bool { return strings.IndexByte("/?#&=;:@", c) >= 0 }

// holdsURLPart reports whether [a, b) of v holds a whole component of one of
// the URLs past its scheme: a non-empty run of bytes that are not urlDelim,
// with a delimiter or the URL's bounds either side.
func holdsURLPart(v string, urls []urlSpan, a, b int) bool {
	for _, u := range urls {
		lo, hi := max(a, u.auth), min(b, u.b)
		for i := lo; i < hi; {
			if urlDelim(v[i]) {
				i++
				continue
			}
			j := i + 1
			for j < hi && !urlDelim(v[j]) {
				j++
			}
			starts := i == u.auth || urlDelim(v[i-1])
			ends := j == u.b || urlDelim(v[j])
			if starts && ends {
				return true
			}
			i = j
		}
	}
	return false
}

// toURLEnd returns h reaching to the end of every URL whose part past the
// scheme it overlaps.
func toURLEnd(urls []urlSpan, h hit) hit {
	for _, u := range urls {
		if h.a < u.b && u.auth < h.b {
			h.b = max(h.b, u.b)
		}
	}
	return h
}

// maxPrefixes is how many prefixes of one URL are looked up, the shortest
// first; a longer copy is found through its windows anyway.
const maxPrefixes = 32

// urlPrefixes returns toks followed by the prefixes of each URL of urls
// that end at a component boundary past its scheme (just before or just
// after a urlDelim byte): "http://h", "http://h/", "http://h/x", … So a
// URL of a text that is such a prefix is found as a token, whatever its
// length, and a trusted one covers as much.
func urlPrefixes(v string, urls []urlSpan, toks []interval) []interval {
	if len(urls) == 0 {
		return toks
	}
	out := toks
	for _, u := range urls {
		n := 0
		for p := u.auth + 1; p < u.b && n < maxPrefixes; p++ {
			if urlDelim(v[p]) || urlDelim(v[p-1]) {
				out = append(out, interval{u.a, p})
				n++
			}
		}
	}
	return out
}

// isURLPrefix reports whether h, a token hit, is one of a URL's prefixes
// that urlPrefixes adds rather than a token of the value.
func isURLPrefix(urls []urlSpan, h hit) bool {
	for _, u := range urls {
		if h.a == u.a && h.b < u.b {
			return true
		}
	}
	return false
}
