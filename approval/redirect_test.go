package approval

import (
	"encoding/json"
	"net/url"
	"testing"

	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/tool"
)

// hop is a first request for a redirect's target, as web_fetch's judge
// describes it; from names the page that redirected, whose words the url
// is traced to when it is on another host.
func hop(target, from string) runtime.CallInfo {
	args, _ := json.Marshal(map[string]string{"url": target})
	u, _ := url.Parse(target)
	c := info("web_fetch", string(args), tool.Reads(tool.Paths("/net/"+u.Host)))
	c.Decl = tool.Declaration{Name: "web_fetch", Annotations: tool.Annotations{ReadOnly: true, OpenWorld: true}}
	if from != "" {
		c.Provenance = []tool.Origin{{Argument: "url", End: len(target), Tool: "web_fetch", Source: "web:" + from}}
	}
	return c
}

// A host approval does not carry a fetch to another host: the hop is
// judged as a first request there, provenance included, while a hop within
// the host is followed unless a rule stops it.
func TestFollowsRedirect(t *testing.T) {
	const approved, other = "127.0.0.1:18080", "127.0.0.1:18081"
	allowApproved := rule("web_fetch", Allow, "approved", "url", "http://"+approved+"/*")
	tests := []struct {
		name     string
		p        *Policy
		c        runtime.CallInfo
		sameHost bool
		want     bool
	}{
		{"another host, its url from the approved host's page", policy(t, ModeReads, allowApproved),
			hop("http://"+other+"/collect?d=1", approved), false, false},
		{"another host in auto mode", policy(t, ModeAuto), hop("http://"+other+"/x", approved), false, false},
		{"another host, web pages trusted, in auto mode", policy(t, ModeAuto), hop("http://"+other+"/x", ""), false, true},
		{"another host, web pages trusted, not granted", policy(t, ModeReads), hop("http://"+other+"/x", ""), false, false},
		{"another host an allow rule lets through whatever its provenance",
			policy(t, ModeReads, NamedRule{Rule: Rule{Tool: "web_fetch", Args: map[string]string{"url": "http://" + other + "/*"},
				Decision: Allow, Provenance: "allow"}, Label: "other"}),
			hop("http://"+other+"/x", approved), false, true},
		{"the same host", policy(t, ModeReads, allowApproved), hop("http://"+approved+"/docs/", ""), true, true},
		{"the same host, in ask mode", policy(t, ModeAsk), hop("http://"+approved+"/docs/", ""), true, true},
		{"the same host, a URL a deny rule names", policy(t, ModeAuto, rule("web_fetch", Deny, "admin", "url", "http://"+approved+"/admin/*")),
			hop("http://"+approved+"/admin/drop", ""), true, false},
		{"the same host, a URL an ask rule names", policy(t, ModeAuto, rule("web_fetch", AskFirst, "admin", "url", "http://"+approved+"/admin/*")),
			hop("http://"+approved+"/admin/drop", ""), true, false},
	}
	for _, tt := range tests {
		if got := tt.p.FollowsRedirect(tt.c, tt.sameHost); got != tt.want {
			t.Errorf("%s: FollowsRedirect = %v, want %v (the policy says %s)", tt.name, got, tt.want, decide(tt.p, tt.c))
		}
	}
	// A grant for the other host does not let a URL from a page through;
	// it does when web pages are trusted.
	p := policy(t, ModeReads)
	p.AddGrant(p.GrantOptions(Request{Call: hop("http://"+other+"/x", "").Call, Touches: hop("http://"+other+"/x", "").Touches})[1])
	if p.FollowsRedirect(hop("http://"+other+"/x", approved), false) || !p.FollowsRedirect(hop("http://"+other+"/x", ""), false) {
		t.Error("a grant for the other host: wrong")
	}
}
