package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// freshGoEnv is this process's environment with home as HOME and Go left
// to its defaults there: its build cache is home/.cache/go-build, as on a
// new user's machine. Go stays off the network.
func freshGoEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "HOME", "GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOENV", "XDG_CACHE_HOME":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "GOTOOLCHAIN=local", "GOPROXY=off", "NO_COLOR=1")
}

// needGo skips a test that runs the go command where there is none.
func needGo(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
}

// toolchainScenario builds a tiny module in the workspace and leaves a file
// in Go's build cache (Go itself tolerates a cache it cannot write when it
// finds what it needs there), then writes in the home folder.
const toolchainScenario = `{"steps": [
  {"calls": [{"name": "run_shell", "args": {"command": "go env GOCACHE && go build -o tiny . && ./tiny && touch \"$(go env GOCACHE)/written-from-$(basename \"$(dirname \"$PWD\")\")\""}},
             {"name": "run_shell", "args": {"command": "echo x > \"$HOME/x\""}}]},
  {"text": "done"}]}`

// TestSandboxedToolchainsWriteTheirCaches checks that in a fresh home, with
// Go's default build cache (filled with the standard library, so that this
// builds only the module), a sandboxed go build succeeds, since the sandbox
// lets commands write the caches Go reports, while a write elsewhere in the
// home folder is still refused; and that the configuration can keep the
// caches read-only, in which case the build fails as it did before. (A
// build in a home with no cache at all is the sandbox package's
// TestGoBuildsInTheSandbox.)
func TestSandboxedToolchainsWriteTheirCaches(t *testing.T) {
	needLandlock(t)
	needGo(t)
	// run returns the run's result, its calls' ends, the build's sandbox,
	// and the file the build leaves in Go's cache.
	run := func(t *testing.T, config string) (result, map[int]map[string]any, map[string]any, string) {
		ws, home := t.TempDir(), sharedGoHome(t)
		for name, body := range map[string]string{
			"go.mod": "module example.com/tiny\n\ngo 1.22\n",
			// Each run's source is its own, so Go has to build and
			// store it rather than find it in the cache.
			"main.go": "package main\n\n// " + t.Name() + "\nfunc main() { println(\"built\") }\n",
		} {
			if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if config != "" {
			writeConfig(t, ws, config)
		}
		cmd := exec.Command(binary, "run", "--json", "--mode", "auto", "--workspace", ws,
			"--scenario", writeScenario(t, toolchainScenario), "build it")
		cmd.Dir = ws
		cmd.Env = freshGoEnv(home)
		r := execute(t, cmd)
		finished := map[int]map[string]any{}
		var sandbox map[string]any
		for _, ev := range events(t, r.stdout) {
			switch ev["type"] {
			case "call_finished":
				finished[num(ev["index"])] = ev
			case "reply":
				if calls, _ := ev["calls"].([]any); len(calls) > 0 {
					sandbox, _ = calls[0].(map[string]any)["sandbox"].(map[string]any)
				}
			}
		}
		if _, err := os.Stat(filepath.Join(home, "x")); !os.IsNotExist(err) {
			t.Errorf("a sandboxed command wrote in the home folder: %v", err)
		}
		return r, finished, sandbox, filepath.Join(home, ".cache", "go-build", "written-from-"+filepath.Base(filepath.Dir(ws)))
	}

	t.Run("caches writable", func(t *testing.T) {
		r, finished, sandbox, marker := run(t, "")
		home := sharedGoHome(t)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		build := finished[0]
		result, _ := build["result"].(string)
		if build["outcome"] != "success" || !strings.Contains(result, filepath.Join(home, ".cache", "go-build")) || !strings.Contains(result, "built\n") {
			t.Errorf("the go build: %v", build)
		}
		if _, err := os.Stat(marker); err != nil {
			t.Errorf("the command did not write Go's build cache: %v", err)
		}
		if elsewhere := finished[1]; elsewhere["outcome"] != "error" || !strings.Contains(elsewhere["result"].(string), "Permission denied") {
			t.Errorf("the write in the home folder: %v", elsewhere)
		}
		caches, _ := sandbox["caches"].([]any)
		if len(caches) == 0 || caches[0] != filepath.Join(home, ".cache") {
			t.Errorf("the call's sandbox names the caches %v, want %s first", caches, filepath.Join(home, ".cache"))
		}
	})
	t.Run("caches kept read-only", func(t *testing.T) {
		_, finished, sandbox, marker := run(t, `{"sandbox": {"toolchain_caches": false}}`)
		build := finished[0]
		if build["outcome"] != "error" || !strings.Contains(build["result"].(string), "Permission denied") {
			t.Errorf("with the caches read-only, the go build: %v", build)
		}
		if _, err := os.Stat(marker); !os.IsNotExist(err) {
			t.Errorf("the command wrote Go's build cache while it was read-only: %v", err)
		}
		if sandbox["caches"] != nil {
			t.Errorf("the call's sandbox names caches: %v", sandbox)
		}
	})
}

// TestTasksWriteTheCachesToo checks that a task's agent, whose sandboxed
// commands may change only the paths it declared, may still write the
// toolchains' caches: its command runs, and is not refused for writing
// beyond its paths.
func TestTasksWriteTheCachesToo(t *testing.T) {
	needLandlock(t)
	ws, home := tasksWorkspace(t), t.TempDir()
	if err := os.Mkdir(filepath.Join(home, ".cache"), 0o755); err != nil {
		t.Fatal(err)
	}
	sc := writeScenario(t, `{"steps": [
	  {"calls": [{"name": "task", "args": {"description": "build", "prompt": "Build.", "agent": "general", "writes": ["src"]}}]},
	  {"expect": ["Its summary: built"], "calls": [{"name": "finish", "args": {"summary": "done"}}]}],
	 "tasks": {"build": {"steps": [
	  {"calls": [{"name": "run_shell", "args": {"command": "echo built > src/out.txt && touch \"$HOME/.cache/from-task\""}}]},
	  {"expect": ["exit status: 0"], "calls": [{"name": "finish", "args": {"summary": "built"}}]}]}}}`)
	cmd := exec.Command(binary, "run", "--json", "--mode", "auto", "--workspace", ws, "--scenario", sc, "build")
	cmd.Dir = ws
	cmd.Env = freshGoEnv(home)
	if r := execute(t, cmd); r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	for _, p := range []string{filepath.Join(ws, "src", "out.txt"), filepath.Join(home, ".cache", "from-task")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("the task's command did not write %s: %v", p, err)
		}
	}
}

