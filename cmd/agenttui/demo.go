package main

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"time"

	"github.com/agenttui/agenttui/assets"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
)

// demoScenario returns the built-in demo scenario.
func demoScenario() (*model.Scenario, error) { return assets.DemoScenario() }

// prepareDemoWorkspace copies the sample workspace into a fresh temporary
// folder, so the demo never touches the person's files.
func prepareDemoWorkspace() (dir string, cleanup func(), err error) {
	return assets.CopySampleWorkspace()
}

// pacedTool slows a demo tool down so a person watching the console can see
// calls wait, run side by side and finish. The pause depends only on the
// call's arguments, so a demo plays the same way every time. It is used for
// the console's demo only; headless runs and real models run tools at full
// speed.
type pacedTool struct {
	tool.Tool
	base time.Duration
}

// pacedFootprinter keeps the footprint of a paced tool that computes one.
type pacedFootprinter struct {
	*pacedTool
	fp tool.Footprinter
}

func (p pacedFootprinter) Footprint(args json.RawMessage) (tool.Touches, error) {
	return p.fp.Footprint(args)
}

// Sandbox keeps what a paced tool says about its calls' sandbox, so the
// demo's board shows its shell command sandboxed as a real session would.
func (p pacedFootprinter) Sandbox(args json.RawMessage) *tool.Sandbox {
	if s, ok := p.Tool.(tool.Sandboxer); ok {
		return s.Sandbox(args)
	}
	return nil
}

// pace wraps t so that each call first pauses between base and twice base.
func pace(t tool.Tool, base time.Duration) tool.Tool {
	pt := &pacedTool{Tool: t, base: base}
	if fp, ok := t.(tool.Footprinter); ok {
		return pacedFootprinter{pacedTool: pt, fp: fp}
	}
	return pt
}

// Call pauses, then runs the tool; a cancelled context ends the pause.
func (p *pacedTool) Call(ctx context.Context, args json.RawMessage) tool.Return {
	h := fnv.New32a()
	h.Write(args)
	d := p.base + time.Duration(h.Sum32()%1000)*p.base/1000
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return tool.Fail(tool.Cancelled("stopped before it began"), "The call was stopped before it began.")
	case <-t.C:
	}
	return p.Tool.Call(ctx, args)
}
