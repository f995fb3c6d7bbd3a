package main

import (
	"github.com/agenttui/agenttui/internal/playground"
	"github.com/agenttui/agenttui/runtime/model"
)

// scenarioOf returns the scenario m plays, or nil when m is not scripted.
func scenarioOf(m model.Model) *model.Scenario {
	if s, ok := m.(*model.Scripted); ok {
		return s.Scenario()
	}
	return nil
}

// preparePlayground unpacks the workspace archive the scenario sc names, if
// it names one, into an empty --workspace or a temporary folder, and makes
// it the session's workspace; see playground.Prepare. It returns nil when sc
// carries no workspace.
func preparePlayground(o *options, sc *model.Scenario, demo bool) (*playground.Playground, error) {
	into := ""
	if o.set["workspace"] {
		into = o.workspace
	}
	p, err := playground.Prepare(sc, playground.Options{ScenarioFile: o.scenario, Demo: demo, Into: into})
	if p != nil {
		o.workspace = p.Dir
	}
	return p, err
}

// checkPlay checks --autopilot and --speed against the model of a fresh
// console session: both play a scenario, and the autopilot needs one that
// records its person, with a first input or a goal to start from.
func checkPlay(o *options, m model.Model) error {
	sc := scenarioOf(m)
	if o.set["speed"] && sc == nil {
		return usagef("--speed plays a scripted model (the built-in demo, or --scenario FILE) faster or slower; %s is not one", m.Name())
	}
	if !o.autopilot {
		return nil
	}
	switch {
	case sc == nil:
		return usagef("--autopilot plays the person a scenario records: give --scenario FILE, or no model for the built-in demo (not %s)", m.Name())
	case !sc.CarriesPerson():
		return usagef("--autopilot: scenario file %s records no person: none of its steps has an input, and none of its calls a decision; "+
			"add them (see the README's scenario files), or play it without --autopilot", o.scenario)
	case sc.Steps[0].Input == "" && o.goal == "":
		return usagef(`--autopilot: the first step of scenario file %s has no input, so give the goal: agenttui --scenario %s --autopilot "goal"`,
			o.scenario, o.scenario)
	}
	return nil
}
