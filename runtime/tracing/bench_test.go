package tracing_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/agenttui/agenttui/internal/otlphttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tracing"
)

// benchCalls is the size of the benchmark's reply, as in the runtime's own
// per-call benchmark.
const benchCalls = 1000

// benchAgent returns an agent whose first reply makes benchCalls no-op
// calls, each reading its own path, and whose second reply finishes, with
// sink as its Sink.
func benchAgent(b *testing.B, sink runtime.Sink) *runtime.Agent {
	calls := make([]model.ScriptedCall, benchCalls)
	for i := range calls {
		calls[i] = model.ScriptedCall{Name: "read", Args: json.RawMessage(fmt.Sprintf(`{"path":"f%d"}`, i))}
	}
	m := model.NewScripted("bench", &model.Scenario{Steps: []model.Step{
		{Calls: calls},
		{Calls: []model.ScriptedCall{{Name: "finish", Args: json.RawMessage(`{"summary":"done"}`)}}},
	}})
	cat, err := runtime.NewCatalog(pathTool{name: "read"})
	if err != nil {
		b.Fatal(err)
	}
	hook := runtime.HookFunc(func(context.Context, runtime.CallInfo) runtime.Flow { return runtime.Continue("mode:auto", "") })
	return &runtime.Agent{Model: m, Catalog: cat, Hooks: []runtime.Hook{hook}, Sink: sink}
}

// runBench runs the reply b.N times and then drain, which waits until the
// spans of every run are made and exported, and reports the time per call
// and the CPU time the process spent per call (all its goroutines: the
// run's, the tracer's, the exporter's and the receiver's), which a busy
// machine disturbs less than the time. The runs follow one another as a
// long session's replies do: the spans of one are exported while the next
// runs.
func runBench(b *testing.B, a *runtime.Agent, drain func()) {
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for range b.N {
		if out := a.Run(context.Background(), runtime.NewSession("b"), "go"); out.Status != runtime.StatusSucceeded {
			b.Fatalf("outcome %+v", out)
		}
	}
	if drain != nil {
		drain()
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchCalls), "ns/call")
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N*benchCalls), "cpu-ns/call")
}

// cpuTime returns the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPerCallTracing measures what tracing adds to each call of a
// 1,000-call reply of tools that do nothing (the runtime's
// BenchmarkPerCallOverhead workload):
//
//   - off: the sink as the command wires it when traces are off, which
//     checks for a tracer and finds none;
//   - spans: spans are made and handed to a batch processor whose exporter
//     drops them;
//   - otlp: the whole pipeline as the command sets it up, through the
//     OTLP/HTTP exporter to a local receiver, with the batch processor made
//     to block rather than drop spans so every span is paid for.
//
// Every span is made and exported before the time stops.
func BenchmarkPerCallTracing(b *testing.B) {
	b.Run("off", func(b *testing.B) {
		var events int
		var tr *tracing.Tracer
		runBench(b, benchAgent(b, func(e runtime.Event) {
			events++
			if tr != nil {
				tr.Event(e)
			}
		}), nil)
	})
	b.Run("spans", func(b *testing.B) {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()),
			sdktrace.WithIDGenerator(tracing.IDs{}))
		defer tp.Shutdown(context.Background())
		tr := tracing.New(tp, tracing.Options{TraceID: tracing.NewTraceID(), Redact: redact.New()})
		defer tr.Close()
		runBench(b, benchAgent(b, tr.Event), func() {
			tr.Flush()
			if err := tp.ForceFlush(context.Background()); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("otlp", func(b *testing.B) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
		}))
		defer srv.Close()
		client, err := otlphttp.FromEnv(func(k string) string {
			if k == "OTEL_EXPORTER_OTLP_ENDPOINT" {
				return srv.URL
			}
			return ""
		})
		if err != nil {
			b.Fatal(err)
		}
		exp, err := otlptrace.New(context.Background(), client)
		if err != nil {
			b.Fatal(err)
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp, sdktrace.WithBlocking()),
			sdktrace.WithIDGenerator(tracing.IDs{}))
		defer tp.Shutdown(context.Background())
		tr := tracing.New(tp, tracing.Options{TraceID: tracing.NewTraceID(), Redact: redact.New()})
		defer tr.Close()
		runBench(b, benchAgent(b, tr.Event), func() {
			tr.Flush()
			if err := tp.ForceFlush(context.Background()); err != nil {
				b.Fatal(err)
			}
		})
	})
}
