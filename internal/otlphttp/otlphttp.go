// Package otlphttp sends spans to an OpenTelemetry collector over OTLP/HTTP
// (protobuf), as the client of the SDK's otlptrace exporter, configured by
// the standard OTEL_EXPORTER_OTLP_* environment variables.
//
// It exists because the SDK's own otlptracehttp links gRPC, and gRPC links
// golang.org/x/net/trace, whose HTML templates make the Go linker keep every
// exported method of every type in the program: that doubles agenttui's
// binary and adds a third to its memory at the first frame. This client
// needs only net/http and the official OTLP protobuf message types.
package otlphttp

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// DefaultEndpoint is where spans go when no endpoint is set: a collector on
// this machine.
const DefaultEndpoint = "http://localhost:4318/v1/traces"

// DefaultTimeout bounds one export, retries included, when
// OTEL_EXPORTER_OTLP_TIMEOUT does not say.
const DefaultTimeout = 10 * time.Second

// Client posts batches of spans to a collector. It implements the SDK's
// otlptrace.Client; use it with otlptrace.New.
type Client struct {
	url     string
	headers map[string]string
	timeout time.Duration
	gzip    bool
	http    *http.Client
	// backoff is the wait before the first retry; it doubles with each.
	backoff time.Duration

	// mu guards lost and retrying, which exports set from the SDK's
	// goroutine: lost is the first export that gave up, retrying the
	// failure of the export still being tried.
	mu       sync.Mutex
	lost     error
	retrying error
}

// FromEnv returns a client configured as the OpenTelemetry specification
// says, reading variables through getenv: OTEL_EXPORTER_OTLP_ENDPOINT (to
// which /v1/traces is added) or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as
// it is), _HEADERS, _TIMEOUT (milliseconds), _COMPRESSION (gzip or none),
// _CERTIFICATE, _CLIENT_CERTIFICATE and _CLIENT_KEY, each with its TRACES_
// form taking precedence.
func FromEnv(getenv func(string) string) (*Client, error) {
	get := func(name string) (string, string) {
		if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_" + name)); v != "" {
			return v, "OTEL_EXPORTER_OTLP_TRACES_" + name
		}
		return strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_" + name)), "OTEL_EXPORTER_OTLP_" + name
	}
	c := &Client{url: DefaultEndpoint, timeout: DefaultTimeout, backoff: 500 * time.Millisecond}
	given, name := "", ""
	if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")); v != "" {
		c.url, given, name = v, v, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	} else if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT")); v != "" {
		c.url, given, name = strings.TrimRight(v, "/")+"/v1/traces", v, "OTEL_EXPORTER_OTLP_ENDPOINT"
	}
	if u, err := url.Parse(c.url); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s=%s is not an http:// or https:// URL", name, given)
	}
	headers, _ := get("HEADERS")
	c.headers = ParseHeaders(headers)
	if v, name := get("TIMEOUT"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("%s=%s is not a number of milliseconds", name, v)
		}
		c.timeout = time.Duration(ms) * time.Millisecond
	}
	switch v, name := get("COMPRESSION"); v {
	case "", "none":
	case "gzip":
		c.gzip = true
	default:
		return nil, fmt.Errorf("%s=%s: use gzip or none", name, v)
	}
	tlsConf, err := tlsConfig(get)
	if err != nil {
		return nil, err
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = tlsConf
	c.http = &http.Client{Transport: transport}
	return c, nil
}

// tlsConfig reads the certificates the variables name; nil when none is.
func tlsConfig(get func(string) (string, string)) (*tls.Config, error) {
	ca, caName := get("CERTIFICATE")
	cert, certName := get("CLIENT_CERTIFICATE")
	key, _ := get("CLIENT_KEY")
	if ca == "" && cert == "" && key == "" {
		return nil, nil
	}
	conf := &tls.Config{MinVersion: tls.VersionTLS12}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", caName, err)
		}
		conf.RootCAs = x509.NewCertPool()
		if !conf.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: %s holds no PEM certificate", caName, ca)
		}
	}
	if cert != "" || key != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("%s and its key: %v", certName, err)
		}
		conf.Certificates = []tls.Certificate{pair}
	}
	return conf, nil
}

