package anthropic

import (
	"strconv"
	"sync"

	"github.com/agenttui/agenttui/runtime/model/internal/jsonw"
)

// encode writes the request as the JSON body of a streaming Messages
// request. It is written by hand rather than by the SDK's marshalling,
// which walks the parameters by reflection and compacts each level's
// output again: for a long conversation (200 turns with thinking, a
// megabyte of JSON) that took some 16 ms a request, and this about 1.6 ms
// (BenchmarkRequest200TurnsThinking). The SDK still sends the request,
// reads the stream and sets "stream", which is written first so that it
// finds it at once.
func (r *request) encode() []byte {
	size := 256 + len(r.system)
	for _, t := range r.tools {
		size += 64 + len(t.name) + len(t.description) + len(t.schema)
	}
	for _, m := range r.messages {
		for _, b := range m.blocks {
			size += 64 + len(b.text) + len(b.data) + len(b.id) + len(b.name) + len(b.input)
		}
	}
	w := newBody(size + size/16)
	w = append(w, `{"stream":true,"model":`...)
	w = jsonw.AppendString(w, r.model)
	w = append(w, `,"max_tokens":`...)
	w = strconv.AppendInt(w, int64(r.plan.maxTokens), 10)
	if r.system != "" {
		w = append(w, `,"system":[{"type":"text","text":`...)
		w = jsonw.AppendString(w, r.system)
		w = appendCache(w, r.systemCache)
		w = append(w, "}]"...)
	}
	if len(r.tools) > 0 {
		w = append(w, `,"tools":[`...)
		for i, t := range r.tools {
			if i > 0 {
				w = append(w, ',')
			}
			w = append(w, `{"name":`...)
			w = jsonw.AppendString(w, t.name)
			if t.description != "" {
				w = append(w, `,"description":`...)
				w = jsonw.AppendString(w, t.description)
			}
			w = append(w, `,"input_schema":`...)
			w = append(w, t.schema...)
			w = appendCache(w, t.cache)
			w = append(w, '}')
		}
		w = append(w, ']')
	}
	w = r.plan.appendThinking(w)
	w = append(w, `,"messages":[`...)
	for i, m := range r.messages {
		if i > 0 {
			w = append(w, ',')
		}
		w = append(w, `{"role":`...)
		w = jsonw.AppendString(w, m.role)
		w = append(w, `,"content":[`...)
		for j, b := range m.blocks {
			if j > 0 {
				w = append(w, ',')
			}
			w = b.append(w)
		}
		w = append(w, "]}"...)
	}
	return append(w, "]}"...)
}

// bodies holds the buffers of request bodies for reuse: the body of a long
// session's request is a megabyte or more, and a fresh one every turn costs
// the garbage collector and the kernel more than writing it does.
var bodies sync.Pool // of *[]byte

// newBody returns an empty buffer that holds size bytes.
func newBody(size int) []byte {
	if p, _ := bodies.Get().(*[]byte); p != nil && cap(*p) >= size {
		return (*p)[:0]
	}
	return make([]byte, 0, size)
}

// releaseBody gives back the buffer of a body once the request is sent.
func releaseBody(b []byte) { bodies.Put(&b) }

// appendThinking writes the plan's thinking and output_config fields.
func (p plan) appendThinking(w []byte) []byte {
	switch p.mode {
	case modeAdaptive:
		w = append(w, `,"thinking":{"type":"adaptive"`...)
		if p.display != "" {
			w = append(w, `,"display":`...)
			w = jsonw.AppendString(w, p.display)
		}
		if p.dropBlocks {
			w = append(w, `,"block_binding":{"prefix_mismatch_behavior":"drop_block"}`...)
		}
		w = append(w, '}')
	case modeEnabled:
		w = append(w, `,"thinking":{"type":"enabled","budget_tokens":`...)
		w = strconv.AppendInt(w, int64(p.budget), 10)
		if p.display != "" {
			w = append(w, `,"display":`...)
			w = jsonw.AppendString(w, p.display)
		}
		w = append(w, '}')
	case modeDisabled:
		w = append(w, `,"thinking":{"type":"disabled"}`...)
	case modeBetweenTools:
		// between_tools takes no other field: a display beside it is a 400.
		w = append(w, `,"thinking":{"type":"between_tools"}`...)
	}
	if p.effort != "" {
		w = append(w, `,"output_config":{"effort":`...)
		w = jsonw.AppendString(w, p.effort)
		w = append(w, '}')
	}
	return w
}

// append writes the block.
func (b wireBlock) append(w []byte) []byte {
	switch b.kind {
	case blockText:
		w = append(w, `{"type":"text","text":`...)
		w = jsonw.AppendString(w, b.text)
	case blockThinking:
		w = append(w, `{"type":"thinking","thinking":`...)
		w = jsonw.AppendString(w, b.text)
		w = append(w, `,"signature":`...)
		w = jsonw.AppendString(w, b.data)
	case blockRedacted:
		w = append(w, `{"type":"redacted_thinking","data":`...)
		w = jsonw.AppendString(w, b.data)
	case blockToolUse:
		w = append(w, `{"type":"tool_use","id":`...)
		w = jsonw.AppendString(w, b.id)
		w = append(w, `,"name":`...)
		w = jsonw.AppendString(w, b.name)
		w = append(w, `,"input":`...)
		w = jsonw.AppendCompact(w, []byte(b.input), "{}")
	case blockToolResult:
		w = append(w, `{"type":"tool_result","tool_use_id":`...)
		w = jsonw.AppendString(w, b.id)
		if b.text != "" {
			w = append(w, `,"content":[{"type":"text","text":`...)
			w = jsonw.AppendString(w, b.text)
			w = append(w, "}]"...)
		}
		if b.isError {
			w = append(w, `,"is_error":true`...)
		}
	}
	w = appendCache(w, b.cache)
	return append(w, '}')
}

// appendCache writes a cache breakpoint when cache is set.
func appendCache(w []byte, cache bool) []byte {
	if cache {
		w = append(w, `,"cache_control":{"type":"ephemeral"}`...)
	}
	return w
}
