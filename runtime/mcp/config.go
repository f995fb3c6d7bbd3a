package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// The transports a server can use.
const (
	// TransportStdio runs the server as a child process and speaks to it
	// over its standard input and output.
	TransportStdio = "stdio"
	// TransportHTTP speaks to a server over streamable HTTP.
	TransportHTTP = "http"
)

// MaxServerNameLen is the longest server name accepted. Tool names are
// <server>__<tool> and providers allow at most MaxToolNameLen characters, so a
// longer server name would leave too little room for its tools' names.
const MaxServerNameLen = 32

// ServerConfig is one server of a configuration file, with its ${VAR}
// references already expanded.
type ServerConfig struct {
	// Name is the server's name, the prefix of its tools' names.
	Name string
	// Transport is TransportStdio or TransportHTTP.
	Transport string
	// Command and Args start a stdio server.
	Command string
	Args    []string
	// Env holds variables added to this process's environment for a stdio
	// server.
	Env map[string]string
	// URL is the endpoint of an HTTP server.
	URL string
	// Headers are sent with every request to an HTTP server.
	Headers map[string]string
}

// Config is a parsed configuration file in the standard .mcp.json format.
type Config struct {
	// Path is the file the configuration came from.
	Path string
	// Servers are the configured servers, sorted by name.
	Servers []ServerConfig
}

// LoadConfig reads and checks the .mcp.json file at path, expanding ${VAR}
// references in env and headers from the process environment. Its errors are
// one line naming the file, the server and the problem.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: the MCP configuration file does not exist", path)
		}
		return nil, fmt.Errorf("%s: cannot read the MCP configuration: %v", path, unwrapPathError(err))
	}
	return ParseConfig(path, data, os.LookupEnv)
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ParseConfig checks a configuration whose text is data; path only names the
// file in errors. lookup resolves ${VAR} references; nil means no variable
// is set.
//
// The format is {"mcpServers": {"<name>": SERVER}}, where SERVER is
// {"command": "…", "args": […], "env": {…}} for a stdio server (an optional
// "type": "stdio" is accepted) or {"type": "http", "url": "…", "headers":
// {…}} for a streamable HTTP server; a server with a url and no command
// needs no type. In env and headers values, ${VAR} is replaced by the
// variable's value and ${VAR:-default} by the value or, when it is unset or
// empty, the default; a variable that is unset with no default is an
// error. Unknown keys, wrong types and missing fields are errors, because a
// misspelt key silently ignored is a server that behaves differently from
// what its author wrote. A server's name must be usable in tool names:
// letters, digits, '-' and '_', at most MaxServerNameLen of them, and no
// "__".
func ParseConfig(path string, data []byte, lookup func(string) (string, bool)) (*Config, error) {
	if lookup == nil {
		lookup = func(string) (string, bool) { return "", false }
	}
	return parseConfig(path, data, func(s string) (string, error) { return expand(s, lookup) })
}

// ParseConfigAsWritten checks a configuration as ParseConfig does but
// expands no ${VAR} reference: env and headers keep them as written (each
// still checked to be a reference). It is for showing the person what a
// file asks to start, and for a digest of it that the environment does not
// change; its servers are not meant to be started.
func ParseConfigAsWritten(path string, data []byte) (*Config, error) {
	set := func(string) (string, bool) { return "x", true }
	return parseConfig(path, data, func(s string) (string, error) {
		_, err := expand(s, set)
		return s, err
	})
}

// parseConfig is ParseConfig with expand doing what it does to each value
// of env and headers.
func parseConfig(path string, data []byte, expand func(string) (string, error)) (*Config, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
	}
	var top map[string]json.RawMessage
	if err := decodeStrict(data, &top); err != nil {
		return nil, fail("not a valid MCP configuration: %v", err)
	}
	for key := range top {
		if key != "mcpServers" {
			return nil, fail("unknown key %q (the file holds only \"mcpServers\")", key)
		}
	}
	raw, ok := top["mcpServers"]
	if !ok {
		return nil, fail(`key "mcpServers" is missing`)
	}
	var servers map[string]json.RawMessage
	if err := decodeStrict(raw, &servers); err != nil || servers == nil {
		return nil, fail(`"mcpServers" must be an object of servers by name`)
	}
	cfg := &Config{Path: path}
	for name, body := range servers {
		s, err := parseServer(name, body, expand)
		if err != nil {
			return nil, fail("server %q: %v", name, err)
		}
		cfg.Servers = append(cfg.Servers, s)
	}
	sort.Slice(cfg.Servers, func(i, j int) bool { return cfg.Servers[i].Name < cfg.Servers[j].Name })
	return cfg, nil
}

// checkServerName reports why name cannot prefix tool names, if it cannot.
func checkServerName(name string) error {
	switch {
	case name == "":
		return errors.New("the name is empty")
	case len(name) > MaxServerNameLen:
		return fmt.Errorf("the name is longer than %d characters", MaxServerNameLen)
	case strings.Contains(name, "__"):
		// <server>__<tool> must split back into one server and one tool.
		return errors.New(`the name must not contain "__", which separates the server from the tool in tool names`)
	}
	for _, r := range name {
		if !validNameRune(r) {
			return fmt.Errorf("the name contains %q: use only letters, digits, '-' and '_'", r)
		}
	}
	return nil
}

func validNameRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_'
}

var serverKeys = map[string][]string{
	TransportStdio: {"type", "command", "args", "env"},
	TransportHTTP:  {"type", "url", "headers"},
}

