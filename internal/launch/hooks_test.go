package launch

import (
	"testing"

	"github.com/agenttui/agenttui/runtime/hooks"
)

// TestUntrustedNoticeCounts words the notice of a workspace's untrusted
// hooks so that its count and nouns agree, for one command and for two.
func TestUntrustedNoticeCounts(t *testing.T) {
	pre := hooks.Group{Matcher: "write_file", Hooks: []hooks.Command{{Type: "command", Command: "./hooks/pre.sh"}}}
	stop := hooks.Group{Hooks: []hooks.Command{{Type: "command", Command: "./hooks/stop.sh"}}}
	for _, tc := range []struct {
		waiting hooks.Config
		want    string
	}{
		{hooks.Config{hooks.PreToolUse: {pre}}, ".agenttui/settings.json defines 1 hook command that this workspace has not been trusted to run, " +
			"so it does not run; open the console here once to review and trust it"},
		{hooks.Config{hooks.PreToolUse: {pre}, hooks.Stop: {stop}}, ".agenttui/settings.json defines 2 hook commands that this workspace has not been trusted to run, " +
			"so none of them runs; open the console here once to review and trust them"},
	} {
		p := HookPlan{Waiting: tc.waiting, File: ".agenttui/settings.json"}
		if got := p.UntrustedNotice(); got.Text != tc.want || got.Level != "warning" {
			t.Errorf("notice %+v\nwant %q", got, tc.want)
		}
	}
}
