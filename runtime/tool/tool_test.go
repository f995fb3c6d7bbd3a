package tool

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

func TestScopeOverlaps(t *testing.T) {
	cases := []struct {
		name string
		a, b Scope
		want bool
	}{
		{"sibling with shared prefix", Paths("/w/src"), Paths("/w/srcx"), false},
		{"equal paths", Paths("/w/a"), Paths("/w/a"), true},
		{"path under another", Paths("/w"), Paths("/w/src/main.go"), true},
		{"other way round", Paths("/w/src/main.go"), Paths("/w"), true},
		{"disjoint", Paths("/w/a"), Paths("/w/b"), false},
		{"root covers all", Paths("/"), Paths("/etc/passwd"), true},
		{"anything vs path", Anything(), Paths("/w/a"), true},
		{"anything vs anything", Anything(), Anything(), true},
		{"anything vs empty", Anything(), Scope{}, false},
		{"empty vs empty", Scope{}, Scope{}, false},
		{"empty vs path", Paths(), Paths("/w"), false},
		{"one of several", Paths("/x", "/w/b"), Paths("/w"), true},
		{"memory keys", Paths("/mem/a"), Paths("/mem"), true},
		{"memory siblings", Paths("/mem/a"), Paths("/mem/ab"), false},
	}
	for _, c := range cases {
		a, b := c.a.Normalized(), c.b.Normalized()
		if got := a.Overlaps(b); got != c.want {
			t.Errorf("%s: %v overlaps %v = %v, want %v", c.name, a, b, got, c.want)
		}
		if got := b.Overlaps(a); got != c.want {
			t.Errorf("%s (swapped): got %v, want %v", c.name, got, c.want)
		}
	}
}

