// Command testserver is a small MCP server over stdio for the tests of
// runtime/mcp and of the agenttui binary. Its tools misbehave on request:
// they fail, hang until cancelled, kill their own process mid-call, start
// a child process, or change the tool list.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	noInit := flag.Bool("noinit", false, "read requests and never answer, ignoring SIGTERM and the end of input")
	badSchema := flag.Bool("badschema", false, "also offer a tool whose input schema does not compile")
	oddNames := flag.Bool("oddnames", false, "also offer tools whose names need sanitising or are too long")
	crash := flag.Bool("crash", false, "say why on stderr and exit before answering anything")
	flag.Parse()

	if *crash {
		fmt.Fprintln(os.Stderr, "testserver: starting up")
		fmt.Fprintln(os.Stderr, "fatal: cannot open the database")
		os.Exit(3)
	}

	if *noInit {
		signal.Ignore(syscall.SIGTERM)
		buf := make([]byte, 4096)
		for {
			if _, err := os.Stdin.Read(buf); err != nil {
				select {} // input closed: still do not go away
			}
		}
	}

	server := mcp.NewServer(&mcp.Implementation{Name: "testserver", Version: "1"}, nil)
	add := func(name, desc, schema string, readOnly bool, h func(ctx context.Context, args map[string]any) *mcp.CallToolResult) {
		server.AddTool(&mcp.Tool{
			Name: name, Description: desc, InputSchema: json.RawMessage(schema),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: readOnly},
		}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args map[string]any
			_ = json.Unmarshal(req.Params.Arguments, &args)
			return h(ctx, args), nil
		})
	}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	str := func(args map[string]any, key string) string { s, _ := args[key].(string); return s }
	const noArgs = `{"type":"object","properties":{},"additionalProperties":false}`

	add("echo", "Echoes its text.", `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`, true,
		func(_ context.Context, args map[string]any) *mcp.CallToolResult { return text(str(args, "text")) })
	add("fail", "Always reports an error.", noArgs, false, func(context.Context, map[string]any) *mcp.CallToolResult {
		r := text("the thing went wrong: disk on fire")
		r.IsError = true
		return r
	})
	add("die", "Kills its own server mid-call.", noArgs, false, func(context.Context, map[string]any) *mcp.CallToolResult {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	})
	add("hang", "Says it started into the FIFO at path, waits until cancelled, then says so there too.",
		`{"type":"object","properties":{"fifo":{"type":"string"}},"required":["fifo"]}`, true,
		func(ctx context.Context, args map[string]any) *mcp.CallToolResult {
			say := func(s string) {
				if f, err := os.OpenFile(str(args, "fifo"), os.O_WRONLY, 0); err == nil {
					fmt.Fprintln(f, s)
					f.Close()
				}
			}
			say("started")
			<-ctx.Done()
			say("cancelled")
			return text("cancelled")
		})
	add("spawn", "Starts a long sleep and returns its process id.", noArgs, false, func(context.Context, map[string]any) *mcp.CallToolResult {
		cmd := exec.Command("sleep", "300")
		if err := cmd.Start(); err != nil {
			return text("cannot start: " + err.Error())
		}
		return text(strconv.Itoa(cmd.Process.Pid))
	})
	add("pid", "Returns the server's process id.", noArgs, true, func(context.Context, map[string]any) *mcp.CallToolResult {
		return text(strconv.Itoa(os.Getpid()))
	})
	add("env", "Returns an environment variable.", `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`, true,
		func(_ context.Context, args map[string]any) *mcp.CallToolResult {
			return text(os.Getenv(str(args, "name")))
		})
	add("structured", "Returns structured content only.", noArgs, true, func(context.Context, map[string]any) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]any{"answer": 42}}
	})
	add("big", "Returns bytes bytes of text, in lines.", `{"type":"object","properties":{"bytes":{"type":"integer"}},"required":["bytes"]}`, true,
		func(_ context.Context, args map[string]any) *mcp.CallToolResult {
			n, _ := args["bytes"].(float64)
			line := "a line of text from the big tool, which says nothing in particular\n"
			var b strings.Builder
			for b.Len() < int(n) {
				b.WriteString(line)
			}
			return text(b.String()[:int(n)])
		})
	add("binary", "Returns bytes that are not text.", noArgs, true, func(context.Context, map[string]any) *mcp.CallToolResult {
		b := make([]byte, 4096)
		for i := range b {
			b[i] = byte(i * 7 % 32)
		}
		return text(string(b))
	})
	add("change", "Adds the tool added_later and removes fail.", noArgs, false, func(context.Context, map[string]any) *mcp.CallToolResult {
		add("added_later", "Appeared after a change.", noArgs, true, func(context.Context, map[string]any) *mcp.CallToolResult {
			return text("I am new")
		})
		server.RemoveTools("fail")
		return text("changed")
	})
	if *badSchema {
		add("broken", "Has a schema that does not compile.", `{"type":"object","properties":{"x":{"type":"nonsense"}}}`, true,
			func(context.Context, map[string]any) *mcp.CallToolResult { return text("never") })
	}
	if *oddNames {
		add("dotted.name", "Has a dot in its name.", noArgs, true, func(context.Context, map[string]any) *mcp.CallToolResult {
			return text("dotted")
		})
		add(strings.Repeat("long", 16), "Has a name too long for providers.", noArgs, true, func(context.Context, map[string]any) *mcp.CallToolResult {
			return text("long")
		})
	}
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		os.Exit(1)
	}
}
