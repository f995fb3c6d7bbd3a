package main

import (
	"github.com/agenttui/agenttui/internal/launch"
	"github.com/agenttui/agenttui/runtime/model"
)

// checkPlay checks --autopilot and --speed against the model of a fresh
// console session: both play a scenario, and the autopilot needs one that
// records its person, with a first input or a goal to start from.
func checkPlay(o *options, m model.Model) error {
	sc := launch.ScenarioOf(m)
	if o.Set["speed"] && sc == nil {
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
			"add them (see the README's scenario files), or play it without --autopilot", o.Scenario)
	case sc.Steps[0].Input == "" && o.goal == "":
		return usagef(`--autopilot: the first step of scenario file %s has no input, so give the goal: agenttui --scenario %s --autopilot "goal"`,
			o.Scenario, o.Scenario)
	}
	return nil
}
