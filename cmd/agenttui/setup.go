package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/assets"
	"github.com/agenttui/agenttui/internal/instructions"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/runtime/workspace"
	"github.com/agenttui/agenttui/runtime/workspace/sandbox"
)

// landlockSupport tells what the kernel offers the shell sandbox; tests
// replace it to play a kernel without Landlock.
var landlockSupport = sandbox.Detect

// newSessionID returns a fresh session id: the start time, then random hex,
// so ids sort by age and never collide.
func newSessionID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// chooseModel returns the model the options name: a scenario file, or the
// demo when nothing else is configured.
func chooseModel(o *options) (m model.Model, demo bool, err error) {
	switch {
	case o.scenario != "":
		sc, err := model.LoadScenario(o.scenario)
		if err != nil {
			return nil, false, usageError{err.Error()}
		}
		name := sc.Name
		if name == "" {
			name = strings.TrimSuffix(filepath.Base(o.scenario), filepath.Ext(o.scenario))
		}
		return model.NewScripted("scenario:"+name, sc), false, nil
	case o.model == "" || o.model == "demo":
		sc, err := assets.DemoScenario()
		if err != nil {
			return nil, false, err
		}
		return model.NewScripted("demo", sc), true, nil
	case isProviderSpec(o.model):
		m, err := providerModel(o.model, settingsOf(o.cfg))
		return m, false, err
	default:
		return nil, false, usagef("unknown model %q: use openai:NAME, anthropic:NAME, demo, or --scenario FILE", o.model)
	}
}

// newAgent builds the agent over the workspace tools with the approval policy
// as its hook. wrap, when not nil, wraps each workspace tool (the console's
// demo uses it to pace the tools).
func newAgent(o *options, m model.Model, policy *approval.Policy, sink runtime.Sink, wrap func(tool.Tool) tool.Tool) (*runtime.Agent, error) {
	tools, err := workspaceTools(o, wrap)
	if err != nil {
		return nil, err
	}
	cat, err := runtime.NewCatalog(tools...)
	if err != nil {
		return nil, fmt.Errorf("building the tool catalogue: %w", err)
	}
	policy.SetWorkspace(o.workspace)
	rules, err := o.rules()
	if err != nil {
		return nil, err
	}
	if err := policy.SetRules(rules); err != nil {
		return nil, usageError{err.Error()}
	}
	a := &runtime.Agent{
		Model:       m,
		Catalog:     cat,
		Hooks:       []runtime.Hook{policy},
		Sink:        sink,
		MaxParallel: o.maxParallel,
		Mode:        func() string { return string(policy.Mode()) },
	}
	if o.cfg != nil {
		a.Budgets = o.cfg.Budgets
		a.MaxOutputTokens = o.cfg.MaxOutputTokens
		a.MaxResultBytes = o.cfg.MaxResultBytes
		policy.SetSandboxedShell(o.cfg.SandboxedShell)
	}
	if m != nil {
		a.Context = contextPolicy(o, m)
	}
	o.prompt = instructions.SystemPrompt(o.workspace, time.Now())
	a.System = o.prompt.Text
	return a, nil
}

// contextPolicy returns the context window and compaction threshold of m:
// the configured window, else the built-in table's, else a guess. A
// scripted model (the demo, a scenario) has no window unless one is
// configured: its conversations are short and its context is not a real
// one.
func contextPolicy(o *options, m model.Model) runtime.ContextPolicy {
	p := runtime.ContextPolicy{AutoCompact: runtime.DefaultAutoCompact}
	if o.cfg != nil && o.cfg.AutoCompact != nil {
		p.AutoCompact = *o.cfg.AutoCompact
	}
	if o.cfg != nil && o.cfg.ContextWindow > 0 {
		p.Window = o.cfg.ContextWindow
		return p
	}
	if sw, ok := m.(*model.Switchable); ok {
		m = sw.Current()
	}
	if _, scripted := m.(*model.Scripted); scripted || m == nil {
		return runtime.ContextPolicy{AutoCompact: p.AutoCompact}
	}
	p.Window, p.Guessed = model.ContextWindow(m.Name())
	p.Guessed = !p.Guessed
	return p
}

// workspaceTools returns the built-in tools over the workspace, each wrapped
// by wrap when it is not nil.
func workspaceTools(o *options, wrap func(tool.Tool) tool.Tool) ([]tool.Tool, error) {
	ws, err := workspace.New(o.workspace)
	if err != nil {
		return nil, usagef("--workspace %s: %v", o.workspace, err)
	}
	sb, err := o.shellSandbox(ws.Root())
	if err != nil {
		return nil, err
	}
	ws.SetSandbox(sb)
	tools := ws.Tools()
	if wrap != nil {
		for i, t := range tools {
			tools[i] = wrap(t)
		}
	}
	return tools, nil
}
