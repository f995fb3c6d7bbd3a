package session

import (
	"encoding/json"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/runtime/workspace"
)

// followsRedirect says whether a web_fetch call under way may follow the
// redirect r: whether the approval policy would let a first web_fetch of
// its target run without asking (see approval.Policy.FollowsRedirect). For
// a target on another host, the url is the redirecting page's word, so it
// carries that page's provenance when such pages are untrusted, as a URL
// copied from the page would. Before the agent is built, only a hop within
// the host is followed.
func (h *Host) followsRedirect(r workspace.Redirect) bool {
	if h == nil || h.agent == nil {
		return r.SameHost
	}
	args, err := json.Marshal(map[string]string{"url": r.To})
	if err != nil {
		return false
	}
	p, err := h.agent.CurrentCatalog().Prepare(tool.Call{Name: "web_fetch", Arguments: string(args)})
	if err != nil {
		return false
	}
	c := runtime.CallInfo{Call: p.Call, Args: p.Args, Touches: p.Touches, Decl: p.Decl}
	untrusted := h.agent.Untrusted
	if untrusted == nil {
		untrusted = runtime.DefaultUntrusted
	}
	if !r.SameHost && untrusted(r.Page) {
		c.Provenance = []tool.Origin{{Argument: "url", End: len(r.To), Tool: "web_fetch", Source: r.Page.Label()}}
	}
	return h.opts.Policy.FollowsRedirect(c, r.SameHost)
}
