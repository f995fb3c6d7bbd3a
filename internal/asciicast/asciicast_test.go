package asciicast

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

// fakeClock advances by step at each reading.
type fakeClock struct {
	t    time.Time
	step time.Duration
}

func (c *fakeClock) now() time.Time {
	t := c.t
	c.t = c.t.Add(c.step)
	return t
}

func newClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), step: 250 * time.Millisecond}
}

func TestRecordingIsAsciicastV2(t *testing.T) {
	var out bytes.Buffer
	clock := newClock()
	rec, err := New(&out, Options{Width: 100, Height: 30, Title: "demo", Env: map[string]string{"TERM": "xterm-256color"}, Now: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	rec.Write([]byte("\x1b[?1049hhello"))
	rec.Resize(80, 24)
	rec.Write([]byte("\"quoted\"\n"))
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	want := `{"version":2,"width":100,"height":30,"timestamp":1796040000,"title":"demo","env":{"TERM":"xterm-256color"}}
[0.250000, "o", "\u001b[?1049hhello"]
[0.500000, "r", "80x24"]
[0.750000, "o", "\"quoted\"\n"]
`
	if out.String() != want {
		t.Fatalf("recording:\n%s\nwant:\n%s", out.String(), want)
	}
	h, events, err := Read(strings.NewReader(out.String()))
	if err != nil {
		t.Fatal(err)
	}
	if h.Width != 100 || h.Height != 30 || len(events) != 3 || events[0].Data != "\x1b[?1049hhello" || events[1].Code != "r" {
		t.Fatalf("read back %+v %+v", h, events)
	}
	if _, err := rec.Write([]byte("late")); err == nil {
		t.Fatal("a write after Close was accepted")
	}
}

// TestSplitCharacterIsRecordedWhole writes a three-byte character in two
// writes: the recording holds it once, whole, rather than two replacement
// characters.
func TestSplitCharacterIsRecordedWhole(t *testing.T) {
	var out bytes.Buffer
	rec, _ := New(&out, Options{Width: 10, Height: 5, Now: newClock().now})
	check := []byte("a✓b")
	rec.Write(check[:2])
	rec.Write(check[2:])
	rec.Write([]byte{0xe2}) // the start of a character the recording ends in
	rec.Close()
	_, events, err := Read(&out)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range events {
		got = append(got, e.Data)
	}
	if strings.Join(got, "|") != "a|✓b|\ufffd" {
		t.Fatalf("events %q", got)
	}
}

// TestTimesNeverDecrease records with a clock that goes backwards, as a
// wall clock set back would: the times stay in order.
func TestTimesNeverDecrease(t *testing.T) {
	var out bytes.Buffer
	clock := newClock()
	rec, _ := New(&out, Options{Width: 10, Height: 5, Now: clock.now})
	rec.Write([]byte("one"))
	clock.step = -time.Second
	rec.Write([]byte("two"))
	rec.Write([]byte("three"))
	rec.Close()
	_, events, err := Read(&out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if events[2].Time < events[1].Time || events[1].Time < events[0].Time {
		t.Fatalf("times %v", events)
	}
}

func TestLimitStopsTheRecording(t *testing.T) {
	var out bytes.Buffer
	rec, _ := New(&out, Options{Width: 10, Height: 5, Now: newClock().now, Limit: 64})
	if _, err := rec.Write([]byte("short")); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Write([]byte(strings.Repeat("x", 100))); !errors.Is(err, ErrLimit) {
		t.Fatalf("a write past the limit: %v", err)
	}
	rec.Write([]byte("more"))
	if err := rec.Close(); !errors.Is(err, ErrLimit) {
		t.Fatalf("Close: %v", err)
	}
	_, events, err := Read(&out)
	if err != nil || len(events) != 1 || events[0].Data != "short" {
		t.Fatalf("after the limit: %v %+v", err, events)
	}
}

func TestReadRejects(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"empty", "", "empty recording"},
		{"version", `{"version":1,"width":80,"height":24}`, "line 1: version 1, want 2"},
		{"size", `{"version":2,"width":0,"height":24}`, "line 1: size 0x24"},
		{"not an event", `{"version":2,"width":80,"height":24}` + "\n" + `{"t":1}`, "line 2: not an event"},
		{"backwards", `{"version":2,"width":80,"height":24}` + "\n" + `[1.5, "o", "a"]` + "\n" + `[1.0, "o", "b"]`, "line 3: time 1.000000 is before 1.500000"},
		{"code", `{"version":2,"width":80,"height":24}` + "\n" + `[1, "x", "a"]`, `line 2: unknown event code "x"`},
		{"resize", `{"version":2,"width":80,"height":24}` + "\n" + `[1, "r", "80by24"]`, `line 2: resize "80by24" is not COLSxROWS`},
	} {
		_, _, err := Read(strings.NewReader(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

func TestNewRejectsNoSize(t *testing.T) {
	if _, err := New(&bytes.Buffer{}, Options{}); err == nil {
		t.Fatal("a recording of a 0x0 terminal was started")
	}
}
