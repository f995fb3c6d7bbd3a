package main

import (
	"path/filepath"
	"strings"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/assets"
	"github.com/agenttui/agenttui/internal/session"
	"github.com/agenttui/agenttui/internal/traces"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/workspace/sandbox"
)

// landlockSupport tells what the kernel offers the shell sandbox; tests
// replace it to play a kernel without Landlock.
var landlockSupport = sandbox.Detect

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

// sessionOptions returns what the command line and the configuration say
// of the session: its workspace, model (nil while a resumed session's is
// not known), approval policy and rules, bounds, shell sandbox, MCP servers
// and traces. The caller adds how events are shown.
func (o *options) sessionOptions(m model.Model, policy *approval.Policy, tr traces.Settings) (session.Options, error) {
	rules, err := o.rules()
	if err != nil {
		return session.Options{}, err
	}
	return session.Options{Workspace: o.workspace, Model: m, Policy: policy, Rules: rules, Config: o.cfg, MaxParallel: o.maxParallel,
		Shell: o.shellSandbox, MCPConfig: o.mcpConfig, Traces: tr}, nil
}
