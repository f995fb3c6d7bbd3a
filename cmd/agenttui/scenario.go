package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/agenttui/agenttui/assets"
	"github.com/agenttui/agenttui/internal/txtar"
	"github.com/agenttui/agenttui/runtime/model"
)

// scenarioOf returns the scenario m plays, or nil when m is not scripted.
func scenarioOf(m model.Model) *model.Scenario {
	if s, ok := m.(*model.Scripted); ok {
		return s.Scenario()
	}
	return nil
}

// playground is the folder a scenario that carries its workspace works in.
type playground struct {
	// dir is the folder; temp says it is a fresh temporary folder, removed
	// by cleanup, so the session in it cannot be resumed and is not
	// journaled.
	dir     string
	temp    bool
	cleanup func()
	// archive names the scenario's workspace archive, for messages.
	archive string
}

// preparePlayground unpacks the workspace archive sc names, if it names
// one, and makes it the session's workspace. The archive is read beside
// the scenario file, or from the binary for the built-in demo. It is
// unpacked into a fresh temporary folder; a --workspace given on the
// command line must be an empty folder, and the archive is unpacked there
// and kept. The demo always plays in a temporary folder, so it never
// touches the person's files.
//
// It returns nil when sc carries no workspace.
func preparePlayground(o *options, sc *model.Scenario, demo bool) (*playground, error) {
	if sc == nil || sc.Workspace == "" {
		return nil, nil
	}
	var data []byte
	var err error
	name := sc.Workspace
	if demo {
		data, err = assets.ReadFile(sc.Workspace)
		name = "the built-in demo's " + sc.Workspace
	} else {
		name = filepath.Join(filepath.Dir(o.scenario), filepath.FromSlash(sc.Workspace))
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, usagef("scenario file %s: workspace %s cannot be read: %v", o.scenario, name, unwrapPathError(err))
	}
	a, err := txtar.Parse(data)
	if err != nil {
		return nil, usagef("scenario workspace %s: %v", name, err)
	}
	p := &playground{archive: name, cleanup: func() {}}
	if !demo && o.set["workspace"] {
		entries, err := os.ReadDir(o.workspace)
		if err != nil {
			return nil, usagef("--workspace %s: %v", o.workspace, err)
		}
		if len(entries) > 0 {
			return nil, usagef("--workspace %s is not empty: the scenario brings its own workspace (%s), which is unpacked "+
				"into an empty --workspace, or into a temporary folder when --workspace is not given", o.workspace, name)
		}
		p.dir = o.workspace
	} else {
		prefix := "agenttui-scenario-"
		if demo {
			prefix = "agenttui-demo-"
		}
		if p.dir, err = os.MkdirTemp("", prefix); err != nil {
			return nil, fmt.Errorf("creating the scenario's workspace: %w", err)
		}
		dir := p.dir
		p.temp, p.cleanup = true, func() { os.RemoveAll(dir) }
	}
	if err := a.Unpack(p.dir); err != nil {
		p.cleanup()
		return nil, fmt.Errorf("unpacking %s into %s: %w", name, p.dir, err)
	}
	o.workspace = p.dir
	return p, nil
}

// note says where a scenario plays that carries its workspace, when the
// folder is temporary, so nobody looks for the session's files or its
// journal afterwards.
func (p *playground) note() string {
	return fmt.Sprintf("this scenario works in a temporary folder made from its workspace archive (%s): %s. "+
		"It is removed when agenttui exits, and the session is not journaled; "+
		"to keep both, pass --workspace with an empty folder", p.archive, p.dir)
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
