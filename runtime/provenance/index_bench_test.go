package provenance

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
)

const (
	benchMiB  = 4 << 20
	benchText = 16 << 10 // each result
)

// corpus returns texts of about benchText bytes, n bytes in all, of
// pseudo-random words and code-like lines, the same for the same seed. It
// has no "'", so a quoted copy of it ends at the quotes.
func corpus(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	words := make([]string, 3000)
	for i := range words {
		b := make([]byte, 2+r.IntN(9))
		for j := range b {
			b[j] = 'a' + byte(r.IntN(26))
		}
		words[i] = string(b)
	}
	w := func() string { return words[r.IntN(len(words))] }
	var texts []string
	var b strings.Builder
	for total := 0; total < n; {
		b.Reset()
		for b.Len() < benchText {
			switch r.IntN(6) {
			case 0:
				fmt.Fprintf(&b, "func %s%s(ctx context.Context, %s int) error {\n", w(), strings.ToUpper(w()[:1]), w())
			case 1:
				fmt.Fprintf(&b, "\tif err := %s.%s(ctx, \"%s/%s.go\"); err != nil {\n\t\treturn err\n\t}\n", w(), w(), w(), w())
			case 2:
				fmt.Fprintf(&b, "See https://%s.example/%s/%s for %s.\n", w(), w(), w(), w())
			default:
				for range 5 + r.IntN(10) {
					b.WriteString(w())
					b.WriteByte(' ')
				}
				b.WriteString(".\n")
			}
		}
		texts = append(texts, b.String())
		total += b.Len()
	}
	return texts
}

var bench struct {
	once      sync.Once
	x         *Index
	command   string // 200 bytes, 38 of them from an untrusted text
	nomatch   string // 4 KiB found nowhere
	untrusted []string
}

func benchIndex(b *testing.B) {
	bench.once.Do(func() {
		bench.untrusted = corpus(1, benchMiB)
		trusted := corpus(2, benchMiB)
		x := New()
		for i, t := range trusted {
			x.Add(t, Ref{Turn: i, Source: person.Source}, false)
		}
		for i, t := range bench.untrusted {
			x.Add(t, Ref{Turn: i, Tool: "web_fetch", Source: web.Source}, true)
		}
		bench.x = x
		src := bench.untrusted[len(bench.untrusted)/2]
		// 38 bytes of a line of words, not of code the trusted texts
		// share.
		at := 5000
		for strings.Trim(src[at:at+38], "abcdefghijklmnopqrstuvwxyz ") != "" {
			at++
		}
		span := src[at : at+38]
		c := "set -eu; cd /srv/app-7F3K && echo '" + span + "' | tee /tmp/Q9Z-OUT.LOG && grep -c ZQX9 /tmp/Q9Z-OUT.LOG"
		bench.command = c + strings.Repeat("#", 200-len(c))
		r := rand.New(rand.NewPCG(7, 8))
		nm := make([]byte, 4<<10)
		for i := range nm {
			nm[i] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/"[r.IntN(38)]
		}
		bench.nomatch = string(nm)
	})
	if got := bench.x.Trace(bench.command); len(got) != 1 || got[0].End-got[0].Start != 38 {
		b.Fatalf("command: %v", show(bench.command, got))
	}
	if got := bench.x.Trace(bench.nomatch); got != nil {
		b.Fatalf("nomatch: %v", got)
	}
	if s := bench.x.Size(); s < 2*benchMiB {
		b.Fatalf("Size = %d", s)
	}
}

// BenchmarkTrace traces values against 4 MiB of untrusted and 4 MiB of
// trusted text.
func BenchmarkTrace(b *testing.B) {
	benchIndex(b)
	b.Run("command-200B", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			bench.x.Trace(bench.command)
		}
	})
	b.Run("nomatch-4KiB", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			bench.x.Trace(bench.nomatch)
		}
	})
	b.Run("copy-4KiB", func(b *testing.B) {
		// A written file: 4 KiB copied whole from an untrusted text.
		v := bench.untrusted[3][1000 : 1000+4096]
		b.ReportAllocs()
		for b.Loop() {
			bench.x.Trace(v)
		}
	})
	b.Run("parallel-command-200B", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				bench.x.Trace(bench.command)
			}
		})
	})
}

// BenchmarkSources looks up the kinds of source of the 200-byte command.
func BenchmarkSources(b *testing.B) {
	benchIndex(b)
	b.ReportAllocs()
	for b.Loop() {
		bench.x.Sources(bench.command)
	}
}

// BenchmarkAdd adds 4 MiB of untrusted text to an empty index, and reports
// the index's heap for it: heap-MiB counts the text too, overhead-MiB only
// what the index adds to it.
func BenchmarkAdd(b *testing.B) {
	texts := corpus(1, benchMiB)
	n := 0
	for _, t := range texts {
		n += len(t)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	var heap uint64
	for b.Loop() {
		b.StopTimer()
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		b.StartTimer()
		x := New()
		for i, t := range texts {
			x.Add(t, Ref{Turn: i, Source: web.Source}, true)
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&m1)
		heap = m1.HeapAlloc - m0.HeapAlloc
		runtime.KeepAlive(x)
		b.StartTimer()
	}
	b.ReportMetric(float64(heap+uint64(n))/(1<<20), "heap-MiB")
	b.ReportMetric(float64(heap)/(1<<20), "overhead-MiB")
}

// BenchmarkEchoTrace is what AddEcho costs beyond Add: tracing a command's
// output, at its most (64 KiB), against 4 MiB of untrusted and 4 MiB of
// trusted text, before it is indexed. The output is build-log lines that
// hold nothing of the corpus.
func BenchmarkEchoTrace(b *testing.B) {
	benchIndex(b)
	var out strings.Builder
	for i := 0; out.Len() < 64<<10; i++ {
		fmt.Fprintf(&out, "ok  \tgithub.com/acme/svc/pkg%04d\t0.%03ds\tcoverage: %d.%d%% of statements\n", i, i%1000, i%100, i%10)
	}
	v := out.String()[:64<<10]
	if got := bench.x.Trace(v); got != nil {
		b.Fatalf("the output matches: %v", show(v, got))
	}
	b.SetBytes(int64(len(v)))
	b.ReportAllocs()
	for b.Loop() {
		bench.x.mu.RLock()
		bench.x.trace(v)
		bench.x.mu.RUnlock()
	}
}
