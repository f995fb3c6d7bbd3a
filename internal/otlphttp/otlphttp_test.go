package otlphttp

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// receiver answers each export with the next status of statuses (200 once
// they run out) and keeps what it received.
type receiver struct {
	mu       sync.Mutex // guards the fields below, which the handlers fill
	statuses []int
	got      []*coltracepb.ExportTraceServiceRequest
	headers  []http.Header
	paths    []string
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	data, _ := io.ReadAll(body)
	var msg coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(data, &msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, &msg)
	r.headers = append(r.headers, req.Header.Clone())
	r.paths = append(r.paths, req.URL.Path)
	status := http.StatusOK
	if len(r.statuses) > 0 {
		status, r.statuses = r.statuses[0], r.statuses[1:]
	}
	if status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "0")
	}
	w.WriteHeader(status)
}

func (r *receiver) requests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}

// seen returns what arrived so far.
func (r *receiver) seen() ([]*coltracepb.ExportTraceServiceRequest, []http.Header, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got, r.headers, r.paths
}

func env(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }

// spans returns one resource's one span named name.
func spans(name string) []*tracepb.ResourceSpans {
	return []*tracepb.ResourceSpans{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{{Key: "service.name",
			Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "svc"}}}}},
		ScopeSpans: []*tracepb.ScopeSpans{{Spans: []*tracepb.Span{{
			Name: name, TraceId: make([]byte, 16), SpanId: []byte{1, 2, 3, 4, 5, 6, 7, 8}}}}},
	}}
}

func serve(t *testing.T, statuses ...int) (*receiver, string) {
	r := &receiver{statuses: statuses}
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return r, srv.URL
}

func TestExportsProtobufWithHeaders(t *testing.T) {
	for _, compression := range []string{"none", "gzip"} {
		r, url := serve(t)
		c, err := FromEnv(env(map[string]string{
			"OTEL_EXPORTER_OTLP_ENDPOINT":    url + "/base/",
			"OTEL_EXPORTER_OTLP_HEADERS":     "authorization=Bearer%20abc,x-team=blue",
			"OTEL_EXPORTER_OTLP_COMPRESSION": compression,
		}))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.UploadTraces(context.Background(), spans("one")); err != nil {
			t.Fatal(err)
		}
		got, headers, paths := r.seen()
		if len(got) != 1 || paths[0] != "/base/v1/traces" {
			t.Fatalf("%s: requests to %v", compression, paths)
		}
		if !proto.Equal(got[0], &coltracepb.ExportTraceServiceRequest{ResourceSpans: spans("one")}) {
			t.Errorf("%s: the collector decoded %v", compression, got[0])
		}
		h := headers[0]
		if h.Get("Authorization") != "Bearer abc" || h.Get("X-Team") != "blue" || h.Get("Content-Type") != "application/x-protobuf" {
			t.Errorf("%s: headers %v", compression, h)
		}
	}
}

func TestRetriesWhatMayPassAndNotWhatCannot(t *testing.T) {
	r, url := serve(t, http.StatusServiceUnavailable, http.StatusTooManyRequests)
	c, err := FromEnv(env(map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": url + "/custom"}))
	if err != nil {
		t.Fatal(err)
	}
	c.backoff = time.Millisecond
	if err := c.UploadTraces(context.Background(), spans("again")); err != nil {
		t.Fatalf("a busy collector that then accepts: %v", err)
	}
	if _, _, paths := r.seen(); len(paths) != 3 || paths[2] != "/custom" {
		t.Errorf("want 3 requests to /custom, got %v", paths)
	}

	r, url = serve(t, http.StatusBadRequest)
	c, _ = FromEnv(env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": url}))
	err = c.UploadTraces(context.Background(), spans("bad"))
	if err == nil || !strings.Contains(err.Error(), "400") || r.requests() != 1 {
		t.Errorf("a refusal is not retried: %v after %d requests", err, r.requests())
	}
}

func TestGivesUpAtTheTimeout(t *testing.T) {
	always := make([]int, 1000)
	for i := range always {
		always[i] = http.StatusServiceUnavailable
	}
	_, url := serve(t, always...)
	c, err := FromEnv(env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": url, "OTEL_EXPORTER_OTLP_TIMEOUT": "1000"}))
	if err != nil {
		t.Fatal(err)
	}
	c.backoff = time.Millisecond
	err = c.UploadTraces(context.Background(), spans("never"))
	if err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("want the last refusal once the timeout passed, got %v", err)
	}
}

func TestConfigurationErrors(t *testing.T) {
	for _, vars := range []map[string]string{
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "localhost:4318"},
		{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "ftp://c/v1/traces"},
		{"OTEL_EXPORTER_OTLP_TIMEOUT": "soon"},
		{"OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "zstd"},
		{"OTEL_EXPORTER_OTLP_CERTIFICATE": "/does/not/exist.pem"},
	} {
		if _, err := FromEnv(env(vars)); err == nil {
			t.Errorf("%v was accepted", vars)
		}
	}
	c, err := FromEnv(env(nil))
	if err != nil || c.URL() != DefaultEndpoint || c.timeout != DefaultTimeout {
		t.Errorf("defaults: %v %v %v", err, c.URL(), c.timeout)
	}
	if h := ParseHeaders("a=1, b = two%20words ,broken,=x"); len(h) != 2 || h["a"] != "1" || h["b"] != "two words" {
		t.Errorf("headers %v", h)
	}
}

func TestFailedSaysWhetherSpansWereLost(t *testing.T) {
	_, url := serve(t, http.StatusServiceUnavailable, http.StatusBadRequest)
	c, _ := FromEnv(env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": url}))
	c.backoff = time.Millisecond
	if err := c.UploadTraces(context.Background(), spans("a")); err == nil || c.Failed() != err {
		t.Errorf("an export that gave up: %v, Failed %v", err, c.Failed())
	}
	_, url = serve(t, http.StatusServiceUnavailable)
	c, _ = FromEnv(env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": url}))
	c.backoff = time.Millisecond
	if err := c.UploadTraces(context.Background(), spans("b")); err != nil || c.Failed() != nil {
		t.Errorf("an export that passed on its second attempt lost nothing: %v, Failed %v", err, c.Failed())
	}
}
