package main

import (
	"path/filepath"
	"strings"

	"github.com/agenttui/agenttui/assets"
	"github.com/agenttui/agenttui/internal/providers"
	"github.com/agenttui/agenttui/runtime/journal"
	"github.com/agenttui/agenttui/runtime/model"
)

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
	case providers.IsSpec(o.model):
		m, err := providers.Open(o.model, providers.FromConfig(o.cfg))
		return m, false, err
	default:
		return nil, false, usagef("unknown model %q: use openai:NAME, anthropic:NAME, demo, or --scenario FILE", o.model)
	}
}

// resumeModel returns the model a loaded session is carried on with: the
// one --model or --scenario names, else the one its journal names.
func resumeModel(o *options, rp *journal.Replay) (model.Model, error) {
	m, demo, err := chooseModel(o)
	if err != nil {
		return nil, err
	}
	if s, ok := m.(*model.Scripted); ok {
		m = s.WithSpeed(o.speed)
	}
	if demo {
		return nil, usagef("session %s was recorded with no model named: pass --model or --scenario to resume it",
			rp.Header.Session)
	}
	return m, nil
}
