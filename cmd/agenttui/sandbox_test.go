package main

import (
	"bytes"
	"github.com/agenttui/agenttui/internal/launch"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/runtime/workspace/sandbox"
)

// needLandlock skips a test that runs commands in the sandbox where the
// kernel has no Landlock.
func needLandlock(t *testing.T) {
	t.Helper()
	if sandbox.Detect().ABI < 1 {
		t.Skip("this kernel has no Landlock, so sandboxed commands cannot be run here")
	}
}

// withoutLandlock plays a kernel without Landlock for the rest of the test.
func withoutLandlock(t *testing.T) {
	t.Helper()
	launch.LandlockSupport = func() sandbox.Support { return sandbox.Support{} }
	t.Cleanup(func() { launch.LandlockSupport = sandbox.Detect })
}

// runMain runs the command in this process, so a test can replace what the
// kernel is said to offer.
func runMain(t *testing.T, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Main(args, strings.NewReader(""), &stdout, &stderr)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// TestUnavailableSandboxIsExit2 checks that asking for a sandbox this kernel
// cannot give — by flag or by configuration — is one line and exit 2, never
// a silent downgrade, and that by default such a kernel runs shell commands
// unsandboxed and says so.
func TestUnavailableSandboxIsExit2(t *testing.T) {
	withoutLandlock(t)
	ws := workspaceWithNotes(t)
	for _, mode := range []string{"workspace-write", "read-only"} {
		r := runMain(t, "run", "--workspace", ws, "--sandbox", mode, "--scenario", scenario(t, "succeeds.json"), "go")
		want := "agenttui: the " + mode + " sandbox cannot be had: this kernel has no Landlock; " +
			"run with --sandbox off to run shell commands unsandboxed\n"
		if r.code != 2 || r.stderr != want {
			t.Errorf("--sandbox %s: exit %d, stderr %q; want 2 and %q", mode, r.code, r.stderr, want)
		}
	}
	writeConfig(t, ws, `{"sandbox": {"mode": "workspace-write"}}`)
	if r := runMain(t, "run", "--workspace", ws, "--scenario", scenario(t, "succeeds.json"), "go"); r.code != 2 ||
		!strings.HasPrefix(r.stderr, "agenttui: the workspace-write sandbox cannot be had") {
		t.Errorf("configured mode: exit %d, stderr %q", r.code, r.stderr)
	}
	// The flag wins over the configuration.
	r := runMain(t, "run", "--workspace", ws, "--sandbox", "off", "--scenario", scenario(t, "succeeds.json"), "go")
	if r.code != 0 || !strings.Contains(r.stderr, "agenttui: shell: not sandboxed: the sandbox is off\n") {
		t.Errorf("--sandbox off: exit %d, stderr %q", r.code, r.stderr)
	}
	os.Remove(filepath.Join(ws, "agenttui.json"))

	shell := writeScenario(t, `{"steps": [
	  {"calls": [{"name": "run_shell", "args": {"command": "echo hi"}}]},
	  {"expect": ["hi"], "text": "done"}]}`)
	r = runMain(t, "run", "--workspace", ws, "--mode", "auto", "--scenario", shell, "go")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{"agenttui: shell: not sandboxed: this kernel has no Landlock\n", "[writes anything · not sandboxed]"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

// TestSandboxConfiguration checks the "sandbox" and "approval" keys of the
// configuration file and the --sandbox flag: mistakes are one line and
// exit 2.
func TestSandboxConfiguration(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"bad mode", `{"sandbox": {"mode": "strict"}}`, `sandbox.mode: unknown sandbox mode "strict": use workspace-write, read-only or off`},
		{"network not a boolean", `{"sandbox": {"network": "no"}}`, "sandbox.network: expected true or false, got a string"},
		{"writable not an array", `{"sandbox": {"writable": "dist"}}`, "sandbox.writable: expected an array of folders, got a string"},
		{"writable item not a string", `{"sandbox": {"writable": [3]}}`, "sandbox.writable[0]: expected a folder, got a number"},
		{"unknown sandbox key", `{"sandbox": {"paths": []}}`, "sandbox.paths: unknown key (known keys: mode, network, writable, protect_git, toolchain_caches)"},
		{"toolchain_caches not a boolean", `{"sandbox": {"toolchain_caches": "no"}}`, "sandbox.toolchain_caches: expected true or false, got a string"},
		{"bad sandboxed_shell", `{"approval": {"sandboxed_shell": "yes"}}`, `approval.sandboxed_shell: must be "allow"`},
		{"unknown approval key", `{"approval": {"shell": "allow"}}`, "approval.shell: unknown key (known keys: sandboxed_shell)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := workspaceWithNotes(t)
			path := writeConfig(t, ws, c.body)
			r := runBinary(t, ws, "", "run", "--scenario", scenario(t, "succeeds.json"), "go")
			line := strings.TrimRight(r.stderr, "\n")
			if r.code != 2 || strings.Contains(line, "\n") || !strings.HasPrefix(line, "agenttui: config "+path+": ") || !strings.Contains(line, c.want) {
				t.Errorf("exit %d, stderr %q; want 2 and one line containing %q", r.code, r.stderr, c.want)
			}
		})
	}
	ws := workspaceWithNotes(t)
	r := runBinary(t, ws, "", "run", "--sandbox", "strict", "--scenario", scenario(t, "succeeds.json"), "go")
	if r.code != 2 || r.stderr != "agenttui: --sandbox: unknown sandbox mode \"strict\": use workspace-write, read-only or off\n" {
		t.Errorf("--sandbox strict: exit %d, %q", r.code, r.stderr)
	}
	writeConfig(t, ws, `{"sandbox": {"writable": ["no/such/folder"]}}`)
	r = runBinary(t, ws, "", "run", "--scenario", scenario(t, "succeeds.json"), "go")
	if r.code != 2 || !strings.Contains(r.stderr, "sandbox writable no/such/folder: ") || !strings.Contains(r.stderr, "does not exist") {
		t.Errorf("a missing writable folder: exit %d, %q", r.code, r.stderr)
	}
}

