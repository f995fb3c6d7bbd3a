// Package traces exports a session's OpenTelemetry spans as the standard
// OTEL_ environment variables ask: it reads the settings, sets up the SDK's
// provider over an OTLP/HTTP client that never links gRPC, hands out the
// runtime/tracing subscriber that makes the spans, and flushes them on exit
// within a bound, so that a collector that is down never holds the terminal.
package traces

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttui/agenttui/internal/otlphttp"
	"github.com/agenttui/agenttui/internal/redact"
	"github.com/agenttui/agenttui/runtime/journal"
	"github.com/agenttui/agenttui/runtime/tracing"
)

// flushTimeout bounds how long exiting waits for the last spans to be
// exported: a collector that is down must not hold the terminal.
const flushTimeout = 2 * time.Second

// Error is a trace setting agenttui cannot follow, such as an exporter or
// protocol it does not have. The command treats it as a usage error, rather
// than letting traces silently go nowhere.
type Error struct {
	// Setting is the variable at fault with its value, such as
	// "OTEL_TRACES_EXPORTER=zipkin"; empty when the exporter's own set-up
	// refused the settings.
	Setting string
	// Problem says what is wrong.
	Problem string
}

func (e *Error) Error() string {
	if e.Setting == "" {
		return "traces: " + e.Problem
	}
	return e.Setting + ": " + e.Problem
}

// Settings are what the standard OpenTelemetry environment variables ask of
// agenttui's traces. The zero value has traces off.
type Settings struct {
	// on says spans are exported at all.
	on bool
	// capture records prompts, replies, arguments and results.
	capture bool
	// secrets are the values of the exporter's headers (tokens, most
	// often), which are redacted from anything a span records.
	secrets []string
	// client posts the spans; it is made with the settings, so a bad
	// endpoint, timeout or certificate stops the command before anything
	// starts.
	client *otlphttp.Client
}

// FromEnv reads the OTEL_ variables through getenv (os.Getenv, or a test's
// map). Traces are off
// unless an OTLP endpoint is set or OTEL_TRACES_EXPORTER is otlp, and
// OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none turn them off whatever
// else is set. An exporter or protocol agenttui does not have is a usage
// error, rather than traces silently going nowhere.
func FromEnv(getenv func(string) string) (Settings, error) {
	var s Settings
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return s, nil
	}
	exporter := strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")))
	switch exporter {
	case "none":
		return s, nil
	case "", "otlp":
	default:
		return s, &Error{Setting: "OTEL_TRACES_EXPORTER=" + exporter, Problem: "agenttui exports traces with otlp (OTLP over HTTP) or none"}
	}
	endpoint := getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != ""
	if exporter == "" && !endpoint {
		return s, nil
	}
	protocol, name := getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"), "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	if protocol == "" {
		protocol, name = getenv("OTEL_EXPORTER_OTLP_PROTOCOL"), "OTEL_EXPORTER_OTLP_PROTOCOL"
	}
	switch strings.TrimSpace(protocol) {
	case "", "http/protobuf":
	default:
		return s, &Error{Setting: name + "=" + protocol, Problem: "agenttui exports traces as http/protobuf only (to the collector's HTTP port, 4318)"}
	}
	client, err := otlphttp.FromEnv(getenv)
	if err != nil {
		return s, &Error{Problem: err.Error()}
	}
	s.on, s.client = true, client
	s.capture = strings.EqualFold(strings.TrimSpace(getenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")), "true")
	for _, v := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"} {
		s.secrets = append(s.secrets, headerValues(getenv(v))...)
	}
	return s, nil
}

// headerValues returns the values of a "key=value,key=value" header list,
// decoded as the exporter decodes them.
func headerValues(list string) []string {
	var out []string
	for _, v := range otlphttp.ParseHeaders(list) {
		out = append(out, v)
		// "Bearer <token>": the token alone is the secret, and may appear
		// without its scheme.
		if _, tok, ok := strings.Cut(v, " "); ok {
			out = append(out, strings.TrimSpace(tok))
		}
	}
	return out
}

