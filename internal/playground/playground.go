// Package playground makes the folder a scenario plays in when it carries
// its own workspace: its txtar archive, read beside the scenario file (or
// from the binary for the built-in demo), unpacked safely into an empty
// folder the person named or into a temporary one that goes when agenttui
// exits. A scenario so plays the same way on every machine, and the demo
// never touches the person's files.
package playground

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agenttui/agenttui/assets"
	"github.com/agenttui/agenttui/internal/txtar"
	"github.com/agenttui/agenttui/runtime/model"
)

// Options say where a scenario's workspace comes from and goes to.
type Options struct {
	// ScenarioFile is the scenario's file; its archive is read beside it.
	ScenarioFile string
	// Demo says the scenario is the built-in demo, whose archive is in
	// the binary and which always plays in a temporary folder.
	Demo bool
	// Into is the folder --workspace named, which must be empty; "" makes
	// a temporary one.
	Into string
}

// Playground is the folder a scenario that carries its workspace works in.
type Playground struct {
	// Dir is the folder, with the archive unpacked in it.
	Dir string
	// Temp says Dir is a fresh temporary folder, which Cleanup removes, so
	// the session in it cannot be resumed and is not journaled.
	Temp bool
	// archive names the scenario's workspace archive, for messages.
	archive string
}

// Error is a scenario workspace that cannot be made as asked: an archive
// that cannot be read or names files outside its folder, or a --workspace
// that is not empty. The command treats it as a usage error.
type Error struct {
	// Problem says what is wrong, in one line.
	Problem string
}

func (e *Error) Error() string { return e.Problem }

// Prepare unpacks the workspace archive sc names, if it names one, and
// returns the folder it is in; nil when sc carries no workspace.
func Prepare(sc *model.Scenario, o Options) (*Playground, error) {
	if sc == nil || sc.Workspace == "" {
		return nil, nil
	}
	var data []byte
	var err error
	name := sc.Workspace
	if o.Demo {
		data, err = assets.ReadFile(sc.Workspace)
		name = "the built-in demo's " + sc.Workspace
	} else {
		name = filepath.Join(filepath.Dir(o.ScenarioFile), filepath.FromSlash(sc.Workspace))
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, &Error{fmt.Sprintf("scenario file %s: workspace %s cannot be read: %v", o.ScenarioFile, name, unwrapPathError(err))}
	}
	a, err := txtar.Parse(data)
	if err != nil {
		return nil, &Error{fmt.Sprintf("scenario workspace %s: %v", name, err)}
	}
	p := &Playground{archive: name}
	if !o.Demo && o.Into != "" {
		entries, err := os.ReadDir(o.Into)
		if err != nil {
			return nil, &Error{fmt.Sprintf("--workspace %s: %v", o.Into, err)}
		}
		if len(entries) > 0 {
			return nil, &Error{fmt.Sprintf("--workspace %s is not empty: the scenario brings its own workspace (%s), which is unpacked "+
				"into an empty --workspace, or into a temporary folder when --workspace is not given", o.Into, name)}
		}
		p.Dir = o.Into
	} else {
		prefix := "agenttui-scenario-"
		if o.Demo {
			prefix = "agenttui-demo-"
		}
		if p.Dir, err = os.MkdirTemp("", prefix); err != nil {
			return nil, fmt.Errorf("creating the scenario's workspace: %w", err)
		}
		p.Temp = true
	}
	if err := a.Unpack(p.Dir); err != nil {
		p.Cleanup()
		return nil, fmt.Errorf("unpacking %s into %s: %w", name, p.Dir, err)
	}
	return p, nil
}

// Cleanup removes the folder when it is temporary; a folder the person
// named is kept, files and all.
func (p *Playground) Cleanup() {
	if p.Temp {
		os.RemoveAll(p.Dir)
	}
}

// Note says where a scenario plays that carries its workspace, when the
// folder is temporary, so nobody looks for the session's files or its
// journal afterwards.
func (p *Playground) Note() string {
	return fmt.Sprintf("this scenario works in a temporary folder made from its workspace archive (%s): %s. "+
		"It is removed when agenttui exits, and the session is not journaled; "+
		"to keep both, pass --workspace with an empty folder", p.archive, p.Dir)
}

// unwrapPathError returns the cause of a path error alone, since the
// messages name the path themselves.
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
