package model

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// addSeeds adds every file of dir to the fuzz corpus: real files are the
// seeds each target starts from.
func addSeeds(f *testing.F, dir string) {
	f.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed files in %s", dir)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// FuzzParseScenario feeds the scenario parser any bytes: it must refuse
// them with an error or return a scenario the scripted model can play,
// never panic; and the scenario, written again by Encode (as an export
// writes one), must read back the same, each call's argument text exact.
func FuzzParseScenario(f *testing.F) {
	addSeeds(f, "testdata/scenarios")
	f.Add([]byte(`{"steps": [{"input": "<b> & co", "calls": [{"name": "w", "args": {"s": "<\u003c>"}, "decision": {"skip": "a&b"}}]}]}`))
	f.Add([]byte(`{"workspace": "ws/a.txtar", "steps": [{"calls": [{"name": "g", "args": null, "decision": {"grant": "tool"}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := ParseScenario(data)
		if err != nil {
			if sc != nil {
				t.Fatal("a scenario with an error")
			}
			return
		}
		out, err := sc.Encode()
		if err != nil {
			t.Fatalf("encoding a scenario that parsed: %v", err)
		}
		again, err := ParseScenario(out)
		if err != nil {
			t.Fatalf("the encoded scenario does not parse: %v\n%s", err, out)
		}
		if !sameScenario(sc, again) {
			t.Fatalf("the scenario changed when written and read again:\n%s", out)
		}
		m := NewScripted("fuzz", sc).WithoutDelays()
		req := Request{Messages: []Message{{Role: RoleUser, Text: "go"}}}
		for range len(sc.Steps) + 1 {
			reply, err := m.Reply(context.Background(), req, nil)
			if err != nil {
				return
			}
			req.Messages = append(req.Messages, Message{Role: RoleAssistant, Text: reply.Text, Calls: reply.Calls, Cut: reply.Cut})
		}
	})
}

// sameScenario reports whether a and b play the same: the same person, the
// same replies, each call's argument text exact.
func sameScenario(a, b *Scenario) bool {
	if a.Name != b.Name || a.Description != b.Description || a.Workspace != b.Workspace || len(a.Steps) != len(b.Steps) {
		return false
	}
	same := func(x, y ScriptedCall) bool {
		dx, dy := Decision{}, Decision{}
		if x.Decision != nil {
			dx = *x.Decision
		}
		if y.Decision != nil {
			dy = *y.Decision
		}
		return x.ID == y.ID && x.Name == y.Name && x.Arguments() == y.Arguments() && (x.Decision == nil) == (y.Decision == nil) && dx == dy
	}
	for i, s := range a.Steps {
		t := b.Steps[i]
		if s.Input != t.Input || s.Text != t.Text || s.DelayMS != t.DelayMS || strings.Join(s.Expect, "\x00") != strings.Join(t.Expect, "\x00") ||
			len(s.Calls) != len(t.Calls) || (s.Cut == nil) != (t.Cut == nil) {
			return false
		}
		for j := range s.Calls {
			if !same(s.Calls[j], t.Calls[j]) {
				return false
			}
		}
		if s.Cut != nil && !same(*s.Cut, *t.Cut) {
			return false
		}
	}
	return true
}
