// Package mcp brings tools from Model Context Protocol servers into the
// agent's catalogue.
//
// Servers come from the standard .mcp.json format (see LoadConfig): stdio
// servers run as child processes, HTTP servers are reached over streamable
// HTTP. A Manager starts them all in parallel without blocking its caller,
// reports each server that fails through a notice and its status, and keeps
// the others working.
//
// Each tool of a server enters as a tool.Tool named <server>__<tool>, with
// Source tool://<server>/<tool>. Its annotations are hints from outside this
// process, so the declaration is Untrusted and the tool has no Footprinter:
// the runtime gives it tool.FromHints (a read-only hint → Independent,
// anything else → Writes(Anything)) and never retries it.
//
// Decisions worth knowing:
//
//   - Names. Characters providers refuse in tool names (anything but
//     letters, digits, '-' and '_') become '_'; the call still uses the
//     server's own name. A tool whose full name would be longer than
//     MaxToolNameLen, or that collides with another after that change, is
//     left out with a notice, because a shortened name would be a name the
//     server never gave.
//   - Results. The text content of a result is what the model reads, joined
//     by newlines. Structured content is sent as JSON only when the result
//     has no text, because the specification asks servers to repeat
//     structured content as text and sending both would say it twice.
//     Images, audio and binary resources are described in one line, not
//     passed on.
//   - Failures. isError → an error outcome (kind other) whose text is the
//     server's. A JSON-RPC error answer (such as an unknown tool) leaves the
//     server running. A server that stops during a call (its process dies,
//     its connection breaks) gives an error of kind other (stdio) or network
//     (HTTP) saying so; the server is started again at the next call to it,
//     once per session, and a second stop marks it down, after which calls to
//     it fail at once.
package mcp

import (
	"time"

	"github.com/agenttui/agenttui/runtime"
)

// State is where a server is in its life.
type State string

// The states of a server.
const (
	// StateStarting means the server is being started or restarted.
	StateStarting State = "starting"
	// StateReady means the server answered and its tools are listed.
	StateReady State = "ready"
	// StateStopped means the server stopped after it was ready; it is
	// started again at the next call to one of its tools.
	StateStopped State = "stopped"
	// StateFailed means the server did not start or did not list its tools.
	StateFailed State = "failed"
	// StateDown means the server stopped again after a restart, or its
	// restart failed; it is not started again in this session.
	StateDown State = "down"
)

// ServerStatus is a server's state as the console shows it.
type ServerStatus struct {
	// Name is the server's name.
	Name string
	// Transport is TransportStdio or TransportHTTP.
	Transport string
	// State is where the server is in its life.
	State State
	// Tools is how many of its tools are offered to the model.
	Tools int
	// Err says why the server failed, stopped or is down; empty otherwise.
	Err string
	// PID is the process id of a running stdio server, else 0.
	PID int
}

// Options tune a Manager.
type Options struct {
	// StartTimeout bounds starting one server and listing its tools; zero
	// means DefaultStartTimeout.
	StartTimeout time.Duration
	// StopGrace is how long a stdio server gets to exit after its input is
	// closed before it is signalled, and how long its leftover output may
	// be drained; zero means DefaultStopGrace.
	StopGrace time.Duration
	// Dir is the working folder of stdio servers; empty means the folder of
	// the configuration file.
	Dir string
	// Notice receives what the person should know: a server that did not
	// start, stopped or is down, a tool left out. Calls are never
	// concurrent. Nil discards notices.
	Notice func(runtime.Notice)
	// OnChange is called whenever Tools would return a different set: a
	// server became ready or down, or a server's tool list changed. The
	// caller rebuilds its catalogue (the runtime takes it at the next turn
	// through Agent.SetCatalog). Calls are never concurrent and may come
	// from any goroutine, before Start returns too. Nil means nobody
	// listens.
	OnChange func()
	// Verify, when set, is asked before each start and restart of a
	// server; an error keeps the server from starting, and it fails (or,
	// on a restart, is down) with that error as the reason. A workspace's
	// own servers are checked so against what the person trusted.
	Verify func(ServerConfig) error
}

// Defaults for Options.
const (
	DefaultStartTimeout = 10 * time.Second
	DefaultStopGrace    = 2 * time.Second
)

// Notice levels used by this package.
const (
	levelWarning = "warning"
	levelInfo    = "info"
)
