package workspace

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/agenttui/agenttui/runtime/tool"
)

// Bounds of run_shell.
const (
	// shellDefaultTimeout is how long a command may run when the call does
	// not say.
	shellDefaultTimeout = 120 * time.Second
	// shellMaxTimeout is the longest a call may ask for.
	shellMaxTimeout = 600 * time.Second
	// shellHeadBytes and shellTailBytes are how much of the start and the end
	// of a long output are kept; the middle is cut, since errors tend to be
	// at the end and what was run at the start.
	shellHeadBytes = 32 << 10
	shellTailBytes = 32 << 10
	// shellDrainGrace is how long the output is still read after the
	// command's process group was killed, for a process that left the group
	// (setsid) but still holds the output open.
	shellDrainGrace = 2 * time.Second
)

type runShellArgs struct {
	Command  string `json:"command"`
	TimeoutS int    `json:"timeout_s"`
	// Sandbox false asks for an unsandboxed run; absent or true means the
	// sandbox, when there is one.
	Sandbox *bool `json:"sandbox"`
}

func (w *Workspace) runShellTool() tool.Tool {
	description := "Run a command with bash -c in the workspace folder and return its output: stdout and " +
		"stderr together, in order, then a last line with the exit status. Standard input is empty, so " +
		"the command must not wait for input. timeout_s is how long it may run (default 120, at most " +
		"600); a command that runs longer is killed. When the command ends, every process it started is " +
		"ended too, so background jobs do not outlive the call. Output over 64 KiB keeps its start and " +
		"its end with a note saying how much was cut. A non-zero exit status makes the call an error; " +
		"read the output to see why."
	properties := `"command": {"type": "string", "minLength": 1, "description": "The bash command line to run."},
		"timeout_s": {"type": "integer", "minimum": 1, "maximum": 600, "description": "Seconds the command may run; default 120."}`
	if w.shell.Enabled() {
		// Only a sandbox gives the model something to leave.
		description += " " + w.sandboxDescription()
		properties += `, "sandbox": {"type": "boolean", "description": "false asks to run the command outside the sandbox; the person is always asked to approve that. Default true."}`
	}
	return &previewing[runShellArgs]{preview: w.previewShell, builtin: &builtin[runShellArgs]{
		decl: tool.Declaration{
			Name:        "run_shell",
			Description: description,
			Parameters:  schema("{"+properties+"}", "command"),
			Annotations: tool.Annotations{Title: "Run shell command", Destructive: true, OpenWorld: true},
			More: "to see the rest, run the command again with its output redirected to a file, and read that in parts " +
				"with read_file or filter it with grep, head or tail",
		},
		footprint: w.shellTouches,
		run:       w.runShell,
		confine:   w.shellSandbox,
	}}
}

// shellTimeout is how long a call may run: what it asks for, within the
// bounds, or the default.
func shellTimeout(a runShellArgs) time.Duration {
	if a.TimeoutS > 0 {
		return min(time.Duration(a.TimeoutS)*time.Second, shellMaxTimeout)
	}
	return shellDefaultTimeout
}

