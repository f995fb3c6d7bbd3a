package model

import (
	"context"
	"os"
	"path/filepath"
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
// never panic.
func FuzzParseScenario(f *testing.F) {
	addSeeds(f, "testdata/scenarios")
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := ParseScenario(data)
		if err != nil {
			if sc != nil {
				t.Fatal("a scenario with an error")
			}
			return
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
