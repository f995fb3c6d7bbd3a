package main

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"time"

	"github.com/agenttui/agenttui/runtime/tool"
)

// pacedTool slows a demo tool down so a person watching the console can see
// calls wait, run side by side and finish. The pause depends only on the
// call's arguments, so a demo plays the same way every time. It is used for
// the console's demo only; headless runs and real models run tools at full
// speed.
type pacedTool struct {
	tool.Tool
	base time.Duration
}

// pace wraps t so that each call first pauses between base and twice base.
// Its footprint and preview stay t's (see tool.Wrapper).
func pace(t tool.Tool, base time.Duration) tool.Tool { return &pacedTool{Tool: t, base: base} }

// Unwrap returns the paced tool.
func (p *pacedTool) Unwrap() tool.Tool { return p.Tool }

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
