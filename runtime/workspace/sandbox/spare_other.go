//go:build !linux

package sandbox

import "os/exec"

// pool keeps no spare helper where there is no Landlock: no command is ever
// sandboxed there.
type pool struct{}

func (p *pool) warm() bool { return false }

func (p *pool) close() {}

func (p *pool) fill() {}

func (p *pool) begin() {}

func (p *pool) end() {}

func (p *pool) endAfter(pid int) {}

// startOnSpare never starts cmd: there are no spares here.
func (s *Sandbox) startOnSpare(cmd *exec.Cmd) (*exec.Cmd, bool, error) { return nil, false, nil }
