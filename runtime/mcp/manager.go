package mcp

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
)

// Manager runs the servers of one configuration: it starts them, offers
// their tools, restarts a server that stopped, and shuts them all down. It
// is safe for concurrent use.
type Manager struct {
	opts    Options
	dir     string
	servers []*server
	ready   chan struct{}

	// ctx lives until Close; starts, restarts and re-listings use it, so
	// that Close cuts them short.
	ctx    context.Context
	cancel context.CancelFunc

	// spawnMu guards closed and makes "not closed, so count one more
	// goroutine" atomic, so that Close's wait sees every goroutine.
	spawnMu sync.Mutex
	closed  bool
	wg      sync.WaitGroup

	closeOnce sync.Once
	noticeMu  sync.Mutex // serialises Options.Notice
	changeMu  sync.Mutex // serialises Options.OnChange
}

// Start starts every server of cfg in parallel and returns at once; Ready
// says when all of them have started or failed. A nil or empty cfg gives a
// manager with no servers, whose Ready channel is already closed.
func Start(cfg *Config, opts Options) *Manager {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.StopGrace <= 0 {
		opts.StopGrace = DefaultStopGrace
	}
	m := &Manager{opts: opts, dir: opts.Dir, ready: make(chan struct{})}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	if cfg == nil {
		close(m.ready)
		return m
	}
	if m.dir == "" && cfg.Path != "" {
		m.dir = filepath.Dir(cfg.Path)
	}
	for _, sc := range cfg.Servers {
		s := &server{m: m, cfg: sc, state: StateStarting, pending: make(chan struct{})}
		m.servers = append(m.servers, s)
	}
	var started sync.WaitGroup
	for _, s := range m.servers {
		started.Add(1)
		m.spawn(func() {
			defer started.Done()
			s.run(false)
		})
	}
	m.spawn(func() {
		started.Wait()
		close(m.ready)
	})
	return m
}

// Ready returns a channel that is closed once every server has started or
// failed (or Close cut the starts short). A headless run waits for it before
// its first turn; the console need not, since OnChange reports servers that
// become ready later.
func (m *Manager) Ready() <-chan struct{} { return m.ready }

// Servers returns the status of every server, sorted by name.
func (m *Manager) Servers() []ServerStatus {
	out := make([]ServerStatus, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, s.status())
	}
	return out
}

// Tools returns the tools of every server that is ready (or stopped and
// started again at its next call), sorted by name. The tools of a server
// that failed or is down are not offered.
func (m *Manager) Tools() []tool.Tool {
	if m.isClosed() {
		return nil
	}
	var out []tool.Tool
	for _, s := range m.servers {
		s.mu.Lock()
		if s.offers() {
			for _, t := range s.tools {
				out = append(out, t)
			}
		}
		s.mu.Unlock()
	}
	slices.SortFunc(out, func(a, b tool.Tool) int {
		return strings.Compare(a.Declaration().Name, b.Declaration().Name)
	})
	return out
}

// Close shuts every server down and waits until they are gone: a stdio
// server's input is closed, it gets StopGrace to exit, then it is
// terminated and, with everything it started, killed. Calls still running
// end with an error. Close is idempotent and always returns nil; the error
// result lets it serve as an io.Closer.
func (m *Manager) Close() error {
	m.closeOnce.Do(func() {
		m.spawnMu.Lock()
		m.closed = true
		m.spawnMu.Unlock()
		m.cancel()
		var wg sync.WaitGroup
		for _, s := range m.servers {
			s.mu.Lock()
			c := s.conn
			s.conn = nil
			s.mu.Unlock()
			if c != nil {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c.close(true)
				}()
			}
		}
		wg.Wait()
		m.wg.Wait()
	})
	return nil
}

func (m *Manager) isClosed() bool {
	m.spawnMu.Lock()
	defer m.spawnMu.Unlock()
	return m.closed
}

// spawn runs f in a goroutine that Close waits for. It reports false, and
// does not run f, once the manager is closed.
func (m *Manager) spawn(f func()) bool {
	m.spawnMu.Lock()
	defer m.spawnMu.Unlock()
	if m.closed {
		return false
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		f()
	}()
	return true
}

// notice tells the person something, unless the manager is closing, when
// servers stopping is expected and not news.
func (m *Manager) notice(level, text string) {
	if m.opts.Notice == nil || m.isClosed() {
		return
	}
	m.noticeMu.Lock()
	defer m.noticeMu.Unlock()
	m.opts.Notice(runtime.Notice{Level: level, Text: text})
}

// changed tells the caller that Tools has changed.
func (m *Manager) changed() {
	if m.opts.OnChange == nil || m.isClosed() {
		return
	}
	m.changeMu.Lock()
	defer m.changeMu.Unlock()
	m.opts.OnChange()
}
