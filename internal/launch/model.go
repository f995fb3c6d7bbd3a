package launch

import (
	"path/filepath"
	"strings"

	"github.com/agenttui/agenttui/assets"
	"github.com/agenttui/agenttui/internal/playground"
	"github.com/agenttui/agenttui/internal/providers"
	"github.com/agenttui/agenttui/internal/session"
	"github.com/agenttui/agenttui/runtime/journal"
	"github.com/agenttui/agenttui/runtime/model"
)

// ChooseModel returns the model the settings name: a scenario file, a
// provider's model, or the demo when nothing else is configured.
func ChooseModel(s *Settings) (m model.Model, demo bool, err error) {
	switch {
	case s.Scenario != "":
		sc, err := model.LoadScenario(s.Scenario)
		if err != nil {
			return nil, false, &Error{Problem: err.Error()}
		}
		name := sc.Name
		if name == "" {
			name = strings.TrimSuffix(filepath.Base(s.Scenario), filepath.Ext(s.Scenario))
		}
		return model.NewScripted("scenario:"+name, sc), false, nil
	case s.Model == "" || s.Model == "demo":
		sc, err := assets.DemoScenario()
		if err != nil {
			return nil, false, err
		}
		return model.NewScripted("demo", sc), true, nil
	case providers.IsSpec(s.Model):
		m, err := providers.Open(s.Model, providers.FromConfig(s.Config))
		return m, false, err
	default:
		return nil, false, Errorf("unknown model %q: use openai:NAME, anthropic:NAME, demo, or --scenario FILE", s.Model)
	}
}

// ResumeModel returns the model a loaded session is carried on with: the
// one the settings name, else the one its journal names (LoadSession puts
// it in the settings).
func ResumeModel(s *Settings, rp *journal.Replay, speed float64) (model.Model, error) {
	m, demo, err := ChooseModel(s)
	if err != nil {
		return nil, err
	}
	if sc, ok := m.(*model.Scripted); ok {
		m = sc.WithSpeed(speed)
	}
	if demo {
		return nil, Errorf("session %s was recorded with no model named: pass --model or --scenario to resume it",
			rp.Header.Session)
	}
	return m, nil
}

// LoadSession finds and loads session id of the settings' workspace ("" is
// its most recent). Unless the settings name a model or a scenario, the
// session is carried on with the model its journal names, which becomes
// the settings' model.
func LoadSession(s *Settings, id string) (*journal.Replay, error) {
	rp, err := session.Load(s.Workspace, id)
	if err != nil {
		return nil, err
	}
	if !s.Set["model"] && s.Scenario == "" {
		if strings.HasPrefix(rp.Header.Model, "scenario:") {
			return nil, Errorf("session %s was played from a scenario file: pass --scenario FILE again to resume it", rp.Header.Session)
		}
		s.Model = rp.Header.Model
	}
	return rp, nil
}

// ScenarioOf returns the scenario m plays, or nil when m is not scripted.
func ScenarioOf(m model.Model) *model.Scenario {
	if s, ok := m.(*model.Scripted); ok {
		return s.Scenario()
	}
	return nil
}

// Playground unpacks the workspace archive the scenario sc names, if it
// names one, into the workspace the settings name explicitly (which must
// be empty) or a temporary folder, and makes it the settings' workspace;
// see playground.Prepare. It returns nil when sc carries no workspace.
func (s *Settings) Playground(sc *model.Scenario, demo bool) (*playground.Playground, error) {
	into := ""
	if s.Set["workspace"] {
		into = s.Workspace
	}
	p, err := playground.Prepare(sc, playground.Options{ScenarioFile: s.Scenario, Demo: demo, Into: into})
	if p != nil {
		s.Workspace = p.Dir
	}
	return p, err
}
