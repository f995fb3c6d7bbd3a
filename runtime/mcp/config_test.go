package mcp

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}
}

func TestParseConfig(t *testing.T) {
	data := `{"mcpServers": {
		"web": {"type": "http", "url": "https://example.test/mcp", "headers": {"Authorization": "Bearer ${TOKEN}", "X-Plain": "plain"}},
		"fs": {"command": "npx", "args": ["-y", "server-filesystem", "/w"], "env": {"KEY": "${KEY}", "MODE": "${MODE:-fast}", "HOME2": "${HOME}/x"}},
		"bare-url": {"url": "http://127.0.0.1:1/mcp"},
		"typed": {"type": "stdio", "command": "./server"}
	}}`
	cfg, err := ParseConfig("/w/.mcp.json", []byte(data), env(map[string]string{"TOKEN": "s3cret", "KEY": "k", "HOME": "/home/me"}))
	if err != nil {
		t.Fatal(err)
	}
	want := []ServerConfig{
		{Name: "bare-url", Transport: TransportHTTP, URL: "http://127.0.0.1:1/mcp"},
		{Name: "fs", Transport: TransportStdio, Command: "npx", Args: []string{"-y", "server-filesystem", "/w"},
			Env: map[string]string{"KEY": "k", "MODE": "fast", "HOME2": "/home/me/x"}},
		{Name: "typed", Transport: TransportStdio, Command: "./server"},
		{Name: "web", Transport: TransportHTTP, URL: "https://example.test/mcp",
			Headers: map[string]string{"Authorization": "Bearer s3cret", "X-Plain": "plain"}},
	}
	if !reflect.DeepEqual(cfg.Servers, want) {
		t.Errorf("servers:\n got %+v\nwant %+v", cfg.Servers, want)
	}
	if cfg.Path != "/w/.mcp.json" {
		t.Errorf("path %q", cfg.Path)
	}
}

