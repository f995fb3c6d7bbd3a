package provenance

import (
	"hash/maphash"
	"slices"
)

// The sampled windows: window bytes long, at every stride-th byte of a text.
const (
	window = 16
	stride = 8
	// maxPostings is how many texts, at most, a key lists: the earliest
	// added. It bounds a lookup's cost when many texts share a window
	// (boilerplate); a later text holding the same window is then credited
	// to an earlier one, as it would be anyway.
	maxPostings = 8
	// compactAt is how many dropped entries a class keeps at the front of
	// its slice before copying the live ones down.
	compactAt = 64
)

// class is the texts of one trust class and their windows and tokens.
// Positions are in a space of the class's own, never reused: each text
// starts where the previous one ended, plus one.
type class struct {
	entries []entry // entries[head:] are live, oldest first
	head    int
	next    uint64 // where the next text starts
	bytes   int    // bytes of live text
	win     postings
	tok     postings
}

// entry is one text added to the index.
type entry struct {
	start uint64
	text  string
	ref   Ref
}

func (c *class) init() {
	c.win.init()
	c.tok.init()
}

// find returns the index of the live entry holding the n bytes at pos, or
// -1.
func (c *class) find(pos uint64, n int) int {
	lo, hi := c.head, len(c.entries)
	for lo < hi { // the first entry starting after pos
		m := int(uint(lo+hi) >> 1)
		if c.entries[m].start <= pos {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == c.head {
		return -1
	}
	e := &c.entries[lo-1]
	if pos+uint64(n) > e.start+uint64(len(e.text)) {
		return -1
	}
	return lo - 1
}

// evict drops c's oldest text and its windows and tokens.
func (x *Index) evict(c *class) {
	e := &c.entries[c.head]
	lo, hi := e.start, e.start+uint64(len(e.text))
	x.eachWindow(e.text, func(_ int, key uint64) { c.win.remove(key, lo, hi) })
	x.eachTokenKey(e.text, func(_, _ int, key uint64) { c.tok.remove(key, lo, hi) })
	c.bytes -= len(e.text)
	*e = entry{}
	c.head++
	if c.head >= compactAt && c.head*2 >= len(c.entries) {
		n := copy(c.entries, c.entries[c.head:])
		clear(c.entries[n:])
		c.entries = c.entries[:n]
		c.head = 0
	}
}

// postings maps a hash key to the positions of the texts' windows or tokens
// that have it, earliest first, at most one per text and maxPostings in
// all. Most keys have one position, kept in first; further ones go to more,
// so that the common case costs one map entry.
type postings struct {
	first map[uint64]uint64
	more  map[uint64][]uint64
}

func (p *postings) init() {
	p.first = map[uint64]uint64{}
	p.more = map[uint64][]uint64{}
}

// add records that the text starting at start has key at pos.
func (p *postings) add(key, pos, start uint64) {
	f, ok := p.first[key]
	if !ok {
		p.first[key] = pos
		return
	}
	if f >= start {
		return // this text already has it
	}
	m := p.more[key]
	if len(m) > 0 && m[len(m)-1] >= start || len(m)+1 >= maxPostings {
		return
	}
	p.more[key] = append(m, pos)
}

// remove drops key's positions in [lo, hi).
func (p *postings) remove(key, lo, hi uint64) {
	f, ok := p.first[key]
	if !ok {
		return
	}
	in := func(q uint64) bool { return q >= lo && q < hi }
	m := p.more[key]
	if n := len(slices.DeleteFunc(m, in)); n != len(m) {
		m = m[:n]
		if n == 0 {
			delete(p.more, key)
		} else {
			p.more[key] = m
		}
	}
	if !in(f) {
		return
	}
	if len(m) == 0 {
		delete(p.first, key)
		return
	}
	p.first[key] = m[0]
	if len(m) == 1 {
		delete(p.more, key)
	} else {
		p.more[key] = m[1:]
	}
}

// eachWindow calls f with the offset and key of each sampled window of text
// that is indexed: those of at least three distinct bytes.
func (x *Index) eachWindow(text string, f func(off int, key uint64)) {
	for off := 0; off+window <= len(text); off += stride {
		w := text[off : off+window]
		if varied(w) {
			f(off, x.hash(w)&x.mask)
		}
	}
}

// hash returns the rolling hash of a window: the polynomial in base of its
// bytes, modulo 2^64.
func (x *Index) hash(w string) uint64 {
	var h uint64
	for i := 0; i < len(w); i++ {
		h = h*x.base + uint64(w[i])
	}
	return h
}

// varied reports whether w has at least three distinct bytes.
func varied(w string) bool {
	a := w[0]
	i := 1
	for i < len(w) && w[i] == a {
		i++
	}
	if i == len(w) {
		return false
	}
	b := w[i]
	for ; i < len(w); i++ {
		if c := w[i]; c != a && c != b {
			return true
		}
	}
	return false
}

// eachTokenKey calls f with the offset, length and key of each token of
// text.
func (x *Index) eachTokenKey(text string, f func(off, n int, key uint64)) {
	eachToken(text, func(a, b int) { f(a, b-a, x.tokenKey(text[a:b])) })
}

// tokenKey returns a token's hash key.
func (x *Index) tokenKey(tok string) uint64 {
	return maphash.String(x.seed, tok) & x.mask
}

// hit is a part of a value, bytes a to b, found in the text entries[e] of a
// class: a common substring, extended as far as both agree, or a token.
type hit struct {
	a, b int
	e    int
	tok  bool
}

// interval is bytes a to b of a value.
type interval struct{ a, b int }

// valueTokens appends the tokens of v to buf.
func valueTokens(v string, buf []interval) []interval {
	eachToken(v, func(a, b int) { buf = append(buf, interval{a, b}) })
	return buf
}

// What a match is for, which says which of the texts holding a part it
// must report.
const (
	// forCredit: for each part, the earliest text holding it (Trace's
	// untrusted texts).
	forCredit = iota
	// forCover: which parts some text holds (Trace's trusted texts).
	forCover
	// forKinds: which parts some text holds, and every kind of source
	// holding one (Sources).
	forKinds
)

// match appends to hits the parts of v that c's texts hold: the common
// substrings found through v's windows, and those of v's tokens (toks) that
// are their tokens too. Every candidate is checked byte for byte.
//
// Not every text holding a part is reported, only enough for the purpose.
// A window is covered when a part found already spans it and stride-1
// bytes either side: whatever another text holds there, past those
// margins, is found through another of its windows. For forCredit, a
// candidate from a text no earlier than the covering part's is passed
// over; for forCover, a covered window is not even looked up; for forKinds
// (where the kinds found are added to *found), a candidate from a text of a
// kind already found is passed over.
func (x *Index) match(c *class, v string, toks []interval, hits []hit, purpose int, found *[]string) []hit {
	m := matcher{x: x, c: c, v: v, hits: hits, purpose: purpose, kinds: found}
	if len(v) >= window && len(c.win.first) > 0 {
		var h uint64
		for i := range window {
			h = h*x.base + uint64(v[i])
		}
		for i := 0; ; i++ {
			if purpose != forCover || !m.covered(i) {
				if pos, ok := c.win.first[h&x.mask]; ok {
					m.window(i, pos)
					for _, pos := range c.win.more[h&x.mask] {
						m.window(i, pos)
					}
				}
			}
			if i+window >= len(v) {
				break
			}
			h = h*x.base + uint64(v[i+window]) - uint64(v[i])*x.pow
		}
	}
	if len(c.tok.first) > 0 {
		for _, t := range toks {
			key := x.tokenKey(v[t.a:t.b])
			if pos, ok := c.tok.first[key]; ok {
				m.token(t, pos)
				for _, pos := range c.tok.more[key] {
					m.token(t, pos)
				}
			}
		}
	}
	return m.hits
}

// matcher is the state of one match.
type matcher struct {
	x       *Index
	c       *class
	v       string
	hits    []hit
	purpose int
	kinds   *[]string // for forKinds
	// done is the runs found so far that may still reach past the
	// current window.
	done []run
}

// run is a common substring found: bytes a to b of the value, in the text
// starting at start, on alignment diag (its position less its offset in
// the value).
type run struct {
	start uint64
	diag  int64
	a, b  int
}

// covered reports whether a run found so far covers the window at i and
// its margins, and forgets the runs behind it.
func (m *matcher) covered(i int) bool {
	lo, hi := max(0, i-(stride-1)), min(len(m.v), i+window+stride-1)
	k, covered := 0, false
	for _, d := range m.done {
		if d.b <= i {
			continue
		}
		covered = covered || d.a <= lo && hi <= d.b
		m.done[k] = d
		k++
	}
	m.done = m.done[:k]
	return covered
}

// window checks the candidate that the value's window at i is the window
// of the class's texts at pos and, when it is and was not found before,
// appends the common substring around it to the hits.
func (m *matcher) window(i int, pos uint64) {
	v, c := m.v, m.c
	diag := int64(pos) - int64(i)
	lo, hi := max(0, i-(stride-1)), min(len(v), i+window+stride-1)
	k, seen, covered := 0, false, false
	for _, d := range m.done {
		if d.b <= i {
			continue // behind us: forget it
		}
		// A run on the same alignment either holds the window or shows
		// the candidate is a collision.
		seen = seen || d.diag == diag
		covered = covered || d.a <= lo && hi <= d.b && (m.purpose != forCredit || d.start <= pos)
		m.done[k] = d
		k++
	}
	m.done = m.done[:k]
	if seen || covered && m.purpose != forKinds {
		return
	}
	e := c.find(pos, window)
	if e < 0 {
		m.x.rejected.Add(1)
		return
	}
	ent := &c.entries[e]
	if covered && slices.Contains(*m.kinds, ent.ref.Source.Kind) { // forKinds
		return
	}
	t := ent.text
	o := int(pos - ent.start)
	if t[o:o+window] != v[i:i+window] {
		m.x.rejected.Add(1) // a hash collision: no alarm
		return
	}
	a, b := i, i+window
	for a > 0 && o-(i-a) > 0 && v[a-1] == t[o-(i-a)-1] {
		a--
	}
	for b < len(v) && o+(b-i) < len(t) && v[b] == t[o+(b-i)] {
		b++
	}
	m.found(hit{a: a, b: b, e: e})
	m.done = append(m.done, run{start: ent.start, diag: diag, a: a, b: b})
}

// token checks the candidate that token t of the value is the token of the
// class's texts at pos, and appends it to the hits when it is.
func (m *matcher) token(t interval, pos uint64) {
	if e := m.x.checkToken(m.c, m.v[t.a:t.b], pos); e >= 0 {
		m.found(hit{a: t.a, b: t.b, e: e, tok: true})
	}
}

// found appends h to the hits, and its kind to the kinds.
func (m *matcher) found(h hit) {
	m.hits = append(m.hits, h)
	if m.purpose == forKinds {
		if k := m.c.entries[h.e].ref.Source.Kind; k != "" && !slices.Contains(*m.kinds, k) {
			*m.kinds = append(*m.kinds, k)
		}
	}
}

// checkToken returns the index of the entry of c holding tok as a token at
// pos, or -1 when it does not (a hash collision).
func (x *Index) checkToken(c *class, tok string, pos uint64) int {
	e := c.find(pos, len(tok))
	if e < 0 {
		x.rejected.Add(1)
		return -1
	}
	o := int(pos - c.entries[e].start)
	if !isTokenAt(c.entries[e].text, o, o+len(tok)) || c.entries[e].text[o:o+len(tok)] != tok {
		x.rejected.Add(1)
		return -1
	}
	return e
}

// merge sorts intervals and joins those that overlap or touch.
func merge(in []interval) []interval {
	if len(in) < 2 {
		return in
	}
	slices.SortFunc(in, func(p, q interval) int { return p.a - q.a })
	out := in[:1]
	for _, r := range in[1:] {
		if last := &out[len(out)-1]; r.a <= last.b {
			last.b = max(last.b, r.b)
		} else {
			out = append(out, r)
		}
	}
	return out
}

// from returns the index of the first of the merged intervals that ends
// after a.
func from(cover []interval, a int) int {
	lo, hi := 0, len(cover)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cover[m].b <= a {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// within reports whether the merged intervals cover all of [a, b).
func within(cover []interval, a, b int) bool {
	k := from(cover, a)
	return k < len(cover) && cover[k].a <= a && b <= cover[k].b
}

// subtract returns the parts of [a, b) the merged intervals do not cover.
func subtract(cover []interval, a, b int) []interval {
	var out []interval
	for _, r := range cover[from(cover, a):] {
		if r.a >= b {
			break
		}
		if r.a > a {
			out = append(out, interval{a, r.a})
		}
		a = r.b
		if a >= b {
			return out
		}
	}
	return append(out, interval{a, b})
}

// holdsToken reports whether one of toks lies within [a, b).
func holdsToken(toks []interval, a, b int) bool {
	for _, t := range toks {
		if a <= t.a && t.b <= b {
			return true
		}
	}
	return false
}
