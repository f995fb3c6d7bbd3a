// Package provenance finds where the text of a tool call's arguments came
// from. The runtime adds every text the model reads in a session (the
// person's messages, agenttui's own text, each tool result) to an Index,
// marked trusted or not; for each call the model makes, Trace returns the
// parts of each string argument that were copied from an untrusted result
// and not from anything trusted, so that a prompt injection cannot steer a
// call unseen, and Sources says which kinds of source an argument was found
// in, for rules such as "the url must come from the person".
//
// # What counts as copied
//
// A part of a value counts as copied from a text when it is either
//
//   - a common substring of at least MinSpan (16) bytes, or
//   - a token of the value that is also a token of the text, of any length:
//     a URL ("scheme://…"), a host name with a well-known top-level domain
//     or an IP address ("evil.example", "127.0.0.1", "::1"), or a path with
//     a slash ("/etc/passwd", "./run.sh", "src/main.go").
//
// Matching is exact, byte for byte; nothing is normalised.
//
// A URL is judged by its host and the whole of what follows it. Within a
// URL, a part of a copy no trusted text holds also counts when it holds a
// whole component (a path segment, a query name or value, a port), and a
// part that counts reaches to the URL's end; a URL of a text that is a
// prefix of the value's URL, ending at a component boundary, is found like
// a token. So a page that writes http://h/exfil?q= below a host h the
// person named has the rest of the URL, a secret filled in included,
// traced to it (see url.go).
//
// # What is guaranteed
//
// Texts are indexed by sampled windows: the 16-byte window at every 8th
// byte offset of each text. A common substring of a value and a text that
// is at least Guaranteed (23) bytes long always holds one of those windows,
// so it is always found; one of 16 to 22 bytes is found only when it
// happens to hold one (for n bytes, at n-15 of the 8 alignments), and one
// of fewer than 16 never, unless it is a token. Windows of fewer than three
// distinct bytes (runs of spaces, rules of dashes) are not indexed, since
// copying them steers nothing; so, exactly: a common substring of at least
// 23 bytes none of whose 16-byte windows is such a run is always found.
// Tokens are always found, but for those in runs of more than 4096 bytes
// without whitespace, quotes or brackets (minified code, base64), which are
// not searched for tokens.
//
// The same holds for the trusted texts that cover a span: a part of a span
// that a trusted text also holds is dropped when it is at least 23 bytes
// long or a token, and may be dropped when it is 16 to 22 bytes long.
//
// Every candidate a hash finds is checked byte for byte against the stored
// text before it counts, so a hash collision can never raise a false alarm.
// A part found is then extended both ways as far as value and text agree, so
// spans are maximal.
//
// Two limits keep lookups cheap when many texts share a window
// (boilerplate): a window or token is listed for the earliest 8 texts that
// hold it only, and for each text once, at its first place. So a text that
// repeats the part copied may have the span reported a few bytes short;
// and once the earliest 8 are dropped (see Bounds), later texts are not
// found through that window.
//
// # Bounds
//
// Trace and Sources cost about one hash-map lookup per byte of the value and
// trust class, whatever the size of the session: with 4 MiB of untrusted
// and 4 MiB of trusted text indexed, some microseconds for a 200-byte
// command and a tenth of a millisecond for a 4 KiB value found nowhere.
// Add hashes a text before it takes the index's lock, and inserts it,
// which is most of its cost (some 25 MB/s), under the lock.
//
// To keep everything bounded, Add indexes at most the first MaxText bytes of
// a text; each of the two trust classes holds at most MaxClass bytes, past
// which its oldest texts, and their windows and tokens, are dropped (and so
// no longer found); Trace and Sources look only at the first MaxValue bytes
// of a value. The index takes some four bytes of memory per byte of text
// held, the text included: about 18 MiB for 4 MiB, 62 MiB for a full
// class, so at most some 130 MiB.
package provenance

import (
	"hash/maphash"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agenttui/agenttui/runtime/tool"
)