// Exporter is the exporting side of tracing: the SDK's provider with a batch
// processor over the SDK's OTLP exporter, whose client posts protobuf over
// HTTP (internal/otlphttp). A nil *Exporter is traces turned off: its
// methods do nothing, and hand out no tracer.
type Exporter struct {
	settings Settings
	provider *sdktrace.TracerProvider
	client   *otlphttp.Client
	errs     *exportErrors

	mu      sync.Mutex // guards tracers
	tracers []*tracing.Tracer
}

// Start sets up the exporter when s asks for traces, and returns nil when it
// does not; it connects to nothing until the first batch is sent, so nothing
// waits for it.
func Start(s Settings) (*Exporter, error) {
	if !s.on {
		return nil, nil
	}
	ctx := context.Background()
	exp, err := otlptrace.New(ctx, s.client)
	if err != nil {
		return nil, &Error{Problem: err.Error()}
	}
	// The service is agenttui unless OTEL_SERVICE_NAME or
	// OTEL_RESOURCE_ATTRIBUTES say otherwise: later detectors win.
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName("agenttui")),
		resource.WithFromEnv(),
		resource.WithTelemetrySDK(),
	)
	if err != nil && res == nil {
		return nil, &Error{Problem: err.Error()}
	}
	// The SDK reports export failures through the global handler, which
	// would print over the console's screen: they are kept, and said once
	// on exit.
	errs := &exportErrors{}
	otel.SetErrorHandler(errs)
	otel.SetLogger(logr.Discard())
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(res),
		sdktrace.WithIDGenerator(tracing.IDs{}),
	)
	return &Exporter{settings: s, provider: tp, client: s.client, errs: errs}, nil
}

// Tracer returns the subscriber that makes a session's spans, in the trace
// id names; nil when traces are off.
func (t *Exporter) Tracer(id trace.TraceID) *tracing.Tracer {
	if t == nil {
		return nil
	}
	tr := tracing.New(t.provider, tracing.Options{
		TraceID:        id,
		CaptureContent: t.settings.capture,
		Redact:         redact.FromEnv(t.settings.secrets...),
	})
	t.mu.Lock()
	t.tracers = append(t.tracers, tr)
	t.mu.Unlock()
	return tr
}

// SessionTrace returns the trace id of a session: a new one for a new
// session, to be written in its journal, or the one its journal names, so
// that every process that carries the session on adds to one trace. A
// session recorded without one gets a new trace in each process. It is the
// zero id when traces are off.
func (t *Exporter) SessionTrace(rp *journal.Replay) trace.TraceID {
	if t == nil {
		return trace.TraceID{}
	}
	if rp != nil {
		if id, err := trace.TraceIDFromHex(rp.Header.TraceID); err == nil {
			return id
		}
	}
	return tracing.NewTraceID()
}

// Close flushes the spans not yet exported, waiting no longer than
// flushTimeout, and returns an error that says so when some could not be
// exported.
func (t *Exporter) Close() error {
	if t == nil {
		return nil
	}
	// The tracers hand over the spans of the events they have queued.
	t.mu.Lock()
	for _, tr := range t.tracers {
		tr.Close()
	}
	t.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	if err := t.provider.Shutdown(ctx); err != nil {
		t.errs.Handle(err)
	}
	n, first := t.errs.report()
	if failed := t.client.Failed(); failed != nil {
		// The client's own record says what went wrong, where the SDK may
		// only know that time ran out.
		n, first = max(n, 1), failed
	}
	if n > 0 {
		return fmt.Errorf("traces: not all spans were exported: %v", first)
	}
	return nil
}

// exportErrors keeps the errors the SDK reports.
type exportErrors struct {
	mu sync.Mutex // guards the fields below, which the SDK's goroutines set
	n  int
	// first is the first error that says more than that time ran out;
	// timedOut says time ran out.
	first    error
	timedOut bool
}

// Handle records err; it is the SDK's global error handler.
func (e *exportErrors) Handle(err error) {
	if err == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.n++
	switch {
	case errors.Is(err, context.DeadlineExceeded) && !strings.Contains(err.Error(), "gave up"):
		e.timedOut = true
	case e.first == nil:
		e.first = err
	}
}

// report returns how many errors there were and the one that says most.
func (e *exportErrors) report() (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.first == nil && e.timedOut {
		return e.n, fmt.Errorf("the collector did not answer within %s", flushTimeout)
	}
	return e.n, e.first
}
