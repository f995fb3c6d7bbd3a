package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	agentrt "github.com/agenttui/agenttui/runtime"
)

// instructionsCap bounds the project instructions the system prompt carries,
// all files together.
const instructionsCap = 32 << 10

// instructionsFile is the name of the files that hold project instructions.
const instructionsFile = "AGENTS.md"

// prompt is the system prompt of a session: the runtime's own, an
// environment block, and the project instructions.
type prompt struct {
	text string
	// files are the instruction files that were read, in order, as paths
	// for people (relative to the repository root where they can be).
	files []string
	// cut says the instructions passed the cap and the rest was left out.
	cut bool
}

// summary says which instruction files were loaded, for the header:
// "AGENTS.md ×2"; empty when none was.
func (p prompt) summary() string {
	switch len(p.files) {
	case 0:
		return ""
	case 1:
		return p.files[0]
	}
	return fmt.Sprintf("%s ×%d", instructionsFile, len(p.files))
}

// systemPrompt builds the system prompt for a session in workspace: the
// runtime's prompt, the environment (date, system, workspace, git), then the
// project instructions: the user's own file ($XDG_CONFIG_HOME/agenttui/
// AGENTS.md) first, then every AGENTS.md from the repository root down to
// the workspace, in that order. The repository root is the nearest folder
// at or above the workspace that holds .git; without one, the workspace
// alone is looked in.
func systemPrompt(workspace string, now time.Time) prompt {
	root, branch := gitRoot(workspace)
	var b strings.Builder
	b.WriteString(agentrt.DefaultSystemPrompt)
	b.WriteString("\n\nEnvironment:\n")
	fmt.Fprintf(&b, "- Today's date: %s\n", now.Format("2006-01-02"))
	fmt.Fprintf(&b, "- Operating system: %s/%s\n", runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&b, "- Workspace: %s\n", workspace)
	if root == "" {
		b.WriteString("- Git: the workspace is not in a git repository\n")
	} else {
		fmt.Fprintf(&b, "- Git: the workspace is in a git repository at %s, %s\n", root, branch)
	}

	var files []string
	if dir := userConfigDir(); dir != "" {
		files = append(files, filepath.Join(dir, "agenttui", instructionsFile))
	}
	top := root
	if top == "" {
		top = workspace
	}
	for _, dir := range pathDown(top, workspace) {
		files = append(files, filepath.Join(dir, instructionsFile))
	}
	p := prompt{}
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
		p.files = append(p.files, name)
		section := fmt.Sprintf("\n## %s\n\n%s\n", name, strings.TrimSpace(string(data)))
		if room := instructionsCap - body.Len(); len(section) > room {
			// Cut at the end of a line, so no word or character is split.
			keep := section[:max(room, 0)]
			if i := strings.LastIndexByte(keep, '\n'); i > 0 {
				keep = keep[:i+1]
			}
			body.WriteString(keep)
			fmt.Fprintf(&body, "\n\n[The project instructions were cut here: together they pass the %d KiB limit, so the rest of %s", instructionsCap>>10, name)
			if rest := len(files) - len(p.files); rest > 0 {
				body.WriteString(" and the files after it")
			}
			body.WriteString(" were left out.]\n")
			p.cut = true
			break
		}
		body.WriteString(section)
	}
	if body.Len() > 0 {
		b.WriteString("\nProject instructions, from the AGENTS.md files below (the user's own first, then from the repository root down to the workspace); follow them:\n")
		b.WriteString(body.String())
	}
	p.text = b.String()
	return p
}

// userConfigDir returns $XDG_CONFIG_HOME, else ~/.config.
func userConfigDir() string {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		return d
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".config")
	}
	return ""
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
