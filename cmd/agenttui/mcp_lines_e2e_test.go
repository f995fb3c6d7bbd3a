package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMCPServerSurvivesABadLine checks, with the built binary, that a
// malformed line on agenttui mcp's standard input is answered with a
// JSON-RPC parse error and the initialize after it is answered too, as
// printf 'hello\n{…initialize…}\n' | agenttui mcp shows.
func TestMCPServerSurvivesABadLine(t *testing.T) {
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"printf","version":"1"}}}`
	r := runBinary(t, t.TempDir(), "hello\n{}\n"+initialize+"\n", "mcp")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("agenttui mcp wrote %d lines, want 3:\n%s", len(lines), r.stdout)
	}
	type answer struct {
		ID     json.RawMessage `json:"id"`
		Result *struct {
			ServerInfo struct{ Name string } `json:"serverInfo"`
		} `json:"result"`
		Error *struct{ Code int } `json:"error"`
	}
	var got [3]answer
	for i, line := range lines {
		if err := json.Unmarshal([]byte(line), &got[i]); err != nil {
			t.Fatalf("line %d is not JSON: %q", i+1, line)
		}
	}
	if a := got[0]; a.Error == nil || a.Error.Code != -32700 || string(a.ID) != "null" {
		t.Errorf("hello was answered %s, want a parse error (-32700) under id null", lines[0])
	}
	if a := got[1]; a.Error == nil || a.Error.Code != -32600 || string(a.ID) != "null" {
		t.Errorf("{} was answered %s, want an invalid request (-32600) under id null", lines[1])
	}
	if a := got[2]; string(a.ID) != "1" || a.Result == nil || a.Result.ServerInfo.Name != "agenttui" {
		t.Errorf("initialize was answered %s", lines[2])
	}
}