func TestScopeNormalized(t *testing.T) {
	cases := []struct {
		name string
		in   Scope
		want string
	}{
		{"dot-dot folds", Paths("/w/src/../docs/./a.md"), "/w/docs/a.md"},
		{"dot-dot above root", Paths("/../../etc"), "/etc"},
		{"relative becomes anything", Paths("/w/a", "src/b"), "anything"},
		{"covered paths removed", Paths("/w/src/a", "/w/src", "/w/srcx"), "/w/src, /w/srcx"},
		{"duplicates removed and sorted", Paths("/b", "/a", "/b/"), "/a, /b"},
		{"empty stays empty", Paths(), "nothing"},
		{"anything stays", Anything(), "anything"},
	}
	for _, c := range cases {
		if got := c.in.Normalized().String(); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestConflictTruthTable(t *testing.T) {
	on := Paths("/w/a")
	off := Paths("/w/b")
	cases := []struct {
		name string
		a, b Touches
		want bool
	}{
		{"reads vs reads, overlapping", Reads(on), Reads(on), false},
		{"reads vs writes, overlapping", Reads(on), Writes(on), true},
		{"reads vs writes, apart", Reads(on), Writes(off), false},
		{"reads vs independent", Reads(on), Independent(), false},
		{"writes vs reads, overlapping", Writes(on), Reads(on), true},
		{"writes vs reads, apart", Writes(on), Reads(off), false},
		{"writes vs writes, overlapping", Writes(on), Writes(on), true},
		{"writes vs writes, apart", Writes(on), Writes(off), false},
		{"writes vs independent", Writes(off), Independent(), true},
		{"independent vs reads", Independent(), Reads(Anything()), false},
		{"independent vs writes", Independent(), Writes(on), true},
		{"independent vs independent", Independent(), Independent(), false},
		{"writes anything vs reads", Writes(Anything()), Reads(on), true},
		{"empty read scope vs writes anything", Reads(Scope{}), Writes(Anything()), false},
	}
	for _, c := range cases {
		if got := c.a.ConflictsWith(c.b); got != c.want {
			t.Errorf("%s: %v conflicts with %v = %v, want %v", c.name, c.a, c.b, got, c.want)
		}
		if got := c.b.ConflictsWith(c.a); got != c.want {
			t.Errorf("%s (swapped): got %v, want %v", c.name, got, c.want)
		}
	}
}

func TestReadsOnlyAndAnnotations(t *testing.T) {
	if !Reads(Anything()).ReadsOnly() || Writes(Anything()).ReadsOnly() || Independent().ReadsOnly() {
		t.Fatal("only Reads is ReadsOnly")
	}
	ro := Annotations{ReadOnly: true}
	if got := FromAnnotations(ro); got.Access != AccessReads || !got.Scope.IsAnything() {
		t.Errorf("FromAnnotations(read-only) = %v", got)
	}
	if got := FromAnnotations(Annotations{}); got.Access != AccessWrites || !got.Scope.IsAnything() {
		t.Errorf("FromAnnotations(none) = %v", got)
	}
	if got := FromHints(ro); got.Access != AccessIndependent {
		t.Errorf("FromHints(read-only) = %v, want independent", got)
	}
	if got := FromHints(Annotations{Idempotent: true}); got.Access != AccessWrites {
		t.Errorf("FromHints(other) = %v, want writes", got)
	}
	hinted := Declaration{Annotations: Annotations{ReadOnly: true, Idempotent: true}, Untrusted: true}
	if hinted.DefaultTouches().ReadsOnly() || hinted.Idempotent() {
		t.Error("untrusted hints must never make a call Reads or idempotent")
	}
}

func TestTouchesJSON(t *testing.T) {
	cases := []struct {
		in   Touches
		want string
	}{
		{Reads(Paths("/w/a", "/w/b")), `{"kind":"reads","scope":["/w/a","/w/b"]}`},
		{Writes(Anything()), `{"kind":"writes","scope":"anything"}`},
		{Independent(), `{"kind":"independent"}`},
		{Reads(Scope{}), `{"kind":"reads","scope":[]}`},
	}
	for _, c := range cases {
		got, err := json.Marshal(c.in)
		if err != nil || string(got) != c.want {
			t.Errorf("marshal %v = %s, %v; want %s", c.in, got, err, c.want)
		}
		var back Touches
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("unmarshal %s: %v", got, err)
		}
		again, _ := json.Marshal(back)
		if string(again) != c.want {
			t.Errorf("round trip of %s gave %s", c.want, again)
		}
	}
	var bad Touches
	if err := json.Unmarshal([]byte(`{"kind":"reads"}`), &bad); err == nil {
		t.Error("reads without scope must be rejected")
	}
}

func TestOutcomes(t *testing.T) {
	o := Failed(Timeout("slow upstream"))
	if !o.IsError() || !o.IsErrorKind(KindTimeout) || o.IsErrorKind(KindNotFound) || o.ID() != "error" {
		t.Errorf("timeout outcome misbehaves: %v", o)
	}
	if o.Failure().String() != "timeout: slow upstream" {
		t.Errorf("failure display = %q", o.Failure().String())
	}
	if Skipped("no").Failure() != nil || Succeeded().ID() != "success" || Denied("x").ID() != "denied" {
		t.Error("outcome ids or failure accessor wrong")
	}
	if _, ok := Skipped("x").ErrorKind(); ok {
		t.Error("a skip has no error kind")
	}
	for _, r := range []Return{Ok("fine"), Fail(NotFound("gone"), nil), Deny("outside")} {
		if r.Outcome().IsSkipped() {
			t.Errorf("a tool's return %v claims to be skipped", r.Outcome())
		}
	}
	if Deny("outside the workspace").Outcome().Reason() != "outside the workspace" {
		t.Error("deny reason lost")
	}
	b, _ := json.Marshal(Failed(NotFound("no such file")))
	var back Outcome
	if err := json.Unmarshal(b, &back); err != nil || !back.IsErrorKind(KindNotFound) {
		t.Errorf("outcome JSON round trip: %s → %v, %v", b, back, err)
	}
}

func TestRetryableDefaults(t *testing.T) {
	want := map[FailureKind]*bool{}
	yes, no := true, false
	for _, k := range []FailureKind{KindTimeout, KindRateLimited, KindNetwork} {
		want[k] = &yes
	}
	for _, k := range []FailureKind{KindInvalidArgs, KindNotFound, KindPermissionDenied, KindCancelled} {
		want[k] = &no
	}
	want[KindProvider], want[KindOther] = nil, nil
	ctors := map[FailureKind]func(string) Failure{
		KindInvalidArgs: InvalidArgs, KindTimeout: Timeout, KindCancelled: Cancelled,
		KindNotFound: NotFound, KindPermissionDenied: PermissionDenied, KindRateLimited: RateLimited,
		KindProvider: Provider, KindNetwork: Network, KindOther: Other,
	}
	for k, ctor := range ctors {
		f := ctor("m")
		if f.Kind != k {
			t.Errorf("constructor for %v made kind %v", k, f.Kind)
		}
		switch w := want[k]; {
		case w == nil && f.Retryable != nil:
			t.Errorf("%v: retryable should be unknown", k)
		case w != nil && (f.Retryable == nil || *f.Retryable != *w):
			t.Errorf("%v: retryable should be %v", k, *w)
		}
		id := k.String()
		if back, err := ParseFailureKind(id); err != nil || back != k {
			t.Errorf("kind id %q does not round trip", id)
		}
	}
}

func TestBackoff(t *testing.T) {
	p := RetryPolicy{Attempts: 5, InitialBackoff: 100 * time.Millisecond, MaxBackoff: 300 * time.Millisecond, Multiplier: 2}
	got := []time.Duration{p.Backoff(2), p.Backoff(3), p.Backoff(4), p.Backoff(5)}
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond, 300 * time.Millisecond}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("backoff before attempt %d = %v, want %v", i+2, got[i], want[i])
		}
	}
}