// The bounds on what is indexed and matched, so that neither memory nor the
// cost of a call grows without bound in a long session.
const (
	// MinSpan is the shortest common substring, in bytes, that counts as
	// copied; shorter parts count only as tokens.
	MinSpan = window
	// Guaranteed is the length, in bytes, from which a common substring is
	// always found (see the package documentation for the one exception).
	Guaranteed = window + stride - 1
	// MaxText is how much of one text Add indexes: its first MaxText bytes.
	MaxText = 1 << 20
	// MaxClass is how many bytes of text each trust class (trusted,
	// untrusted) holds; past it, the class's oldest texts are dropped. At about
	// four bytes of index a byte of text, both classes full take some 65 MiB.
	MaxClass = 8 << 20
	// MaxValue is how much of a value Trace and Sources look at: its first
	// MaxValue bytes.
	MaxValue = 64 << 10
	// Model is the kind Sources reports for a part of a value found
	// nowhere: the model wrote it.
	Model = "model"
)

// Ref identifies where a text came from: the call whose result it is (its
// Turn, its Index in the turn counting from 0, its Tool, and the path of the
// Task whose agent made it), zero for the person's messages and agenttui's
// own text; and its Source.
type Ref struct {
	Turn   int
	Index  int
	Tool   string
	Task   []string
	Source tool.Source
}

// equal reports whether r and o identify the same call and source.
func (r Ref) equal(o Ref) bool {
	return r.Turn == o.Turn && r.Index == o.Index && r.Tool == o.Tool && r.Source == o.Source && slices.Equal(r.Task, o.Task)
}

// clone returns r with its own copy of Task, so that neither the caller nor
// the index can change the other's.
func (r Ref) clone() Ref {
	r.Task = slices.Clone(r.Task)
	return r
}

// Span is a part of a value copied from an untrusted text: bytes Start to
// End of the value, and the Ref of the text it was copied from.
type Span struct {
	Start, End int
	Ref        Ref
}

// Origin returns the span as the origin of argument, the form a call's
// provenance is recorded and shown in.
func (s Span) Origin(argument string) tool.Origin {
	return tool.Origin{
		Argument: argument, Start: s.Start, End: s.End,
		Turn: s.Ref.Turn, Index: s.Ref.Index, Tool: s.Ref.Tool, Task: slices.Clone(s.Ref.Task),
		Source: s.Ref.Source.Label(),
	}
}

// The two trust classes, indices of Index.classes.
const (
	trusted = iota
	untrusted
)

// Index holds the texts the model has read in a session, each with its Ref
// and whether it is trusted, and finds where a value came from. It is safe
// for concurrent use: the calls of a reply, and several tasks' agents, add
// and look up at once; lookups share a read lock and do not wait for each
// other.
type Index struct {
	// base is the rolling hash's multiplier, odd and random so that no text
	// can be crafted to collide with another; pow is base to the window.
	base, pow uint64
	// seed keys the tokens' hash.
	seed maphash.Seed
	// mask is applied to every hash key; tests set it to force collisions.
	mask uint64
	// maxText and maxClass are MaxText and MaxClass; tests lower them.
	maxText, maxClass int
	// rejected counts candidates that failed the byte-for-byte check.
	rejected atomic.Int64

	mu      sync.RWMutex
	classes [2]class
}

// New returns an empty index.
func New() *Index {
	x := &Index{base: rand.Uint64() | 1, seed: maphash.MakeSeed(), mask: ^uint64(0), maxText: MaxText, maxClass: MaxClass}
	x.pow = 1
	for range window {
		x.pow *= x.base
	}
	for i := range x.classes {
		x.classes[i].init()
	}
	return x
}

