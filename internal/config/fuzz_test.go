package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/approval"
)

// FuzzConfig feeds the configuration parser any bytes: it must refuse them
// with one line naming the file, or return a configuration, never panic.
func FuzzConfig(f *testing.F) {
	files, _ := filepath.Glob("testdata/config/*.json")
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("agenttui.json", data)
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "config") {
				t.Fatalf("the error is not one line naming the file: %q", msg)
			}
			return
		}
		if c == nil {
			t.Fatal("no configuration and no error")
		}
	})
}

// FuzzRuleShortForm feeds the short form of --allow and --deny any text: it
// must be refused or give a rule that passes its own check.
func FuzzRuleShortForm(f *testing.F) {
	data, err := os.ReadFile("testdata/rules/rules.txt")
	if err != nil {
		f.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		r, err := approval.ParseRule(spec, approval.Allow)
		if err != nil {
			return
		}
		if err := r.Check(); err != nil {
			t.Fatalf("%q parsed into a rule its check refuses: %v", spec, err)
		}
		if _, err := FlagRules([]string{spec}, nil); err != nil {
			t.Fatalf("%q parsed, yet --allow refuses it: %v", spec, err)
		}
	})
}
