package workspacetrust

import "testing"

// TestUntrustedNoticeCounts words the notice of a workspace's untrusted
// commands so that its counts and nouns agree, for one and for more.
func TestUntrustedNoticeCounts(t *testing.T) {
	for _, tc := range []struct {
		hooks, servers int
		want           string
	}{
		{1, 0, ".agenttui/settings.json defines 1 hook command that this workspace has not been trusted to run, " +
			"so it does not run; open the console here (agenttui) once to review and trust it"},
		{2, 0, ".agenttui/settings.json defines 2 hook commands that this workspace has not been trusted to run, " +
			"so none of them runs; open the console here (agenttui) once to review and trust them"},
		{1, 1, ".agenttui/settings.json defines 1 hook command and .mcp.json defines 1 MCP server that this workspace has not " +
			"been trusted to run, so none of them runs; open the console here (agenttui) once to review and trust them"},
		{0, 3, ".mcp.json defines 3 MCP servers that this workspace has not been trusted to run, " +
			"so none of them runs; open the console here (agenttui) once to review and trust them"},
	} {
		if got := untrustedText(".agenttui/settings.json", tc.hooks, ".mcp.json", tc.servers); got != tc.want {
			t.Errorf("%d hooks, %d servers: %q\nwant %q", tc.hooks, tc.servers, got, tc.want)
		}
	}
}
