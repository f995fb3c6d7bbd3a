package launch

import (
	"fmt"

	"github.com/agenttui/agenttui/internal/config"
	"github.com/agenttui/agenttui/internal/plural"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/hooks"
)

// HookPlan is what a session's hook commands are: those that run from the
// start, and the workspace's own that wait for the person's trust.
type HookPlan struct {
	// Run are the hooks that run from the start: the person's own, and
	// the workspace's when it is trusted already.
	Run hooks.Config
	// Waiting are the workspace's hooks not yet trusted (empty when none
	// wait), defined in File; trusting them runs Run and Waiting
	// together. Changed says the person trusted an earlier version.
	Waiting hooks.Config
	File    string
	Changed bool
	// digest is what trusting the workspace records in store.
	digest    string
	store     hooks.TrustStore
	workspace string
}

// PlanHooks reads the session's hooks and whether the workspace's own are
// trusted. The demo runs none: it plays in a copy of the sample project.
func PlanHooks(s *Settings, demo bool) (HookPlan, error) {
	if demo {
		return HookPlan{}, nil
	}
	set, err := config.LoadHooks(s.Config, s.Workspace)
	if err != nil {
		return HookPlan{}, err
	}
	plan := HookPlan{Run: set.User, workspace: s.Workspace}
	if set.Workspace.Empty() {
		return plan, nil
	}
	plan.digest = hooks.Digest(s.Workspace, set.Workspace)
	plan.store, err = config.TrustStore()
	if err != nil {
		return HookPlan{}, err
	}
	// A store that cannot be read trusts nothing: the person is asked,
	// and trusting writes the store afresh.
	if trusted, _ := plan.store.Trusted(s.Workspace, plan.digest); trusted {
		plan.Run = plan.Run.Merge(set.Workspace)
		return plan, nil
	}
	plan.Waiting, plan.File = set.Workspace, set.WorkspaceFile
	plan.Changed = plan.store.Known(s.Workspace)
	return plan, nil
}

// UntrustedNotice says that the workspace's hooks do not run, in a run
// that cannot ask the person.
func (p HookPlan) UntrustedNotice() runtime.Notice {
	n := len(p.Waiting.Describe())
	them := "none of them runs; open the console here once to review and trust them"
	if n == 1 {
		them = "it does not run; open the console here once to review and trust it"
	}
	return runtime.Notice{Level: "warning", Text: fmt.Sprintf("%s defines %s that this workspace has not been trusted to run, so %s",
		p.File, plural.Of(n, "hook command"), them)}
}

// Trust records that the person trusts the workspace's hooks and returns
// every hook the session runs from now on.
func (p HookPlan) Trust() (hooks.Config, error) {
	all := p.Run.Merge(p.Waiting)
	return all, p.store.Trust(p.workspace, p.digest)
}
