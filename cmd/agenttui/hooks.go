package main

import (
	"fmt"

	"github.com/agenttui/agenttui/internal/config"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/hooks"
)

// hookPlan is what a session's hook commands are: those that run from the
// start, and the workspace's own that wait for the person's trust.
type hookPlan struct {
	// run are the hooks that run from the start: the person's own, and
	// the workspace's when it is trusted already.
	run hooks.Config
	// waiting are the workspace's hooks not yet trusted (nil when none
	// wait), defined in file; trusting them runs run and waiting
	// together. changed says the person trusted an earlier version.
	waiting hooks.Config
	file    string
	changed bool
	// digest is what trusting the workspace records in store.
	digest    string
	store     hooks.TrustStore
	workspace string
}

// planHooks reads the session's hooks and whether the workspace's own are
// trusted. The demo runs none: it plays in a copy of the sample project.
func planHooks(o *options, demo bool) (hookPlan, error) {
	if demo {
		return hookPlan{}, nil
	}
	set, err := config.LoadHooks(o.cfg, o.workspace)
	if err != nil {
		return hookPlan{}, err
	}
	plan := hookPlan{run: set.User, workspace: o.workspace}
	if set.Workspace.Empty() {
		return plan, nil
	}
	plan.digest = hooks.Digest(o.workspace, set.Workspace)
	plan.store, err = config.TrustStore()
	if err != nil {
		return hookPlan{}, err
	}
	// A store that cannot be read trusts nothing: the person is asked,
	// and trusting writes the store afresh.
	if trusted, _ := plan.store.Trusted(o.workspace, plan.digest); trusted {
		plan.run = plan.run.Merge(set.Workspace)
		return plan, nil
	}
	plan.waiting, plan.file = set.Workspace, set.WorkspaceFile
	plan.changed = plan.store.Known(o.workspace)
	return plan, nil
}

// untrustedNotice says that the workspace's hooks do not run, in a run
// that cannot ask the person.
func (p hookPlan) untrustedNotice() runtime.Notice {
	return runtime.Notice{Level: "warning", Text: fmt.Sprintf("%s defines %d hook commands that this workspace has not been trusted to run, "+
		"so none of them runs; open the console here once to review and trust them", p.file, len(p.waiting.Describe()))}
}

// trust records that the person trusts the workspace's hooks and returns
// every hook the session runs from now on.
func (p hookPlan) trust() (hooks.Config, error) {
	all := p.run.Merge(p.waiting)
	return all, p.store.Trust(p.workspace, p.digest)
}
