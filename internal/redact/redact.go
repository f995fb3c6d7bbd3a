// Package redact removes secrets from text before it is written anywhere a
// person or a file keeps it: the journal, logs, the screen.
//
// It knows the values of the API keys configured in the environment and the
// common shapes of tokens: OpenAI-style keys (sk-…), GitHub tokens (ghp_…
// and its siblings), AWS access key ids (AKIA…), Slack tokens, and PEM
// private-key blocks.
package redact

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Marker replaces every secret.
const Marker = "[redacted]"

// EnvKeys are the environment variables whose values are always secrets.
var EnvKeys = []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GITHUB_TOKEN", "GH_TOKEN", "AWS_SECRET_ACCESS_KEY"}

// shapes matches the secrets' shapes. It is compiled on first use, not
// when the program starts: the console's first frame redacts nothing.
var shapes = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(strings.Join([]string{
		`sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{16,}`,
		`gh[pousr]_[A-Za-z0-9]{20,}`,
		`github_pat_[A-Za-z0-9_]{20,}`,
		`(?:AKIA|ASIA)[0-9A-Z]{16}`,
		`xox[abprs]-[A-Za-z0-9\-]{10,}`,
		// A PEM private key, whether its line breaks are real or escaped as
		// \n inside a JSON string.
		`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)-----END [A-Z0-9 ]*PRIVATE KEY-----`,
		// An unterminated private key block: everything after its header.
		`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*)`,
	}, "|"))
})

// Redactor replaces secrets in text. Its zero value knows only the shapes;
// FromEnv adds the values of the configured keys.
type Redactor struct {
	values []string
}

// FromEnv returns a redactor that also knows the values of EnvKeys found in
// the environment, and the extra secret values given.
func FromEnv(extra ...string) *Redactor {
	vals := slices.Clone(extra)
	for _, k := range EnvKeys {
		if v := strings.TrimSpace(os.Getenv(k)); len(v) >= 8 {
			vals = append(vals, v)
		}
	}
	return New(vals...)
}

// New returns a redactor that knows the given secret values, besides the
// shapes. Values shorter than eight characters are ignored: they would
// redact ordinary words.
func New(values ...string) *Redactor {
	r := &Redactor{}
	for _, v := range values {
		if len(v) >= 8 && !slices.Contains(r.values, v) {
			r.values = append(r.values, v)
		}
	}
	// Longer values first, so a value containing another is removed whole.
	slices.SortFunc(r.values, func(a, b string) int { return len(b) - len(a) })
	return r
}

// String returns s with every secret replaced by Marker.
func (r *Redactor) String(s string) string {
	if r != nil {
		for _, v := range r.values {
			if strings.Contains(s, v) {
				s = strings.ReplaceAll(s, v, Marker)
			}
		}
	}
	if !mayHaveShape(s) {
		return s
	}
	return shapes().ReplaceAllString(s, Marker)
}

// Bytes is String for a byte slice.
func (r *Redactor) Bytes(b []byte) []byte { return []byte(r.String(string(b))) }

// mayHaveShape is a cheap test that lets most text skip the regular
// expression.
func mayHaveShape(s string) bool {
	return strings.Contains(s, "sk-") || strings.Contains(s, "gh") || strings.Contains(s, "AKIA") ||
		strings.Contains(s, "ASIA") || strings.Contains(s, "xox") || strings.Contains(s, "PRIVATE KEY")
}