func (w *Workspace) runShell(ctx context.Context, a runShellArgs) tool.Return {
	timeout := shellTimeout(a)
	// One pipe for stdout and stderr keeps their order. It is an *os.File,
	// so exec hands it to the command directly and Wait does not wait for
	// anything that still holds it open.
	pr, pw, err := os.Pipe()
	if err != nil {
		msg := fmt.Sprintf("could not start the command: %v", err)
		return tool.Fail(tool.Other(msg), msg)
	}
	defer pr.Close()
	// The files the command names, as they were, to tell afterwards
	// whether its output may show a new one (see shell_fresh.go).
	named := w.namedStamps(a.Command)
	cmd := exec.Command("bash", "-c", a.Command)
	cmd.Dir = w.root
	cmd.Stdout, cmd.Stderr = pw, pw
	// Its own process group lets one signal reach every process the
	// command starts, however deep.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	sandboxed := w.sandboxed(a)
	run := cmd
	if sandboxed {
		// The sandbox's helper (a spare started ahead, or one started
		// now) takes the command's group and pipe and becomes the
		// command, so its process is the one to wait for and kill.
		run, err = w.shell.Start(cmd)
	} else {
		err = cmd.Start()
	}
	pw.Close()
	if err != nil {
		msg := fmt.Sprintf("could not start the command: %v", err)
		return tool.Fail(tool.Other(msg), msg)
	}
	pgid := run.Process.Pid

	out := &headTail{}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		io.Copy(out, pr)
	}()
	waitDone := make(chan error, 1)
	go func() { waitDone <- run.Wait() }()

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var ended string
	select {
	case <-waitDone:
	case <-timer.C:
		ended = "timeout"
		killGroup(pgid)
		<-waitDone
	case <-ctx.Done():
		ended = "cancelled"
		killGroup(pgid)
		<-waitDone
	}
	// bash has exited. Whatever it left running in its group is ended too,
	// so nothing keeps running unseen or holds the output open.
	killGroup(pgid)
	grace := time.NewTimer(shellDrainGrace)
	defer grace.Stop()
	select {
	case <-readDone:
	case <-grace.C:
		pr.Close()
		<-readDone
	}

	text := out.String()
	if raw := string(out.head) + string(out.tail); tool.IsBinary(raw) {
		// Mojibake would cost the model many tokens and say nothing; the
		// exit status below still tells how the command ended.
		text = tool.DescribeBinary(raw, out.total) + "\n"
	}
	if text == "" {
		text = "(no output)\n"
	} else if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	// What the command printed is the shell's; a command that could not
	// start printed nothing, and its failure above is agenttui's own.
	src := tool.Source{Kind: tool.SourceShell, Fresh: w.printedFresh(a.Command, named, text)}
	switch ended {
	case "timeout":
		text += fmt.Sprintf("… timed out after %s; the command and every process it started were killed\n", timeout)
		f := tool.Timeout(fmt.Sprintf("command timed out after %s", timeout))
		f.Code = tool.TimeoutCode(timeout)
		return tool.Fail(f, text).From(src)
	case "cancelled":
		text += "… cancelled; the command and every process it started were killed\n"
		return tool.Fail(tool.Cancelled("command cancelled"), text).From(src)
	}
	status, code, end := exitStatus(run.ProcessState)
	text += "exit status: " + status
	if sandboxed && code != 0 {
		text += w.sandboxNote(out.String())
	}
	if code != 0 {
		// How it ended travels as the failure's code, so the console
		// and scripts can say "exit 3" without reading the output.
		f := tool.Other("command exited with status " + status)
		f.Code = end
		return tool.Fail(f, text).From(src)
	}
	return tool.Ok(text).From(src)
}

// killGroup sends SIGKILL to every process of the group pgid. Its error is
// ignored: ESRCH means the group is already gone, and for anything else
// there is nothing better to do than go on waiting for the command.
func killGroup(pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// exitStatus describes how the command ended, and returns its exit code (-1
// when a signal ended it) and the failure code that says so (tool.ExitCode,
// tool.SignalCode; empty for an exit status of 0 or an unknown end).
func exitStatus(state *os.ProcessState) (status string, code int, end string) {
	if state == nil {
		return "unknown", -1, ""
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		name := unix.SignalName(ws.Signal())
		if name == "" {
			name = ws.Signal().String()
		}
		return "killed by signal " + ws.Signal().String(), -1, tool.SignalCode(name)
	}
	code = state.ExitCode()
	if code == 0 {
		return "0", 0, ""
	}
	return fmt.Sprint(code), code, tool.ExitCode(code)
}

// headTail keeps the first shellHeadBytes and the last shellTailBytes of
// what is written to it, and counts the rest. One goroutine writes; String
// is called after it is done.
type headTail struct {
	head  []byte
	tail  []byte
	total int64
}

// Write keeps p's bytes in the head while it has room and in the tail after
// that; it never fails.
func (h *headTail) Write(p []byte) (int, error) {
	n := len(p)
	h.total += int64(n)
	if room := shellHeadBytes - len(h.head); room > 0 {
		take := min(room, len(p))
		h.head = append(h.head, p[:take]...)
		p = p[take:]
	}
	h.tail = append(h.tail, p...)
	// Trim only when twice the size, so the copying is amortised.
	if len(h.tail) > 2*shellTailBytes {
		h.tail = append(h.tail[:0], h.tail[len(h.tail)-shellTailBytes:]...)
	}
	return n, nil
}

// String returns the kept output as valid UTF-8, with a note where the
// middle was cut.
func (h *headTail) String() string {
	tail := h.tail
	if len(tail) > shellTailBytes {
		tail = tail[len(tail)-shellTailBytes:]
	}
	cut := h.total - int64(len(h.head)) - int64(len(tail))
	if cut == 0 {
		return strings.ToValidUTF8(string(h.head)+string(tail), "\uFFFD")
	}
	// Cut at rune boundaries so the note is not glued to half a character.
	head := trimRune(h.head)
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	cut = h.total - int64(len(head)) - int64(len(tail))
	return strings.ToValidUTF8(string(head), "\uFFFD") +
		fmt.Sprintf("\n… %d bytes cut …\n", cut) +
		strings.ToValidUTF8(string(tail), "\uFFFD")
}
