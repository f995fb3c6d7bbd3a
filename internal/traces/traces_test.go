package traces

import (
	"slices"
	"testing"
)

func TestTraceSettingsFromEnvironment(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		on      bool
		capture bool
		bad     bool
	}{
		{name: "nothing", env: map[string]string{}},
		{name: "service name alone", env: map[string]string{"OTEL_SERVICE_NAME": "x"}},
		{name: "endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, on: true},
		{name: "traces endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, on: true},
		{name: "exporter otlp", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, on: true},
		{name: "exporter none", env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c"}},
		{name: "sdk disabled", env: map[string]string{"OTEL_SDK_DISABLED": "TRUE", "OTEL_TRACES_EXPORTER": "otlp"}},
		{name: "sdk disabled false", env: map[string]string{"OTEL_SDK_DISABLED": "false", "OTEL_TRACES_EXPORTER": "otlp"}, on: true},
		{name: "capture", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp",
			"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"}, on: true, capture: true},
		{name: "capture without traces", env: map[string]string{"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"}},
		{name: "http/protobuf", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}, on: true},
		{name: "http/json", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, bad: true},
		{name: "grpc", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, bad: true},
		{name: "traces protocol wins", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
			"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"}, on: true},
		{name: "zipkin", env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, bad: true},
		{name: "grpc while off", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}},
		{name: "bad endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "localhost:4318"}, bad: true},
		{name: "bad timeout", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TIMEOUT": "soon"}, bad: true},
	} {
		s, err := FromEnv(func(k string) string { return tc.env[k] })
		if (err != nil) != tc.bad || s.on != tc.on || s.capture != tc.capture {
			t.Errorf("%s: on %v capture %v err %v; want on %v capture %v bad %v", tc.name, s.on, s.capture, err, tc.on, tc.capture, tc.bad)
		}
	}
}

func TestExporterHeaderValuesAreSecrets(t *testing.T) {
	s, err := FromEnv(func(k string) string {
		return map[string]string{
			"OTEL_EXPORTER_OTLP_ENDPOINT":       "http://c",
			"OTEL_EXPORTER_OTLP_HEADERS":        "authorization=Bearer%20abc123456789,x-team=blue",
			"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "api-key=k-987654321",
		}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Bearer abc123456789", "abc123456789", "blue", "k-987654321"} {
		if !slices.Contains(s.secrets, want) {
			t.Errorf("secrets %q lack %q", s.secrets, want)
		}
	}
}
