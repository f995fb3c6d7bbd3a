package session

import (
	"fmt"
	"path/filepath"

	"github.com/agenttui/agenttui/internal/providers"
	"github.com/agenttui/agenttui/internal/xdg"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/agents"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/runtime/workspace"
)

// AgentDirs returns the folders custom agent files load from, the later
// overriding the earlier by name: the person's own
// ($XDG_CONFIG_HOME/agenttui/agents), then the workspace's Claude Code
// agents (.claude/agents), then the workspace's own (.agenttui/agents).
func AgentDirs(workspace string) []string {
	var dirs []string
	if cfg, err := xdg.ConfigHome(); err == nil {
		dirs = append(dirs, filepath.Join(cfg, "agenttui", "agents"))
	}
	return append(dirs, filepath.Join(workspace, ".claude", "agents"), filepath.Join(workspace, ".agenttui", "agents"))
}

// taskTool returns the task tool over the built-in agents and the agent
// files of the person and the workspace. A file that does not load is a
// notice; the other agents still load.
func (h *Host) taskTool(ws *workspace.Workspace) tool.Tool {
	files, problems := agents.Load(AgentDirs(ws.Root())...)
	for _, p := range problems {
		h.notices = append(h.notices, runtime.Notice{Level: "warning", Text: p + "; that agent was not loaded"})
	}
	return runtime.NewTaskTool(runtime.Tasks{
		Agents:    agents.Merge(agents.Builtins(), files),
		Workspace: ws.Root(),
		Tools: func(writes []string) ([]tool.Tool, []string) {
			tools := wrapTools(ws.Within(writes).Tools(), h.opts.Wrap)
			if servers := h.servers.Load(); servers != nil {
				if m := servers.mgr(); m != nil {
					tools = append(tools, m.Tools()...)
				}
			}
			var scratch []string
			if sb := ws.Sandbox(); sb.Enabled() {
				// The view keeps the session's caches writable, so that
				// a task can build; they are not the workspace's files.
				scratch = append(append(scratch, sb.TempDir()), sb.Caches()...)
			}
			return tools, scratch
		},
		Model:    h.taskModel,
		MaxTurns: h.opts.Config.TaskTurns(),
	})
}

// taskModel returns the model a task runs on. A scripted session plays the
// script its scenario gives the task; otherwise the agent's own model, when
// its file names one, or the session's.
func (h *Host) taskModel(def agents.Definition, description string, parent model.Model) (model.Model, error) {
	current := parent
	if sw, ok := current.(*model.Switchable); ok {
		current = sw.Current()
	}
	if s, ok := current.(*model.Scripted); ok {
		return s.ForTask(description)
	}
	if def.Model == "" {
		return parent, nil
	}
	if !providers.IsSpec(def.Model) {
		return nil, fmt.Errorf("the %s agent names the model %q, which is not a provider's model such as %s (from %s)",
			def.Name, def.Model, model.RecommendedOpenAI, def.Source)
	}
	return providers.Open(def.Model, providers.FromConfig(h.opts.Config))
}