type plainTool struct{}

func (plainTool) Declaration() Declaration                                  { return Declaration{Name: "p"} }
func (plainTool) Call(context.Context, json.RawMessage) Return              { return Ok("") }
func (plainTool) Footprint(json.RawMessage) (Touches, error)                { return Reads(Anything()), nil }
func (plainTool) Preview(context.Context, json.RawMessage) (Preview, error) { return Preview{}, nil }

type wrapped struct{ Tool }

func (w wrapped) Unwrap() Tool { return w.Tool }

// TestAsFindsWrappedBehaviours checks that a wrapper keeps what the tool it
// wraps offers, however deep, and offers nothing the tool lacks.
func TestAsFindsWrappedBehaviours(t *testing.T) {
	w := wrapped{wrapped{plainTool{}}}
	if _, ok := As[Footprinter](w); !ok {
		t.Error("the footprint of the wrapped tool is lost")
	}
	if _, ok := As[Previewer](w); !ok {
		t.Error("the preview of the wrapped tool is lost")
	}
	if _, ok := As[Reviser](w); ok {
		t.Error("a wrapper offers a reviser its tool lacks")
	}
	if _, ok := As[Footprinter](nil); ok {
		t.Error("nil is a footprinter")
	}
}

// TestProcessEnd checks the words the console shows for how a command
// ended, from the codes run_shell gives its failures, and that any other
// code is not mistaken for one.
func TestProcessEnd(t *testing.T) {
	for _, tc := range []struct{ code, want string }{
		{ExitCode(1), "exit 1"},
		{ExitCode(3), "exit 3"},
		{SignalCode("SIGKILL"), "killed by SIGKILL"},
		{TimeoutCode(2 * time.Minute), "timed out after 2m"},
		{TimeoutCode(90 * time.Second), "timed out after 1m30s"},
		{TimeoutCode(45 * time.Second), "timed out after 45s"},
		{TimeoutCode(time.Hour), "timed out after 1h"},
		{"", ""}, {"exit:", ""}, {"exit:x", ""}, {"signal:", ""}, {"timeout:12", ""}, {"E_TOO_BIG", ""},
	} {
		words, ok := ProcessEnd(tc.code)
		if words != tc.want || ok != (tc.want != "") {
			t.Errorf("ProcessEnd(%q) = %q, %v; want %q", tc.code, words, ok, tc.want)
		}
	}
	if got := TimeoutCode(2 * time.Minute); got != "timeout:120s" {
		t.Errorf("TimeoutCode(2m) = %q", got)
	}
}
