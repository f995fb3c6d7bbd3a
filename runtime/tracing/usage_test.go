package tracing_test

import (
	"context"
	"math"
	"testing"

	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"

	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/tool"
	"github.com/agenttui/agenttui/runtime/tracing"
)

// cachedModel replies with a finish and reports a usage with cached,
// cache-written and reasoning tokens, as a provider with a prompt cache
// does.
type cachedModel struct{}

func (cachedModel) Name() string { return "anthropic:claude-test" }

func (cachedModel) Reply(context.Context, model.Request, func(model.Delta)) (model.Reply, error) {
	return model.Reply{
		Calls: []tool.Call{{ID: "c1", Name: "finish", Arguments: `{"summary":"done"}`}},
		Stop:  model.StopToolCalls,
		Usage: model.Usage{InputTokens: 10_000, CacheReadTokens: 9_000, CacheWriteTokens: 500, OutputTokens: 400, ReasoningTokens: 300},
	}, nil
}

// TestSpansCarryCacheReasoningAndCost checks a chat span and its run's span
// say how much input came from the cache, how much output was reasoning,
// and what the turn cost at the configured price.
func TestSpansCarryCacheReasoningAndCost(t *testing.T) {
	cat, err := runtime.NewCatalog()
	if err != nil {
		t.Fatal(err)
	}
	tp, sr := recorder(t)
	tr := tracing.New(tp, tracing.Options{TraceID: tracing.NewTraceID(), Redact: redact.New()})
	a := &runtime.Agent{Model: cachedModel{}, Catalog: cat, Sink: tr.Event,
		Prices: model.Prices{"anthropic:claude-test": {Input: 3, CachedInput: 0.3, CacheWrite: 3.75, Output: 15}}}
	if out := a.Run(context.Background(), runtime.NewSession("s1"), "go"); out.Status != runtime.StatusSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	tr.Close()
	all := spans(sr.Ended())
	want := (500*3 + 9_000*0.3 + 500*3.75 + 400*15) / 1e6
	for _, sp := range append(all.named("chat claude-test"), all.named(tracing.SpanInvokeAgent)...) {
		if got := attr(sp, semconv.GenAIUsageCacheReadInputTokensKey).AsInt64(); got != 9_000 {
			t.Errorf("%s: cache read %d", sp.Name(), got)
		}
		if got := attr(sp, semconv.GenAIUsageCacheCreationInputTokensKey).AsInt64(); got != 500 {
			t.Errorf("%s: cache written %d", sp.Name(), got)
		}
		if got := attr(sp, semconv.GenAIUsageReasoningOutputTokensKey).AsInt64(); got != 300 {
			t.Errorf("%s: reasoning %d", sp.Name(), got)
		}
		if got := attr(sp, tracing.AttrCostUSD).AsFloat64(); math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: cost %v, want %v", sp.Name(), got, want)
		}
	}
	if len(all.named("chat claude-test")) != 1 {
		t.Errorf("spans %v", names(all))
	}
}