func parseServer(name string, body json.RawMessage, expand func(string) (string, error)) (ServerConfig, error) {
	s := ServerConfig{Name: name}
	if err := checkServerName(name); err != nil {
		return s, err
	}
	var fields map[string]json.RawMessage
	if err := decodeStrict(body, &fields); err != nil || fields == nil {
		return s, errors.New("must be an object")
	}
	str := func(key string) (string, bool, error) {
		raw, ok := fields[key]
		if !ok {
			return "", false, nil
		}
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return "", true, fmt.Errorf("%q must be a string", key)
		}
		return v, true, nil
	}
	typ, hasType, err := str("type")
	if err != nil {
		return s, err
	}
	_, hasURL := fields["url"]
	_, hasCommand := fields["command"]
	switch {
	case hasType && typ == TransportStdio, hasType && typ == TransportHTTP:
		s.Transport = typ
	case hasType && (typ == "sse" || typ == "streamable-http" || typ == "streamableHttp"):
		return s, fmt.Errorf(`type %q is not supported: use "http" for streamable HTTP`, typ)
	case hasType:
		return s, fmt.Errorf(`unknown type %q: use "stdio" or "http"`, typ)
	case hasURL && !hasCommand:
		// A bare url can only mean HTTP; requiring the type would only
		// reject configurations other clients accept.
		s.Transport = TransportHTTP
	default:
		s.Transport = TransportStdio
	}
	for key := range fields {
		if !slices.Contains(serverKeys[s.Transport], key) {
			return s, fmt.Errorf("unknown key %q for a %s server (it takes %s)", key, s.Transport,
				strings.Join(serverKeys[s.Transport], ", "))
		}
	}
	if s.Transport == TransportStdio {
		if s.Command, _, err = str("command"); err != nil {
			return s, err
		}
		if strings.TrimSpace(s.Command) == "" {
			return s, errors.New(`"command" is missing: a stdio server needs the command that starts it`)
		}
		if raw, ok := fields["args"]; ok {
			if err := json.Unmarshal(raw, &s.Args); err != nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
				return s, errors.New(`"args" must be an array of strings`)
			}
		}
		if s.Env, err = expandedMap(fields, "env", expand); err != nil {
			return s, err
		}
		return s, nil
	}
	if s.URL, _, err = str("url"); err != nil {
		return s, err
	}
	if strings.TrimSpace(s.URL) == "" {
		return s, errors.New(`"url" is missing: an http server needs its endpoint`)
	}
	if !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://") {
		return s, fmt.Errorf(`"url" %q must start with http:// or https://`, s.URL)
	}
	if s.Headers, err = expandedMap(fields, "headers", expand); err != nil {
		return s, err
	}
	return s, nil
}

// expandedMap decodes fields[key] as an object of strings and expands the
// ${VAR} references in its values with expand.
func expandedMap(fields map[string]json.RawMessage, key string, expand func(string) (string, error)) (map[string]string, error) {
	raw, ok := fields[key]
	if !ok {
		return nil, nil
	}
	var m map[string]string
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("%q must be an object of strings", key)
	}
	for k, v := range m {
		expanded, err := expand(v)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %v", key, k, err)
		}
		m[k] = expanded
	}
	return m, nil
}

// expand replaces each ${VAR} in s with the variable's value, and each
// ${VAR:-default} with the value or, when VAR is unset or empty, the
// default. A variable that is unset and has no default is an error: a
// server started with an empty token fails later, far from the cause.
func expand(s string, lookup func(string) (string, bool)) (string, error) {
	var out strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			out.WriteString(s)
			return out.String(), nil
		}
		out.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", fmt.Errorf("unterminated ${ in %q", s)
		}
		ref := s[i+2 : i+end]
		name, def, hasDefault := strings.Cut(ref, ":-")
		if name == "" || strings.IndexFunc(name, func(r rune) bool { return !validNameRune(r) || r == '-' }) >= 0 {
			return "", fmt.Errorf("${%s} is not a variable reference", ref)
		}
		v, set := lookup(name)
		switch {
		case set && (v != "" || !hasDefault):
			out.WriteString(v)
		case hasDefault:
			out.WriteString(def)
		default:
			return "", fmt.Errorf("environment variable %s is not set", name)
		}
		s = s[i+end+1:]
	}
}

// decodeStrict decodes one JSON value into v, refusing trailing data and
// wording syntax errors by line and column.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		switch {
		case errors.Is(err, io.EOF):
			return errors.New("it is empty")
		case errors.Is(err, io.ErrUnexpectedEOF):
			return errors.New("invalid JSON: it ends in the middle of a value")
		}
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			line, col := position(data, syntax.Offset-1)
			return fmt.Errorf("invalid JSON at line %d, column %d: %v", line, col, syntax)
		}
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) {
			return fmt.Errorf("expected %s, got %s", typ.Type, typ.Value)
		}
		return errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// position returns the 1-based line and column of the byte at offset off.
func position(data []byte, off int64) (line, col int) {
	off = max(0, min(off, int64(len(data))))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// DefaultConfigFile is the name of the configuration file looked for in the
// workspace.
const DefaultConfigFile = ".mcp.json"

// FindConfig returns the path of the configuration in dir, or "" when dir
// has none.
func FindConfig(dir string) (string, error) {
	p := filepath.Join(dir, DefaultConfigFile)
	info, err := os.Stat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("%s: %v", p, unwrapPathError(err))
	case info.IsDir():
		return "", fmt.Errorf("%s: is a folder, not an MCP configuration file", p)
	}
	return p, nil
}