// Add records that the model read text, which came from ref, and whether it
// is untrusted. Only the first MaxText bytes are indexed; when the text's
// class then holds more than MaxClass bytes, its oldest texts are dropped.
// The hashing is done before the index is locked, so lookups wait only for
// the insertion.
func (x *Index) Add(text string, ref Ref, untrusted bool) {
	if len(text) > x.maxText {
		// Clone, so as not to keep the whole of a long text alive.
		text = strings.Clone(text[:x.maxText])
	}
	if text == "" {
		return
	}
	var wins []keyed
	x.eachWindow(text, func(off int, key uint64) { wins = append(wins, keyed{off, key}) })
	var toks []keyed
	x.eachTokenKey(text, func(off, _ int, key uint64) { toks = append(toks, keyed{off, key}) })
	ref = ref.clone()

	x.mu.Lock()
	defer x.mu.Unlock()
	c := &x.classes[classOf(untrusted)]
	for c.bytes+len(text) > x.maxClass && c.head < len(c.entries) {
		x.evict(c)
	}
	start := c.next
	c.next += uint64(len(text)) + 1 // a gap, so that texts never touch
	c.entries = append(c.entries, entry{start: start, text: text, ref: ref})
	c.bytes += len(text)
	for _, w := range wins {
		c.win.add(w.key, start+uint64(w.off), start)
	}
	for _, t := range toks {
		c.tok.add(t.key, start+uint64(t.off), start)
	}
}

// keyed is a window's or a token's offset in its text and its hash key.
type keyed struct {
	off int
	key uint64
}

// classOf returns the class a text belongs to.
func classOf(isUntrusted bool) int {
	if isUntrusted {
		return untrusted
	}
	return trusted
}

// Size returns the number of bytes of text the index holds, both classes
// together: at most twice MaxClass.
func (x *Index) Size() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.classes[trusted].bytes + x.classes[untrusted].bytes
}

// Untrusted returns how many bytes of untrusted text the index holds: with
// none, Trace finds nothing, and a caller need not ask it.
func (x *Index) Untrusted() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.classes[untrusted].bytes
}

