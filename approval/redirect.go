package approval

import (
	"context"

	"github.com/agenttui/agenttui/runtime"
)

// FollowsRedirect reports whether a web_fetch call under way may follow a
// redirect without asking anyone. c is a first request for the redirect's
// target as the runtime would describe it: web_fetch with the target as its
// url, its footprint, and, for a target on another host, the url traced to
// the page that redirected when such pages are untrusted, as a URL copied
// from a page is.
//
// A hop to another host is followed only when the policy would run c
// without asking: its rules, grants, mode (the per-host approval) and
// provenance, as for any first request there; an approval for one host
// never carries a fetch to another. A hop within the host the call was
// approved for (sameHost) is followed unless a deny or ask rule matches c:
// the host chose the target and has the request already, so nothing goes
// anywhere new, but a rule written for that URL still holds. A hop not
// followed stops the fetch, and the model reads how to fetch the target
// with a call of its own, which is reviewed as any call is.
func (p *Policy) FollowsRedirect(c runtime.CallInfo, sameHost bool) bool {
	if !sameHost {
		return p.Review(context.Background(), c).IsContinue()
	}
	if _, ok := firstMatch(p.rules.deny, c, p.workspace); ok {
		return false
	}
	_, asks := firstMatch(p.rules.ask, c, p.workspace)
	return !asks
}
