// Package workspace provides the built-in tools over one workspace folder:
// read_file, list_dir, glob, grep, write_file, edit_file and run_shell, and
// web_fetch, which reads a web page (see web.go and SetWeb).
//
// Every path argument is confined to the workspace. A path is resolved the way
// the kernel would resolve it, following symbolic links, and a call whose
// path ends up outside the workspace is denied by the tool itself (outcome
// denied) with a reason the model reads. File operations then go through an
// os.Root opened on the workspace, so a symbolic link swapped in between the
// check and the operation cannot lead outside either.
//
// Each tool computes a precise footprint from its arguments: reading a file
// touches only that file, so reads of different files, and writes of
// different files, run side by side. Footprints name resolved, absolute,
// clean paths, and never fail for ordinary arguments: a path that cannot be
// resolved inside the workspace is footprinted as given, and the call is
// denied when it runs.
//
// list_dir, glob and grep see the tree through one walker that runs on
// several goroutines, never follows a symbolic link, and leaves out .git and
// what git would ignore: the .gitignore files at every level (and those
// above the workspace up to its repository's root), .ignore files,
// .git/info/exclude and git's global excludes file. Their results say how
// many ignored paths were left out; include_ignored: true brings them back,
// and a path named outright is listed or searched whole.
//
// Outputs are plain text for the model, with workspace-relative paths.
// Errors are reported with these failure kinds:
//
//   - not_found: the named file or folder does not exist, or web_fetch's
//     host has no address.
//   - invalid_args: the arguments cannot be used as given: a folder where a
//     file is expected or the other way round, a binary file for read_file,
//     edit text that is missing or ambiguous, a bad regular expression or
//     glob pattern, an offset past the end of a file, a URL that is not
//     http or https.
//   - permission_denied: the operating system refused the operation.
//   - timeout: run_shell ran out of time; the command was killed. Or a
//     web_fetch took longer than its time limit.
//   - cancelled: the call's context was cancelled; a running command was
//     killed.
//   - network: web_fetch could not reach the server, or it answered 502 or
//     503. web_fetch's other error statuses map to not_found (404, 410),
//     permission_denied (401, 403), rate_limited (429), timeout (408, 504)
//     and other, with the status in Failure.HTTPStatus.
//   - other: a command exited with a non-zero status or was killed by a
//     signal, or an unexpected input/output error; a page that redirected
//     more than five times.
//
// A path outside the workspace is not an error but a denial (tool.Deny),
// and so is a web_fetch that would connect to a local or private address
// (see SetWeb) or follow a redirect to a scheme other than http and https.
package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/runtime/workspace/sandbox"
)

// Workspace is a folder the built-in tools work in. Its root is absolute and
// has its symbolic links resolved, so that paths resolved against it can be
// compared with it component by component.
type Workspace struct {
	root string
	// shell is the sandbox run_shell runs its commands in; nil leaves them
	// unsandboxed and says nothing about it (see SetSandbox).
	shell *sandbox.Sandbox
	// web configures web_fetch; its zero value means the defaults (see
	// SetWeb).
	web WebOptions
	// sessionStart is when the session began; a file changed at or after
	// it is fresh (see SetSessionStart). Zero: nothing is fresh.
	sessionStart time.Time
}

// New returns the workspace rooted at dir, which must exist and be a folder.
// The root is made absolute and its symbolic links are resolved once, here.
func New(dir string) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	info, err := os.Stat(resolved)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("workspace: %s is not a folder", dir)
	}
	return &Workspace{root: filepath.Clean(resolved)}, nil
}

// Root returns the workspace's absolute root, with symbolic links resolved.
func (w *Workspace) Root() string { return w.root }

// Tools returns the built-in tools over the workspace, in a fixed order:
// read_file, list_dir, glob, grep, write_file, edit_file, run_shell,
// web_fetch. Each implements tool.Footprinter.
//
// Results say where their output came from (tool.Return.Source):
// read_file the file it read, grep, glob and list_dir the folder or file
// searched or listed (fresh when any file they print a line or the name of
// is fresh; see SetSessionStart), run_shell the shell, web_fetch the host
// of the page it ended at. write_file and edit_file set none: their output
// is agenttui's own account of what they did.
func (w *Workspace) Tools() []tool.Tool {
	return []tool.Tool{
		w.readFileTool(),
		w.listDirTool(),
		w.globTool(),
		w.grepTool(),
		w.writeFileTool(),
		w.editFileTool(),
		w.runShellTool(),
		w.webFetchTool(),
	}
}

// Tools returns the built-in tools over the workspace rooted at root; see
// New and Workspace.Tools.
func Tools(root string) ([]tool.Tool, error) {
	w, err := New(root)
	if err != nil {
		return nil, err
	}
	return w.Tools(), nil
}

// builtin is one tool of the workspace. A is the tool's argument struct;
// keeping the decoding in one place means every tool rejects arguments it
// cannot use the same way.
type builtin[A any] struct {
	decl      tool.Declaration
	footprint func(A) tool.Touches
	run       func(context.Context, A) tool.Return
	// confine, when set, says how a call runs with respect to a sandbox.
	confine func(A) *tool.Sandbox
}

// Declaration returns the tool's declaration.
func (b *builtin[A]) Declaration() tool.Declaration { return b.decl }

// Call decodes the arguments and runs the tool.
func (b *builtin[A]) Call(ctx context.Context, raw json.RawMessage) tool.Return {
	args, err := decodeArgs[A](raw)
	if err != nil {
		msg := fmt.Sprintf("%s did not run: its arguments could not be used: %v", b.decl.Name, err)
		return tool.Fail(tool.InvalidArgs(msg), msg)
	}
	if err := ctx.Err(); err != nil {
		msg := fmt.Sprintf("%s did not run: the call was cancelled before it started", b.decl.Name)
		return tool.Fail(tool.Cancelled(msg), msg)
	}
	return b.run(ctx, args)
}

// Footprint returns what a call with raw arguments touches. It fails only
// when the arguments do not decode, which the schema check rules out.
func (b *builtin[A]) Footprint(raw json.RawMessage) (tool.Touches, error) {
	args, err := decodeArgs[A](raw)
	if err != nil {
		return tool.Touches{}, fmt.Errorf("%s: %w", b.decl.Name, err)
	}
	return b.footprint(args).Normalized(), nil
}

// Sandbox says how a call with raw arguments runs with respect to a
// sandbox (tool.Sandboxer); nil for tools that never confine their calls.
func (b *builtin[A]) Sandbox(raw json.RawMessage) *tool.Sandbox {
	if b.confine == nil {
		return nil
	}
	args, err := decodeArgs[A](raw)
	if err != nil {
		return nil
	}
	return b.confine(args)
}

// decodeArgs decodes a JSON object into A, refusing unknown fields, as the
// schemas do, so that a misspelt optional argument is not silently ignored.
func decodeArgs[A any](raw json.RawMessage) (A, error) {
	var args A
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&args); err != nil {
		return args, err
	}
	return args, nil
}

// schema returns a strict object schema with the given properties (a JSON
// object text) and required names.
func schema(properties string, required ...string) json.RawMessage {
	var props map[string]json.RawMessage
	if err := json.Unmarshal([]byte(properties), &props); err != nil {
		panic("workspace: bad schema properties: " + err.Error())
	}
	if required == nil {
		required = []string{}
	}
	out, err := json.Marshal(map[string]any{
		"type":                 "object",
		"properties":           props,
		"required":             required,
		"additionalProperties": false,
	})
	if err != nil {
		panic("workspace: bad schema: " + err.Error())
	}
	return out
}
