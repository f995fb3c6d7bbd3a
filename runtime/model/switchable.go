package model

import (
	"context"
	"sync/atomic"
)

// Switchable is a Model that passes each request to whichever model was set
// last, so that the model of a session can change between turns (the
// console's /model) while a run holds on to the same Model. A switch during
// a turn takes effect at the next one: the request under way keeps the model
// it was sent to. Its methods are safe for use by several goroutines.
type Switchable struct {
	cur atomic.Pointer[modelBox]
}

// modelBox holds a model, for the atomic pointer.
type modelBox struct{ m Model }

// NewSwitchable returns a Switchable that starts with m, which may be nil
// when the model is not known yet (a resumed session's is read from its
// journal); Reply must not be called until one is set.
func NewSwitchable(m Model) *Switchable {
	s := &Switchable{}
	if m != nil {
		s.Set(m)
	}
	return s
}

// Set makes m the model of the turns to come.
func (s *Switchable) Set(m Model) { s.cur.Store(&modelBox{m}) }

// Current returns the model the next turn asks, or nil when none was set.
func (s *Switchable) Current() Model {
	if b := s.cur.Load(); b != nil {
		return b.m
	}
	return nil
}

// Name names the current model, or is empty when none was set.
func (s *Switchable) Name() string {
	if m := s.Current(); m != nil {
		return m.Name()
	}
	return ""
}

// Reply asks the current model, and names it in the reply's Model, so that
// a reply is priced as the model that wrote it even when the model was
// switched while it was being written.
func (s *Switchable) Reply(ctx context.Context, req Request, onDelta func(Delta)) (Reply, error) {
	m := s.Current()
	r, err := m.Reply(ctx, req, onDelta)
	if err == nil && r.Model == "" {
		r.Model = m.Name()
	}
	return r, err
}
