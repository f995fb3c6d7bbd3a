package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseConfig feeds the .mcp.json parser any bytes: it must refuse them
// with one line naming the file, or return servers whose names can prefix
// tool names, never panic.
func FuzzParseConfig(f *testing.F) {
	files, _ := filepath.Glob("testdata/configs/*.json")
	if len(files) == 0 {
		f.Fatal("no seed files")
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	env := func(k string) (string, bool) {
		if k == "TRACKER_TOKEN" {
			return "secret", true
		}
		return "", false
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfig(".mcp.json", data, env)
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, ".mcp.json: ") {
				t.Fatalf("the error is not one line naming the file: %q", msg)
			}
			return
		}
		for _, s := range cfg.Servers {
			if err := checkServerName(s.Name); err != nil {
				t.Fatalf("server %q accepted with a bad name: %v", s.Name, err)
			}
		}
	})
}
