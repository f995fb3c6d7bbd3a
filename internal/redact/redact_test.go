package redact

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	r := New("my-secret-value-123")
	cases := []struct{ in, want string }{
		{"key=sk-proj-abcdefghijklmnopqrstuvwx end", "key=[redacted] end"},
		{"sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAA", "[redacted]"},
		{"token ghp_0123456789abcdefghijABCDEFGHIJ", "token [redacted]"},
		{"AKIAIOSFODNN7EXAMPLE in config", "[redacted] in config"},
		{"configured: my-secret-value-123!", "configured: [redacted]!"},
		{`{"out":"-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\n"}`, `{"out":"[redacted]\n"}`},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXkt\n", "[redacted]"},
		{"a skeleton key and ghost text", "a skeleton key and ghost text"},
		{"sk-short", "sk-short"},
	}
	for _, c := range cases {
		if got := r.String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestFromEnv(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "local-test-key-value")
	t.Setenv("ANTHROPIC_API_KEY", "x") // too short to be redacted safely
	r := FromEnv()
	if got := r.String("the key is local-test-key-value."); strings.Contains(got, "local-test-key-value") {
		t.Errorf("configured key not redacted: %q", got)
	}
	if got := r.String("x marks the spot"); got != "x marks the spot" {
		t.Errorf("a short value was redacted: %q", got)
	}
}
