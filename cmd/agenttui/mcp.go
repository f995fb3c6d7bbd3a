package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/internal/launch"
	"github.com/agenttui/agenttui/internal/mcpserver"
	"github.com/agenttui/agenttui/internal/traces"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/journal"
)

// runMCP is "agenttui mcp": agenttui as an MCP server, on stdio or, with
// --http, streamable HTTP on a loopback address. Each run_goal opens a
// session the way agenttui run does, with the person's configuration,
// rules and sandbox for its workspace.
func runMCP(args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	o, err := parseOptions("agenttui mcp", args, false, stdout)
	if err != nil {
		return 2, err
	}
	traceEnv, err := traces.FromEnv(os.Getenv)
	if err != nil {
		return 2, err
	}
	l := sessionLauncher{flags: o.flags, workspace: o.Workspace, traces: traceEnv}
	if o.speedSet {
		l.speed = o.speed
	}
	srv := mcpserver.New(l, mcpserver.Options{Version: buildVersion()})
	defer srv.Close()
	ctx, stop := signal.NotifyContext(context.Background(), endSignals...)
	defer stop()
	if o.httpAddr == "" {
		return 0, srv.ServeStdio(ctx, stdin, stdout)
	}
	ln, err := listenLoopback(o.httpAddr)
	if err != nil {
		return 2, err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.Handler())
	hs := &http.Server{Handler: mux}
	go func() {
		<-ctx.Done()
		hs.Close()
	}()
	fmt.Fprintf(stderr, "agenttui mcp: serving streamable HTTP at http://%s/mcp\n", ln.Addr())
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return 1, err
	}
	return 0, nil
}

// listenLoopback listens on addr, which must be a loopback address: a goal
// sent to agenttui runs tools on this machine, so the server answers only
// this machine.
func listenLoopback(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, usagef("--http %s: give HOST:PORT, such as 127.0.0.1:8765", addr)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, usagef("--http %s: agenttui mcp serves only this machine; use a loopback address such as 127.0.0.1", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, usagef("--http %s: %v", addr, unwrapPathError(err))
	}
	return ln, nil
}

// buildVersion is the version the server tells its clients: the module's,
// when the binary was built from a tagged module.
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// sessionLauncher opens the MCP server's sessions from the server's flags,
// with the workspace, mode and model a run_goal call names laid over them,
// and then the configuration of the session's workspace under them all.
type sessionLauncher struct {
	flags     *launch.Settings
	workspace string
	traces    traces.Settings
	// speed plays a scenario's delays when --speed was given.
	speed float64
}

// Open implements mcpserver.Launcher.
func (l sessionLauncher) Open(ctx context.Context, req mcpserver.OpenRequest) (mcpserver.Session, error) {
	s := l.flags.Clone()
	s.Workspace = l.workspace
	if req.Workspace != "" {
		s.Workspace, s.Set["workspace"] = req.Workspace, true
		if !filepath.IsAbs(req.Workspace) {
			s.Workspace = filepath.Join(l.workspace, req.Workspace)
		}
	}
	if req.Mode != "" {
		m, err := approval.ParseMode(req.Mode)
		if err != nil {
			return nil, err
		}
		s.Mode, s.Set["mode"] = m, true
	}
	if req.Model != "" {
		s.Model, s.Scenario, s.Set["model"] = req.Model, "", true
	}
	if err := s.Resolve(); err != nil {
		// The call names its workspace as an argument, not a flag.
		return nil, errors.New(strings.Replace(err.Error(), "--workspace ", "workspace ", 1))
	}
	hl, err := launch.Open(ctx, s, launch.HeadlessOptions{Goal: req.Goal, Show: req.Show, Traces: l.traces, Speed: l.speed})
	if err != nil {
		return nil, err
	}
	return hl, nil
}

// Reopen implements mcpserver.Reopener: it carries on a journaled session
// in its own workspace, with the model its journal names unless the
// server's flags name one, as agenttui run --resume does.
func (l sessionLauncher) Reopen(ctx context.Context, id string, show runtime.Sink) (mcpserver.Session, error) {
	dir, err := journal.Dir()
	if err != nil {
		return nil, err
	}
	// Only a whole id names a journal: a prefix could name another.
	if !isSessionID(id) || !fileExists(journal.Path(dir, id)) {
		return nil, mcpserver.ErrUnknownSession
	}
	rp, err := journal.Load(journal.Path(dir, id))
	if err != nil {
		return nil, err
	}
	s := l.flags.Clone()
	s.Workspace, s.Set["workspace"] = rp.Header.Workspace, true
	if err := s.Resolve(); err != nil {
		return nil, fmt.Errorf("session %s works in %s: %w", id, rp.Header.Workspace, err)
	}
	if rp, err = launch.LoadSession(s, id); err != nil {
		return nil, err
	}
	hl, err := launch.Open(ctx, s, launch.HeadlessOptions{Replay: rp, Show: show, Traces: l.traces, Speed: l.speed})
	if err != nil {
		return nil, err
	}
	return hl, nil
}

// isSessionID reports whether id has the shape of the ids sessions are
// given: the start time, then eight hex digits (20261202-080249-c5d22d4a).
func isSessionID(id string) bool {
	if len(id) != 24 || id[8] != '-' || id[15] != '-' {
		return false
	}
	for i, c := range id {
		switch {
		case i == 8 || i == 15:
		case i < 15 && c >= '0' && c <= '9':
		case i > 15 && (c >= '0' && c <= '9' || c >= 'a' && c <= 'f'):
		default:
			return false
		}
	}
	return true
}

// fileExists reports whether path names something that can be read.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