// Trace returns where value came from: the spans of value that also appear
// in untrusted texts (as common substrings or tokens, see the package
// documentation) and do not also appear in any trusted text (the person's
// messages, the system prompt, the tool descriptions, trusted results). A
// span part of which is in a trusted text keeps only its other parts that
// are still at least MinSpan bytes long or hold a token, or, within a URL,
// a whole component; a part kept within a URL reaches to its end (see
// url.go). Each byte is
// credited to the earliest added untrusted text that holds it, and the
// spans are maximal runs of bytes credited to one Ref, in order. Only the
// first MaxValue bytes of value are traced.
func (x *Index) Trace(value string) []Span {
	v := clip(value)
	if v == "" {
		return nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.trace(v)
}

// AddEcho records that the model read text, a trusted result that may
// reproduce untrusted text the index holds: a command's output, which can
// print a page's words back, or a task's report. The parts of it that Trace
// would report are indexed as untrusted, credited to ref, and not as
// trusted, so that echoing a page through a command does not make the
// page's words trusted; the rest is indexed as trusted, as Add does. It
// returns those parts. As with Add, only the first MaxText bytes are
// looked at.
func (x *Index) AddEcho(text string, ref Ref) []Span {
	if len(text) > x.maxText {
		text = strings.Clone(text[:x.maxText])
	}
	if text == "" {
		return nil
	}
	x.mu.RLock()
	spans := x.trace(text)
	x.mu.RUnlock()
	// Each trusted piece is a text of its own, so that a match in one
	// never extends into the untrusted part beside it.
	at := 0
	for _, sp := range spans {
		x.Add(text[at:sp.Start], ref, false)
		x.Add(text[sp.Start:sp.End], ref, true)
		at = sp.End
	}
	x.Add(text[at:], ref, false)
	return spans
}

// trace is Trace, for a value already clipped, with the index locked for
// reading.
func (x *Index) trace(v string) []Span {
	u := &x.classes[untrusted]
	if len(u.entries) == u.head {
		return nil
	}
	var toksBuf [16]interval
	toks := valueTokens(v, toksBuf[:0])
	// The value's URLs' prefixes are looked up as tokens as well, so that a
	// page's URL that the value's extends is found however short it is.
	var urlsBuf [4]urlSpan
	urls := valueURLs(v, toks, urlsBuf[:0])
	look := urlPrefixes(v, urls, toks)
	hits := x.match(u, v, look, nil, forCredit, nil)
	if len(hits) == 0 {
		return nil
	}

	// What of value a trusted text also holds. The whole of value is
	// looked at, not just the hits, so that a trusted text holding a part
	// that begins before a hit covers it as surely as one within it.
	var cover []interval
	if t := &x.classes[trusted]; len(t.entries) > t.head {
		for _, h := range x.match(t, v, look, nil, forCover, nil) {
			cover = append(cover, interval{h.a, h.b})
		}
		cover = merge(cover)
	}

	// The parts of each hit no trusted text holds, kept when substantial:
	// within a URL, a whole component is substantial, and a part kept
	// there reaches to the URL's end (see url.go). A URL's prefix is a
	// copy like any other, not a token: what a trusted text holds of it is
	// taken off.
	var kept []hit
	for _, h := range hits {
		if h.tok && !isURLPrefix(urls, h) {
			if !within(cover, h.a, h.b) {
				kept = append(kept, toURLEnd(urls, h))
			}
			continue
		}
		for _, p := range subtract(cover, h.a, h.b) {
			if p.b-p.a >= MinSpan || holdsToken(toks, p.a, p.b) || holdsURLPart(v, urls, p.a, p.b) {
				kept = append(kept, toURLEnd(urls, hit{a: p.a, b: p.b, e: h.e}))
			}
		}
	}
	if len(kept) == 0 {
		return nil
	}

	// Credit each byte to the earliest text, then cut into runs.
	slices.SortFunc(kept, func(p, q hit) int { return p.e - q.e })
	lo, hi := kept[0].a, kept[0].b
	for _, h := range kept {
		lo, hi = min(lo, h.a), max(hi, h.b)
	}
	owner := make([]int32, hi-lo)
	for i := range owner {
		owner[i] = -1
	}
	for _, h := range kept {
		for i := h.a; i < h.b; i++ {
			if owner[i-lo] < 0 {
				owner[i-lo] = int32(h.e)
			}
		}
	}
	var spans []Span
	for i := 0; i < len(owner); {
		e := owner[i]
		j := i + 1
		for j < len(owner) && owner[j] == e {
			j++
		}
		if e >= 0 {
			ref := u.entries[e].ref
			if n := len(spans); n > 0 && spans[n-1].End == lo+i && spans[n-1].Ref.equal(ref) {
				spans[n-1].End = lo + j
			} else {
				spans = append(spans, Span{Start: lo + i, End: lo + j, Ref: ref.clone()})
			}
		}
		i = j
	}
	return spans
}

// Sources returns the kinds of source (tool.Source.Kind values) that value's
// substantial parts (common substrings of at least MinSpan bytes, and
// tokens) were found in, trusted or not, sorted; for rules that say where an
// argument must come from. It includes Model when value has a part found
// nowhere: a run of at least MinSpan bytes in no text, a token that is not
// wholly in some text, or, for a value shorter than MinSpan, any byte not in
// a token found. Only the first MaxValue bytes of value are looked at; an
// empty value has no sources.
func (x *Index) Sources(value string) []string {
	v := clip(value)
	if v == "" {
		return nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	var toksBuf [16]interval
	toks := valueTokens(v, toksBuf[:0])
	var kinds []string
	var found []interval
	for i := range x.classes {
		c := &x.classes[i]
		if len(c.entries) == c.head {
			continue
		}
		for _, h := range x.match(c, v, toks, nil, forKinds, &kinds) {
			found = append(found, interval{h.a, h.b})
		}
	}
	found = merge(found)
	model := false
	if len(v) < MinSpan {
		model = !within(found, 0, len(v))
	} else {
		for _, g := range subtract(found, 0, len(v)) {
			if g.b-g.a >= MinSpan {
				model = true
				break
			}
		}
	}
	for _, t := range toks {
		if !model && !within(found, t.a, t.b) {
			model = true
		}
	}
	if model {
		kinds = append(kinds, Model)
	}
	slices.Sort(kinds)
	return kinds
}

// clip returns the part of value that is looked at.
func clip(value string) string {
	if len(value) > MaxValue {
		return value[:MaxValue]
	}
	return value
}