// TestToolchainsAreAskedOnlyWhenNeeded checks that a session asks the
// toolchains where their caches are only once a shell command needs them:
// one that runs no command starts none of them, and one that runs two asks
// each once.
func TestToolchainsAreAskedOnlyWhenNeeded(t *testing.T) {
	needLandlock(t)
	bin, asked := t.TempDir(), filepath.Join(t.TempDir(), "asked")
	for _, name := range []string{"go", "npm", "pip3"} {
		writeFile(t, filepath.Join(bin, name), "#!/bin/sh\necho "+name+" >> "+asked+"\n")
		if err := os.Chmod(filepath.Join(bin, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run := func(scenario string) {
		t.Helper()
		ws := workspaceWithNotes(t)
		cmd := exec.Command(binary, "run", "--mode", "auto", "--speed", "1", "--workspace", ws, "--scenario", writeScenario(t, scenario), "go")
		cmd.Env = append(freshGoEnv(t.TempDir()), "PATH="+bin+":"+os.Getenv("PATH"))
		if r := execute(t, cmd); r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
	}
	// Two seconds, long enough for anything started a moment after the
	// session to have begun.
	run(`{"steps": [{"calls": [{"name": "read_file", "args": {"path": "notes.txt"}}]}, {"delay_ms": 2000, "text": "done"}]}`)
	if data, err := os.ReadFile(asked); err == nil {
		t.Errorf("a session that ran no command asked the toolchains: %q", data)
	}
	run(`{"steps": [{"calls": [{"name": "run_shell", "args": {"command": "true"}}]},
	  {"calls": [{"name": "run_shell", "args": {"command": "true"}}]}, {"text": "done"}]}`)
	data, _ := os.ReadFile(asked)
	if lines := strings.Fields(string(data)); len(lines) != 3 {
		t.Errorf("a session that ran two commands asked %q, want go, npm and pip3 once each", lines)
	}
}
