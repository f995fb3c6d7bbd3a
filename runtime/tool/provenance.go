package tool

// The kinds of source a result, or a part of a call's arguments, comes from.
const (
	// SourcePerson is what the person typed.
	SourcePerson = "person"
	// SourceWeb is a web page; Name is its host.
	SourceWeb = "web"
	// SourceMCP is an MCP tool's result; Name is "server/tool".
	SourceMCP = "mcp"
	// SourceShell is a shell command's output.
	SourceShell = "shell"
	// SourceWorkspace is a workspace file, read by a built-in tool; Name
	// is its path, relative to the workspace.
	SourceWorkspace = "workspace"
	// SourceTask is what a task's agent reported; Name is the task's id.
	SourceTask = "task"
	// SourceAgenttui is agenttui's own text: the system prompt, the tool
	// descriptions, and what the runtime tells the model.
	SourceAgenttui = "agenttui"
)

// Source is where a result came from: its kind, and which one of that kind.
type Source struct {
	// Kind is one of the Source* kinds.
	Kind string `json:"kind"`
	// Name says which: a host, an MCP server and tool, a path; empty for
	// the person, the shell and agenttui.
	Name string `json:"name,omitempty"`
	// Fresh, for a workspace file, says it was not in the workspace as it
	// is now when the session began: it was created or changed since, by
	// the agent, a command or anyone else. For a shell command's output,
	// it says the command named such a file (cat, head, sed), so that
	// its output is judged as the file would be.
	Fresh bool `json:"fresh,omitempty"`
	// Tainted says the arguments of the call that returned the result
	// carried text from an untrusted result, so that the result is
	// untrusted whatever its kind: a command a page wrote can print the
	// page's words back, or join pieces of them.
	Tainted bool `json:"tainted,omitempty"`
}

// Label returns the source as the configuration and the screen name it:
// "web:example.com", "mcp:fs/read", "shell", "workspace:docs/a.md",
// "person".
func (s Source) Label() string {
	if s.Name == "" {
		return s.Kind
	}
	return s.Kind + ":" + s.Name
}

// Origin is where part of one of a call's arguments came from: a span of
// the argument's text that also appears in an earlier result of the
// session, and the call that returned it.
type Origin struct {
	// Argument names the argument: its name for a top-level one
	// ("command"), a JSON pointer below that ("/files/0/path").
	Argument string `json:"argument"`
	// Start and End are the span, in bytes of the argument's string value.
	Start int `json:"start"`
	End   int `json:"end"`
	// Turn, Index and Tool identify the call whose result holds the span
	// (Index from 0); Task is its task's path, when a task's agent made
	// it.
	Turn  int      `json:"turn"`
	Index int      `json:"index"`
	Tool  string   `json:"tool"`
	Task  []string `json:"task,omitempty"`
	// Source is that result's source, as Source.Label gives it.
	Source string `json:"source"`
}
