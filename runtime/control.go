package runtime

import (
	"context"
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"sync"

	"github.com/agenttui/agenttui/runtime/tool"
)

// The control tools the runtime always declares.
const (
	// AskUser ends the run as refused with a clarification question.
	AskUser = "ask_user"
	// Finish ends the run as succeeded with a summary and extracted data.
	Finish = "finish"
	// Remember writes a key of the run's shared memory.
	Remember = "remember"
)

// IsControl reports whether name is one of the runtime's control tools.
func IsControl(name string) bool { return name == AskUser || name == Finish || name == Remember }

// endsRun reports whether a successful call to name ends the run: finish and
// ask_user do. Only the first such call of a reply takes effect.
func endsRun(name string) bool { return name == Finish || name == AskUser }

// Memory is the session's shared memory, written by remember and used as the
// default extracted data of a succeeded run. Its methods are safe for
// concurrent use: calls of one reply write it side by side.
type Memory struct {
	mu     sync.Mutex // guards values
	values map[string]json.RawMessage
}

// NewMemory returns an empty memory.
func NewMemory() *Memory { return &Memory{values: map[string]json.RawMessage{}} }

// Set stores value under key.
func (m *Memory) Set(key string, value json.RawMessage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.values[key] = slices.Clone(value)
}

// Snapshot returns a copy of every key and value.
func (m *Memory) Snapshot() map[string]json.RawMessage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.values)
}

// Len returns the number of keys.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.values)
}

type memoryKey struct{}

// withMemory lets the remember tool find the session's memory: the catalogue
// is shared and immutable, the memory belongs to one session.
func withMemory(ctx context.Context, m *Memory) context.Context {
	return context.WithValue(ctx, memoryKey{}, m)
}

func memoryFrom(ctx context.Context) *Memory {
	m, _ := ctx.Value(memoryKey{}).(*Memory)
	return m
}

// MemoryScope returns the footprint scope of one memory key.
func MemoryScope(key string) tool.Scope { return tool.Paths("/mem/" + url.PathEscape(key)) }

type controlTool struct {
	decl      tool.Declaration
	footprint func(args json.RawMessage) tool.Touches
	call      func(ctx context.Context, args json.RawMessage) tool.Return
}

func (c *controlTool) Declaration() tool.Declaration { return c.decl }

func (c *controlTool) Footprint(args json.RawMessage) (tool.Touches, error) {
	return c.footprint(args), nil
}

func (c *controlTool) Call(ctx context.Context, args json.RawMessage) tool.Return {
	return c.call(ctx, args)
}

func controlTools() []tool.Tool {
	return []tool.Tool{
		&controlTool{
			decl: tool.Declaration{
				Name: AskUser,
				Description: "Ask the person a clarification question when the goal is ambiguous or too risky to attempt " +
					"as stated. The run pauses; the person's answer arrives as a user message.",
				Parameters: json.RawMessage(`{"type":"object","properties":{"question":{"type":"string","minLength":1,` +
					`"description":"The question, complete and self-contained."}},"required":["question"],"additionalProperties":false}`),
				Annotations: tool.Annotations{ReadOnly: true},
			},
			footprint: func(json.RawMessage) tool.Touches { return tool.Reads(tool.Scope{}) },
			call: func(context.Context, json.RawMessage) tool.Return {
				return tool.Ok("The question was put to the person; their answer will follow as a user message.")
			},
		},
		&controlTool{
			decl: tool.Declaration{
				Name: Finish,
				Description: "End the run when the goal is reached: a short summary for the person and the data " +
					"the run extracted (merged over what was remembered).",
				Parameters: json.RawMessage(`{"type":"object","properties":{"summary":{"type":"string","minLength":1,` +
					`"description":"What was done, for the person."},"data":{"description":"Structured results; ` +
					`keys override remembered keys of the same name."}},"required":["summary"],"additionalProperties":false}`),
				Annotations: tool.Annotations{ReadOnly: true},
			},
			footprint: func(json.RawMessage) tool.Touches { return tool.Reads(tool.Paths("/mem")) },
			call: func(context.Context, json.RawMessage) tool.Return {
				return tool.Ok("Finished: the run ends once the other calls of this reply have settled.")
			},
		},
		&controlTool{
			decl: tool.Declaration{
				Name: Remember,
				Description: "Store a value in the run's shared memory under a key. What is remembered becomes the " +
					"run's extracted data unless finish overrides it.",
				Parameters: json.RawMessage(`{"type":"object","properties":{"key":{"type":"string","minLength":1},` +
					`"value":{"description":"Any JSON value."}},"required":["key","value"],"additionalProperties":false}`),
			},
			footprint: func(args json.RawMessage) tool.Touches {
				var a struct{ Key string }
				_ = json.Unmarshal(args, &a)
				return tool.Writes(MemoryScope(a.Key))
			},
			call: func(ctx context.Context, args json.RawMessage) tool.Return {
				var a struct {
					Key   string          `json:"key"`
					Value json.RawMessage `json:"value"`
				}
				if err := json.Unmarshal(args, &a); err != nil {
					return tool.Fail(tool.InvalidArgs(err.Error()), nil)
				}
				m := memoryFrom(ctx)
				if m == nil {
					return tool.Fail(tool.Other("no memory is attached to this run"), nil)
				}
				m.Set(a.Key, a.Value)
				return tool.Ok("Remembered " + a.Key + ".")
			},
		},
	}
}