func TestParseConfigErrors(t *testing.T) {
	cases := []struct{ name, data, want string }{
		{"cut short", `{"mcpServers": {`, `f.json: not a valid MCP configuration: invalid JSON: it ends in the middle of a value`},
		{"not JSON", "{\n \"mcpServers\": {]}", `f.json: not a valid MCP configuration: invalid JSON at line 2, column 17`},
		{"empty", ``, `f.json: not a valid MCP configuration: it is empty`},
		{"trailing data", `{"mcpServers": {}} x`, `f.json: not a valid MCP configuration: unexpected data after the JSON value`},
		{"top level array", `[]`, `f.json: not a valid MCP configuration: expected map[string]json.RawMessage, got array`},
		{"unknown top key", `{"mcpServers": {}, "servers": {}}`, `f.json: unknown key "servers" (the file holds only "mcpServers")`},
		{"no mcpServers", `{}`, `f.json: key "mcpServers" is missing`},
		{"mcpServers not object", `{"mcpServers": []}`, `f.json: "mcpServers" must be an object of servers by name`},
		{"server not object", `{"mcpServers": {"a": "npx"}}`, `f.json: server "a": must be an object`},
		{"unknown server key", `{"mcpServers": {"a": {"command": "x", "cmd": "y"}}}`,
			`f.json: server "a": unknown key "cmd" for a stdio server (it takes type, command, args, env)`},
		{"url on stdio", `{"mcpServers": {"a": {"command": "x", "url": "http://h"}}}`,
			`f.json: server "a": unknown key "url" for a stdio server`},
		{"headers on stdio", `{"mcpServers": {"a": {"type": "stdio", "command": "x", "headers": {}}}}`,
			`f.json: server "a": unknown key "headers" for a stdio server`},
		{"env on http", `{"mcpServers": {"a": {"type": "http", "url": "http://h", "env": {}}}}`,
			`f.json: server "a": unknown key "env" for a http server (it takes type, url, headers)`},
		{"missing command", `{"mcpServers": {"a": {"args": ["x"]}}}`,
			`f.json: server "a": "command" is missing: a stdio server needs the command that starts it`},
		{"empty command", `{"mcpServers": {"a": {"command": " "}}}`, `server "a": "command" is missing`},
		{"missing url", `{"mcpServers": {"a": {"type": "http"}}}`,
			`f.json: server "a": "url" is missing: an http server needs its endpoint`},
		{"bad url", `{"mcpServers": {"a": {"type": "http", "url": "ftp://h"}}}`,
			`f.json: server "a": "url" "ftp://h" must start with http:// or https://`},
		{"command not string", `{"mcpServers": {"a": {"command": ["npx"]}}}`, `f.json: server "a": "command" must be a string`},
		{"args not strings", `{"mcpServers": {"a": {"command": "x", "args": [1]}}}`, `f.json: server "a": "args" must be an array of strings`},
		{"args null", `{"mcpServers": {"a": {"command": "x", "args": null}}}`, `f.json: server "a": "args" must be an array of strings`},
		{"env not object", `{"mcpServers": {"a": {"command": "x", "env": ["A=1"]}}}`, `f.json: server "a": "env" must be an object of strings`},
		{"env value not string", `{"mcpServers": {"a": {"command": "x", "env": {"A": 1}}}}`, `f.json: server "a": "env" must be an object of strings`},
		{"unknown type", `{"mcpServers": {"a": {"type": "grpc", "url": "http://h"}}}`, `f.json: server "a": unknown type "grpc": use "stdio" or "http"`},
		{"sse type", `{"mcpServers": {"a": {"type": "sse", "url": "http://h"}}}`,
			`f.json: server "a": type "sse" is not supported: use "http" for streamable HTTP`},
		{"unset variable in env", `{"mcpServers": {"a": {"command": "x", "env": {"TOKEN": "${NOPE_UNSET}"}}}}`,
			`f.json: server "a": env "TOKEN": environment variable NOPE_UNSET is not set`},
		{"unset variable in headers", `{"mcpServers": {"a": {"type": "http", "url": "http://h", "headers": {"Authorization": "Bearer ${NOPE_UNSET}"}}}}`,
			`f.json: server "a": headers "Authorization": environment variable NOPE_UNSET is not set`},
		{"unterminated reference", `{"mcpServers": {"a": {"command": "x", "env": {"A": "${OPEN"}}}}`,
			`f.json: server "a": env "A": unterminated ${ in "${OPEN"`},
		{"empty reference", `{"mcpServers": {"a": {"command": "x", "env": {"A": "${}"}}}}`,
			`f.json: server "a": env "A": ${} is not a variable reference`},
		{"name with dot", `{"mcpServers": {"my.server": {"command": "x"}}}`,
			`f.json: server "my.server": the name contains '.': use only letters, digits, '-' and '_'`},
		{"name with space", `{"mcpServers": {"my server": {"command": "x"}}}`, `server "my server": the name contains ' '`},
		{"name with double underscore", `{"mcpServers": {"a__b": {"command": "x"}}}`,
			`server "a__b": the name must not contain "__", which separates the server from the tool in tool names`},
		{"empty name", `{"mcpServers": {"": {"command": "x"}}}`, `f.json: server "": the name is empty`},
		{"long name", `{"mcpServers": {"` + strings.Repeat("a", 33) + `": {"command": "x"}}}`, `the name is longer than 32 characters`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseConfig("f.json", []byte(c.data), env(map[string]string{"SET": "1"}))
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q\n does not contain %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadConfig(filepath.Join(dir, "none.json")); err == nil || !strings.Contains(err.Error(), "none.json: the MCP configuration file does not exist") {
		t.Errorf("missing file: %v", err)
	}
	p := filepath.Join(dir, ".mcp.json")
	t.Setenv("AGENTTUI_TEST_MCP_TOKEN", "tok")
	if err := os.WriteFile(p, []byte(`{"mcpServers": {"s": {"command": "x", "env": {"T": "${AGENTTUI_TEST_MCP_TOKEN}"}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Servers[0].Env["T"] != "tok" {
		t.Errorf("env %v", cfg.Servers[0].Env)
	}
	if got, err := FindConfig(dir); err != nil || got != p {
		t.Errorf("FindConfig = %q, %v", got, err)
	}
	if got, err := FindConfig(t.TempDir()); err != nil || got != "" {
		t.Errorf("FindConfig in an empty folder = %q, %v", got, err)
	}
}

func TestExpandDefaults(t *testing.T) {
	lookup := env(map[string]string{"EMPTY": "", "SET": "v"})
	cases := map[string]string{
		"${SET}":          "v",
		"${EMPTY}":        "",
		"${EMPTY:-d}":     "d",
		"${UNSET:-d}":     "d",
		"${SET:-d}":       "v",
		"a${SET}b${SET}c": "avbvc",
		"$SET and $":      "$SET and $",
		"${UNSET:-}":      "",
	}
	for in, want := range cases {
		got, err := expand(in, lookup)
		if err != nil || got != want {
			t.Errorf("expand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestParseConfigAsWritten(t *testing.T) {
	data := []byte(`{"mcpServers": {
		"x": {"command": "sh", "args": ["-c", "touch /tmp/m; echo \u001b[2J"], "env": {"TOKEN": "${SECRET_TOKEN}", "LEVEL": "${LEVEL:-warn}"}},
		"t": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${TRACKER_TOKEN}"}},
		"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]}}}`)
	// Nothing is expanded: the variables need not be set, and the values
	// stay as written.
	c, err := ParseConfigAsWritten("/w/.mcp.json", data)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"MCP server fs: npx -y @modelcontextprotocol/server-filesystem .",
		"MCP server t: https://mcp.example.com/mcp (headers Authorization=\"Bearer ${TRACKER_TOKEN}\")",
		`MCP server x: sh -c "touch /tmp/m; echo \x1b[2J" (env LEVEL=${LEVEL:-warn} TOKEN=${SECRET_TOKEN})`,
	}
	if got := c.Describe(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("described as\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A reference that is not one is still an error.
	if _, err := ParseConfigAsWritten("/w/.mcp.json", []byte(`{"mcpServers": {"x": {"command": "sh", "env": {"A": "${unterminated"}}}}`)); err == nil ||
		!strings.Contains(err.Error(), "unterminated ${") {
		t.Errorf("an unterminated reference: %v", err)
	}
}
