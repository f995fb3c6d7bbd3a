package sandbox

import (
	"encoding/json"
	"fmt"
)

// helperCommand is the hidden first argument that makes a program linking
// this package run as the sandbox helper.
const helperCommand = "__agenttui_sandbox"

// spareCommand is the hidden first argument that makes a program linking
// this package run as a spare helper: started ahead of time, it waits for one
// command on its control socket (file descriptor 3). See spare_linux.go.
const spareCommand = "__agenttui_sandbox_spare"

// The bytes a spare sends the console on its control socket: spareReady once
// it waits for a command; then, for the command, spareStarted once it is in
// the command's folder and on its way to apply the sandbox and execute the
// command, or spareRefused and the error number (four bytes, little-endian)
// when it could not change to that folder.
const (
	spareReady   = 'r'
	spareStarted = 's'
	spareRefused = 'x'
)

// helperFailed is the exit status of a helper that could not apply the
// sandbox; the command then never ran.
const helperFailed = 125

// helperPrefix starts the one line a failing helper writes to its standard
// error, which is the command's output.
const helperPrefix = "agenttui sandbox: "

// devices are the device files a sandboxed command may write: they hold
// nothing and reach nothing.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// policy is what the helper enforces, passed to it as its second argument in
// JSON. Everything is readable and executable; these may be changed.
type policy struct {
	// Write lists folders (or files) that may be changed whole, but for
	// the Protected paths inside them.
	Write []string `json:"write,omitempty"`
	// Protected lists paths inside Write that stay read-only: the
	// workspace's .git with ProtectGit, the trusted hooks' files. Landlock
	// cannot take a path back from a writable folder above it, so a Write
	// folder that holds one is granted entry by entry down to it: each
	// entry whole but the protected one and the folders on the way to it,
	// which are granted the same way in their turn.
	Protected []string `json:"protected,omitempty"`
	// Network lets the command open network connections.
	Network bool `json:"network,omitempty"`
}

func (p policy) encode() (string, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	return string(b), nil
}

func decodePolicy(s string) (policy, error) {
	var p policy
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		return p, fmt.Errorf("bad policy: %w", err)
	}
	return p, nil
}

// request is the one command a spare helper runs, in JSON on its control
// socket; the command's standard input, output and error travel beside it
// as file descriptors. Everything the command gets comes from here, decided
// when the command was asked for, never from the spare's own start.
type request struct {
	// Path is the program to execute, Args its arguments from argv[0].
	Path string   `json:"path"`
	Args []string `json:"args"`
	// Env is the command's whole environment, TMPDIR included.
	Env []string `json:"env"`
	// Dir is the absolute folder the command runs in.
	Dir string `json:"dir"`
	// Policy is what the sandbox lets the command do.
	Policy policy `json:"policy"`
}
