package tui

import (
	"fmt"
	"strings"

	"github.com/agenttui/agenttui/tui/internal/text"
)

// Server is one MCP server as the console's header shows it.
type Server struct {
	// Name is the server's name from the configuration.
	Name string
	// State is starting, ready, failed, stopped (started again at its next
	// call) or down.
	State string
	// Tools is how many of its tools are offered to the model.
	Tools int
	// Err says why it failed, stopped or is down; the notice that said so
	// is in the transcript.
	Err string
}

// serverLine is the header's line about the MCP servers: each one's state
// and how many tools it offers, as last reported through Bridge.Servers.
// It has no keys; reports come when something changes, never by polling.
type serverLine struct {
	servers []Server
}

// set takes a new report.
func (l *serverLine) set(s []Server) { l.servers = s }

// shown reports whether the line is drawn: only when servers are
// configured.
func (l *serverLine) shown() bool { return len(l.servers) > 0 }

// View draws the line at width: "mcp: ✓ fs ready, 11 tools · ✗ tracker failed".
func (l *serverLine) View(st *text.Styles, width int) string {
	parts := make([]string, 0, len(l.servers))
	for _, s := range l.servers {
		name := text.CleanLine(s.Name)
		switch s.State {
		case "ready":
			parts = append(parts, st.OK.Render(text.SymOK)+" "+name+" ready, "+tools(s.Tools))
		case "starting":
			parts = append(parts, st.Dim.Render(text.SymQueued+" "+name+" starting…"))
		case "stopped":
			parts = append(parts, st.Warn.Render(text.SymPartly)+" "+name+" stopped (restarts at its next call), "+tools(s.Tools))
		case "failed":
			parts = append(parts, st.Err.Render(text.SymErr+" "+name+" failed"))
		case "down":
			parts = append(parts, st.Err.Render(text.SymErr+" "+name+" down"))
		default:
			parts = append(parts, name+" "+text.CleanLine(s.State))
		}
	}
	return text.Cut(st.Dim.Render("mcp: ")+strings.Join(parts, st.Dim.Render(" · ")), width)
}

// tools renders a tool count.
func tools(n int) string {
	if n == 1 {
		return "1 tool"
	}
	return fmt.Sprintf("%d tools", n)
}