// escalation is a scenario in which the model's write beside the workspace
// is refused by the sandbox, and the model, having read why, asks for an
// unsandboxed run of the same command.
const escalation = `{"name": "escalation", "steps": [
  {"text": "Writing the report beside the workspace.",
   "calls": [{"name": "run_shell", "args": {"command": "echo report > ../report.txt"}}]},
  {"expect": ["../report.txt: Permission denied", "The sandbox may have blocked this command", "\"sandbox\": false"],
   "text": "The sandbox refused; asking to run it unsandboxed.",
   "calls": [{"name": "run_shell", "args": {"command": "echo report > ../report.txt", "sandbox": false}}]},
  {"expect": ["%s"], "calls": [{"name": "finish", "args": {"summary": "done"}}]}]}`

// sandboxedWorkspace returns a workspace folder inside a folder of its own,
// so that ../report.txt lies outside the workspace but inside the test.
func sandboxedWorkspace(t *testing.T) (ws, report string) {
	t.Helper()
	base := t.TempDir()
	ws = filepath.Join(base, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	return ws, filepath.Join(base, "report.txt")
}

// TestHeadlessEscalation runs the escalation headless: in auto mode the
// unsandboxed run is still skipped, since nobody can approve it, unless an
// allow rule names it.
func TestHeadlessEscalation(t *testing.T) {
	needLandlock(t)
	ws, report := sandboxedWorkspace(t)
	skipped := writeScenario(t, strings.Replace(escalation, "%s", "this run is headless, so nobody can give it", 1))
	r := runBinary(t, ws, "", "run", "--json", "--mode", "auto", "--scenario", skipped, "write the report")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(report); err == nil {
		t.Fatal("the report was written although nobody approved the unsandboxed run")
	}
	evs := events(t, r.stdout)
	var sandboxes []map[string]any
	var decision map[string]any
	for _, ev := range evs {
		switch ev["type"] {
		case "reply":
			for _, c := range ev["calls"].([]any) {
				if sb, ok := c.(map[string]any)["sandbox"].(map[string]any); ok {
					sandboxes = append(sandboxes, sb)
				}
			}
		case "call_decision":
			if ev["turn"] == 2.0 {
				decision = ev
			}
		}
	}
	if len(sandboxes) != 2 || sandboxes[0]["sandboxed"] != true || sandboxes[1]["escalated"] != true {
		t.Errorf("the reply events' sandboxes: %v", sandboxes)
	}
	if decision["decision"] != "skip" || decision["by"] != "headless" ||
		!strings.Contains(decision["reason"].(string), "run_shell asks to run outside its sandbox") {
		t.Errorf("the unsandboxed run's decision: %v", decision)
	}

	allowed := writeScenario(t, strings.Replace(escalation, "%s", "exit status: 0", 1))
	r = runBinary(t, ws, "", "run", "--mode", "auto", "--allow", "run_shell(sandbox=false, command=echo report *)", "--scenario", allowed, "write the report")
	if r.code != 0 {
		t.Fatalf("with the rule: exit %d\nstderr %s", r.code, r.stderr)
	}
	if data, err := os.ReadFile(report); err != nil || string(data) != "report\n" {
		t.Errorf("the allowed unsandboxed run did not write the report: %q %v", data, err)
	}
	if !strings.Contains(r.stderr, "[writes anything · asks to run unsandboxed]") {
		t.Errorf("the progress does not mark the unsandboxed call:\n%s", r.stderr)
	}
}

// TestConsoleEscalation runs the escalation end to end in the console: the
// sandbox refuses the write, the model asks for sandbox false, the console
// asks the person although the mode is auto, and once approved the command
// runs unsandboxed.
func TestConsoleEscalation(t *testing.T) {
	needLandlock(t)
	ws, report := sandboxedWorkspace(t)
	sc := writeScenario(t, strings.Replace(escalation, "%s", "exit status: 0", 1))
	term := startConsole(t, e2eCols, e2eRows, nil, "--workspace", ws, "--mode", "auto", "--scenario", sc, "write the report")
	s := term.WaitFor("shell: sandboxed (workspace-write + caches, no network)", e2eStep)
	if !strings.Contains(screenRows(s)[1], "shell: sandboxed (workspace-write + caches, no network) · Goal: write the report") {
		t.Errorf("the header does not say the shell is sandboxed:\n%s", s)
	}
	s = term.WaitForFunc("the unsandboxed run asking for approval", func(s string) bool {
		return strings.Contains(s, "Calls · turn 2") && strings.Contains(s, "? needs approval")
	}, e2eStep)
	for _, want := range []string{"W * unsandboxed", "sandbox: none: it asked to run unsandboxed (sandbox: false)",
		"asks the person, by sandbox:false: run_shell asks to run outside its sandbox"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
	if _, err := os.Stat(report); err == nil {
		t.Fatal("the report was written before the person approved")
	}
	toBoard(t, term)
	approveWhenReady(t, term, "#1 run_shell")
	term.WaitFor("✓ Succeeded", e2eStep)
	if data, err := os.ReadFile(report); err != nil || string(data) != "report\n" {
		t.Errorf("the approved run did not write the report: %q %v", data, err)
	}
	if code := quitConsole(t, term); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// TestSandboxFromGoRun checks that the helper works when agenttui runs
// through "go run", whose binary lives in a temporary build folder.
func TestSandboxFromGoRun(t *testing.T) {
	needLandlock(t)
	if testing.Short() {
		t.Skip("go run links the binary again; skipped with -short")
	}
	ws, report := sandboxedWorkspace(t)
	sc := writeScenario(t, `{"steps": [
	  {"calls": [{"name": "run_shell", "args": {"command": "echo inside > in.txt; echo report > ../report.txt"}}]},
	  {"expect": ["../report.txt: Permission denied", "The sandbox may have blocked this command"], "text": "done"}]}`)
	pkg, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", ".", "run", "--workspace", ws, "--mode", "auto", "--scenario", sc, "go")
	cmd.Dir = pkg
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOTOOLCHAIN=local")
	r := execute(t, cmd)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.code, r.stderr)
	}
	if data, err := os.ReadFile(filepath.Join(ws, "in.txt")); err != nil || string(data) != "inside\n" {
		t.Errorf("the write inside: %q %v", data, err)
	}
	if _, err := os.Stat(report); err == nil {
		t.Error("the write outside got through")
	}
}