// ParseHeaders reads a header list in the variables' form,
// "key1=value1,key2=value2", with keys and values percent-encoded. Pairs
// without "=" are ignored.
func ParseHeaders(list string) map[string]string {
	out := map[string]string{}
	for _, pair := range strings.Split(list, ",") {
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			continue
		}
		if dk, err := url.PathUnescape(k); err == nil {
			k = dk
		}
		v = strings.TrimSpace(v)
		if dv, err := url.PathUnescape(v); err == nil {
			v = dv
		}
		out[k] = v
	}
	return out
}

// URL returns where the client posts spans.
func (c *Client) URL() string { return c.url }

// Start does nothing: the client connects when it has spans to send.
func (c *Client) Start(context.Context) error { return nil }

// Stop closes idle connections.
func (c *Client) Stop(context.Context) error {
	c.http.CloseIdleConnections()
	return nil
}

// UploadTraces posts spans as one ExportTraceServiceRequest. A collector
// that is busy (429, 502, 503, 504) or cannot be reached is asked again,
// after its Retry-After or a growing wait, until the export's timeout or
// ctx ends.
func (c *Client) UploadTraces(ctx context.Context, spans []*tracepb.ResourceSpans) error {
	body, err := exportRequest(spans)
	if err != nil {
		return err
	}
	if c.gzip {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		if _, err := zw.Write(body); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		body = buf.Bytes()
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	wait := c.backoff
	var last error
	for attempt := 1; ; attempt++ {
		retryAfter, err := c.post(ctx, body)
		if err == nil {
			c.note(nil, nil)
			return nil
		}
		var final finalError
		if errors.As(err, &final) {
			c.note(err, nil)
			return err
		}
		if last == nil || ctx.Err() == nil {
			// An attempt the deadline cut short says less than the one
			// before it.
			last = err
			c.note(nil, err)
		}
		if retryAfter > 0 {
			wait = retryAfter
		}
		// Jitter, so exporters that failed together do not retry together.
		d := wait/2 + rand.N(wait/2+1)
		select {
		case <-ctx.Done():
			err := fmt.Errorf("gave up after %d attempt(s): %w", attempt, last)
			c.note(err, nil)
			return err
		case <-time.After(d):
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// note records how the export being tried stands: lost when it gave up,
// retrying while it is being tried again.
func (c *Client) note(lost, retrying error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lost == nil {
		c.lost = lost
	}
	c.retrying = retrying
}

// Failed returns why spans were lost: the first export that gave up, else
// the failure of an export still being retried (one the program's exit
// cuts short has reported nothing yet). Nil when none was.
func (c *Client) Failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lost != nil {
		return c.lost
	}
	return c.retrying
}

// exportRequest encodes spans as an ExportTraceServiceRequest, whose only
// field is its repeated resource_spans (1). The request is encoded here
// rather than with the generated collector package, which imports gRPC.
func exportRequest(spans []*tracepb.ResourceSpans) ([]byte, error) {
	sizes := make([]int, len(spans))
	total := 0
	for i, rs := range spans {
		sizes[i] = proto.Size(rs)
		total += protowire.SizeTag(1) + protowire.SizeBytes(sizes[i])
	}
	// Each message is written in place, with the size computed above.
	out := make([]byte, 0, total)
	opts := proto.MarshalOptions{UseCachedSize: true}
	for i, rs := range spans {
		out = protowire.AppendTag(out, 1, protowire.BytesType)
		out = protowire.AppendVarint(out, uint64(sizes[i]))
		var err error
		if out, err = opts.MarshalAppend(out, rs); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// finalError is a refusal that asking again would not change.
type finalError struct{ error }

// post sends body once. It returns the wait the collector asked for, if
// any, with a retryable error; a finalError when retrying cannot help.
func (c *Client) post(ctx context.Context, body []byte) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return 0, finalError{err}
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("User-Agent", "agenttui OTLP/HTTP")
	if c.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		// Not reached, or cut off: worth another try.
		return 0, fmt.Errorf("sending spans to %s: %w", c.url, unwrapURLError(err))
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode/100 == 2 {
		return 0, nil
	}
	err = fmt.Errorf("the collector at %s answered %s", c.url, resp.Status)
	if text := strings.TrimSpace(string(msg)); text != "" && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/") {
		err = fmt.Errorf("%w: %s", err, text)
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return retryAfter(resp.Header.Get("Retry-After")), err
	}
	return 0, finalError{err}
}

// retryAfter reads a Retry-After header given in seconds.
func retryAfter(v string) time.Duration {
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return 0
}

// unwrapURLError drops net/http's "Post URL:" prefix, which the message
// says already.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
