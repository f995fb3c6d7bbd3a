package main

import (
	"github.com/agenttui/agenttui/assets"
	"github.com/agenttui/agenttui/runtime/model"
)

// demoScenario returns the built-in demo scenario.
func demoScenario() (*model.Scenario, error) { return assets.DemoScenario() }

// prepareDemoWorkspace copies the sample workspace into a fresh temporary
// folder, so the demo never touches the person's files.
func prepareDemoWorkspace() (dir string, cleanup func(), err error) {
	return assets.CopySampleWorkspace()
}
