// Package instructions builds the system prompt of a session: the
// runtime's own prompt, a block that tells the model about its environment
// (the date, the system, the workspace, git), and the project's
// instructions from the AGENTS.md files that apply to the workspace, within
// a bound, so that a project's conventions reach the model without a
// huge file crowding out the conversation.
package instructions

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/agenttui/agenttui/internal/xdg"
	agentrt "github.com/agenttui/agenttui/runtime"
)

// Cap bounds the project instructions the system prompt carries, all files
// together: past it the rest is left out, with a note that says so.
const Cap = 32 << 10

// File is the name of the files that hold project instructions.
const File = "AGENTS.md"

// Prompt is the system prompt of a session: the runtime's own, an
// environment block, and the project instructions.
type Prompt struct {
	// Text is the prompt the model reads.
	Text string
	// Files are the instruction files that were read, in order, as paths
	// for people (relative to the repository root where they can be).
	Files []string
	// Cut says the instructions passed Cap and the rest was left out.
	Cut bool
}

// Summary says which instruction files were loaded, for the console's
// header: "AGENTS.md ×2"; empty when none was.
func (p Prompt) Summary() string {
	switch len(p.Files) {
	case 0:
		return ""
	case 1:
		return p.Files[0]
	}
	return fmt.Sprintf("%s ×%d", File, len(p.Files))
}

// SystemPrompt builds the system prompt for a session in workspace that
// began at began: base (the configuration's system_prompt_file), or the
// runtime's own prompt when base is empty, then the environment (the day
// the session began, system, workspace, git), then the
// project instructions: the user's own file ($XDG_CONFIG_HOME/agenttui/
// AGENTS.md) first, then every AGENTS.md from the repository root down to
// the workspace, in that order. The repository root is the nearest folder
// at or above the workspace that holds .git; without one, the workspace
// alone is looked in.
func SystemPrompt(base, workspace string, began time.Time) Prompt {
	root, branch := gitRoot(workspace)
	var b strings.Builder
	if base == "" {
		base = agentrt.DefaultSystemPrompt
	}
	b.WriteString(strings.TrimRight(base, "\n"))
	b.WriteString("\n\nEnvironment:\n")
	// The day the session began, which a resumed session keeps, so that
	// its prompt stays the same bytes.
	fmt.Fprintf(&b, "- Date the session began: %s\n", began.Format("2006-01-02"))
	fmt.Fprintf(&b, "- Operating system: %s/%s\n", runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&b, "- Workspace: %s\n", workspace)
	if root == "" {
		b.WriteString("- Git: the workspace is not in a git repository\n")
	} else {
		fmt.Fprintf(&b, "- Git: the workspace is in a git repository at %s, %s\n", root, branch)
	}

	var files []string
	if dir, err := xdg.ConfigHome(); err == nil {
		files = append(files, filepath.Join(dir, "agenttui", File))
	}
	top := root
	if top == "" {
		top = workspace
	}
	for _, dir := range pathDown(top, workspace) {
		files = append(files, filepath.Join(dir, File))
	}
	p := Prompt{}
	var body strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || strings.TrimSpace(string(data)) == "" {
			continue
		}
		name := f
		if rel, err := filepath.Rel(top, f); err == nil && !strings.HasPrefix(rel, "..") {
			name = rel
		}
		p.Files = append(p.Files, name)
		section := fmt.Sprintf("\n## %s\n\n%s\n", name, strings.TrimSpace(string(data)))
		if room := Cap - body.Len(); len(section) > room {
			// Cut at the end of a line, so no word or character is split.
			keep := section[:max(room, 0)]
			if i := strings.LastIndexByte(keep, '\n'); i > 0 {
				keep = keep[:i+1]
			}
			body.WriteString(keep)
			fmt.Fprintf(&body, "\n\n[The project instructions were cut here: together they pass the %d KiB limit, so the rest of %s", Cap>>10, name)
			if rest := len(files) - len(p.Files); rest > 0 {
				body.WriteString(" and the files after it")
			}
			body.WriteString(" were left out.]\n")
			p.Cut = true
			break
		}
		body.WriteString(section)
	}
	if body.Len() > 0 {
		b.WriteString("\nProject instructions, from the AGENTS.md files below (the user's own first, then from the repository root down to the workspace); follow them:\n")
		b.WriteString(body.String())
	}
	p.Text = b.String()
	return p
}

// pathDown returns the folders from top down to dir, both included; dir
// must be at or below top.
func pathDown(top, dir string) []string {
	var up []string
	for d := dir; ; d = filepath.Dir(d) {
		up = append(up, d)
		if d == top || filepath.Dir(d) == d {
			break
		}
	}
	out := make([]string, len(up))
	for i, d := range up {
		out[len(up)-1-i] = d
	}
	return out
}

// gitRoot returns the nearest folder at or above dir that holds .git, and
// says which branch it is on; "" when there is none.
func gitRoot(dir string) (root, branch string) {
	for d := dir; ; d = filepath.Dir(d) {
		gitPath := filepath.Join(d, ".git")
		if info, err := os.Stat(gitPath); err == nil {
			return d, gitBranch(gitPath, info.IsDir())
		}
		if filepath.Dir(d) == d {
			return "", ""
		}
	}
}

// gitBranch reads the branch from the HEAD of the repository at gitPath (a
// folder, or a worktree's file that points to one).
func gitBranch(gitPath string, isDir bool) string {
	gitDir := gitPath
	if !isDir {
		data, err := os.ReadFile(gitPath)
		if err != nil {
			return "on an unknown branch"
		}
		gitDir = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(data)), "gitdir:"))
		if !filepath.IsAbs(gitDir) {
			gitDir = filepath.Join(filepath.Dir(gitPath), gitDir)
		}
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return "on an unknown branch"
	}
	h := strings.TrimSpace(string(head))
	if ref, ok := strings.CutPrefix(h, "ref: refs/heads/"); ok {
		return "on branch " + ref
	}
	if len(h) >= 7 {
		return "with a detached HEAD at " + h[:7]
	}
	return "on an unknown branch"
}
