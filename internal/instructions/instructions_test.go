package instructions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestProjectInstructions loads AGENTS.md from the repository root and the
// workspace below it, the user's own first, into the system prompt in that
// order, with the environment; a 100 KiB file is cut at the cap, with a
// note.
func TestProjectInstructions(t *testing.T) {
	repo := t.TempDir()
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	ws := filepath.Join(repo, "services", "api")
	for _, d := range []string{filepath.Join(repo, ".git"), ws, filepath.Join(config, "agenttui")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/feature/x\n")
	writeFile(t, filepath.Join(config, "agenttui", "AGENTS.md"), "Answer in British English.")
	writeFile(t, filepath.Join(repo, "AGENTS.md"), "Run make test before finishing.")
	writeFile(t, filepath.Join(ws, "AGENTS.md"), "This service is written in Go.")
	p := SystemPrompt("", ws, t0Date)
	user, root, here := strings.Index(p.Text, "British English"), strings.Index(p.Text, "make test"), strings.Index(p.Text, "written in Go")
	if user < 0 || root < 0 || here < 0 || !(user < root && root < here) {
		t.Fatalf("the instructions are missing or out of order:\n%s", p.Text)
	}
	for _, want := range []string{"Date the session began: 2026-11-30", "Workspace: " + ws, "git repository at " + repo + ", on branch feature/x",
		"## AGENTS.md", "## services/api/AGENTS.md"} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, p.Text)
		}
	}
	if p.Summary() != "AGENTS.md ×3" || p.Cut {
		t.Errorf("summary %q cut %v", p.Summary(), p.Cut)
	}

	writeFile(t, filepath.Join(repo, "AGENTS.md"), strings.Repeat("A long rule that goes on and on.\n", 100<<10/33))
	p = SystemPrompt("", ws, t0Date)
	if !p.Cut || !strings.Contains(p.Text, "[The project instructions were cut here: together they pass the 32 KiB limit, so the rest of AGENTS.md and the files after it were left out.]") {
		t.Fatalf("a 100 KiB file was not cut with a note (cut %v)", p.Cut)
	}
	if n := len(p.Text) - strings.Index(p.Text, "Project instructions"); n > Cap+1000 {
		t.Errorf("%d bytes of instructions, over the cap", n)
	}
	if strings.Contains(p.Text, "written in Go") {
		t.Error("a file after the cap was kept")
	}

	plain := t.TempDir()
	if p := SystemPrompt("", plain, t0Date); !strings.Contains(p.Text, "not in a git repository") || strings.Contains(p.Text, "make test") {
		t.Errorf("outside a repository:\n%s", p.Text)
	}
}

// t0Date is the date the prompt tests build their prompts on.
var t0Date = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
