package tool

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// FailureKind classifies why a call failed, so that policies such as retries
// can react to a class of failure without reading messages.
type FailureKind uint8

// The failure kinds. Their identifiers (String) are stable and appear in the
// event stream and the journal.
const (
	KindInvalidArgs FailureKind = iota + 1
	KindTimeout
	KindCancelled
	KindNotFound
	KindPermissionDenied
	KindRateLimited
	KindProvider
	KindNetwork
	KindOther
)

var kindIDs = map[FailureKind]string{
	KindInvalidArgs:      "invalid_args",
	KindTimeout:          "timeout",
	KindCancelled:        "cancelled",
	KindNotFound:         "not_found",
	KindPermissionDenied: "permission_denied",
	KindRateLimited:      "rate_limited",
	KindProvider:         "provider",
	KindNetwork:          "network",
	KindOther:            "other",
}

// String returns the kind's stable identifier, such as "not_found".
func (k FailureKind) String() string {
	if id, ok := kindIDs[k]; ok {
		return id
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ParseFailureKind returns the kind whose identifier is id.
func ParseFailureKind(id string) (FailureKind, error) {
	for k, s := range kindIDs {
		if s == id {
			return k, nil
		}
	}
	return 0, fmt.Errorf("tool: unknown failure kind %q", id)
}

// MarshalText encodes the kind as its identifier.
func (k FailureKind) MarshalText() ([]byte, error) {
	if _, ok := kindIDs[k]; !ok {
		return nil, fmt.Errorf("tool: invalid failure kind %d", uint8(k))
	}
	return []byte(k.String()), nil
}

// UnmarshalText decodes an identifier written by MarshalText.
func (k *FailureKind) UnmarshalText(text []byte) error {
	parsed, err := ParseFailureKind(string(text))
	if err != nil {
		return err
	}
	*k = parsed
	return nil
}

// Failure describes why a call failed. Message is for logs and policies; the
// model reads the tool's own output instead.
type Failure struct {
	Kind    FailureKind `json:"kind"`
	Message string      `json:"message"`
	// Retryable says whether repeating the call may succeed; nil means
	// unknown, which the runtime treats as not retryable.
	Retryable *bool `json:"retryable,omitempty"`
	// Code is a machine-readable code from the tool or its upstream, if
	// any; a command's own end (ExitCode, SignalCode, TimeoutCode) for
	// run_shell.
	Code string `json:"code,omitempty"`
	// HTTPStatus is the upstream HTTP status, if the failure came from one.
	HTTPStatus int `json:"http_status,omitempty"`
}

func boolPtr(b bool) *bool { return &b }

func newFailure(k FailureKind, message string, retryable *bool) Failure {
	return Failure{Kind: k, Message: message, Retryable: retryable}
}

// InvalidArgs returns a failure for arguments the tool could not use; not
// retryable.
func InvalidArgs(message string) Failure {
	return newFailure(KindInvalidArgs, message, boolPtr(false))
}

// Timeout returns a failure for a call that ran out of time; retryable.
func Timeout(message string) Failure { return newFailure(KindTimeout, message, boolPtr(true)) }

// Cancelled returns a failure for a call whose context was cancelled; not
// retryable.
func Cancelled(message string) Failure {
	return newFailure(KindCancelled, message, boolPtr(false))
}

// NotFound returns a failure for a missing file or resource; not retryable.
func NotFound(message string) Failure {
	return newFailure(KindNotFound, message, boolPtr(false))
}

// PermissionDenied returns a failure for an operation the system refused (as
// opposed to a tool's own refusal, which is Deny); not retryable.
func PermissionDenied(message string) Failure {
	return newFailure(KindPermissionDenied, message, boolPtr(false))
}

// RateLimited returns a failure for an upstream rate limit; retryable.
func RateLimited(message string) Failure {
	return newFailure(KindRateLimited, message, boolPtr(true))
}

// Provider returns a failure reported by an upstream provider; whether it is
// retryable is unknown.
func Provider(message string) Failure { return newFailure(KindProvider, message, nil) }

// Network returns a failure to reach an upstream; retryable.
func Network(message string) Failure { return newFailure(KindNetwork, message, boolPtr(true)) }

// Other returns a failure of no particular kind; whether it is retryable is
// unknown.
func Other(message string) Failure { return newFailure(KindOther, message, nil) }

// IsRetryable reports whether the failure is known to be retryable.
func (f Failure) IsRetryable() bool { return f.Retryable != nil && *f.Retryable }

// WithRetryable returns a copy of f whose retryability is set to r.
func (f Failure) WithRetryable(r bool) Failure {
	f.Retryable = boolPtr(r)
	return f
}

// String returns "kind: message".
func (f Failure) String() string { return f.Kind.String() + ": " + f.Message }

// Error returns the same text as String, so a Failure can travel as an error.
func (f Failure) Error() string { return f.String() }

// The codes of a failed command that ran as a process (run_shell's), in
// Failure.Code: how it ended, for the console and scripts to show without
// reading its output.
const (
	// codeExit prefixes the exit status of a command that exited with a
	// status other than 0: "exit:3".
	codeExit = "exit:"
	// codeSignal prefixes the name of the signal that ended a command:
	// "signal:SIGKILL".
	codeSignal = "signal:"
	// codeTimeout prefixes the time a command was given, in seconds, when
	// it ran out of it and was killed: "timeout:120s".
	codeTimeout = "timeout:"
)

// ExitCode returns the code of a command that exited with status, such as
// "exit:3".
func ExitCode(status int) string { return fmt.Sprintf("%s%d", codeExit, status) }

// SignalCode returns the code of a command the signal named name ended,
// such as "signal:SIGKILL".
func SignalCode(name string) string { return codeSignal + name }

// TimeoutCode returns the code of a command that was killed when it had run
// for limit, such as "timeout:120s".
func TimeoutCode(limit time.Duration) string {
	return fmt.Sprintf("%s%ds", codeTimeout, int64(limit.Round(time.Second)/time.Second))
}

// ProcessEnd says in a few words how a command ended from its failure code:
// "exit 3", "killed by SIGKILL", "timed out after 2m". ok is false for a
// code that is none of ExitCode's, SignalCode's or TimeoutCode's.
func ProcessEnd(code string) (words string, ok bool) {
	if s, found := strings.CutPrefix(code, codeExit); found {
		if _, err := strconv.Atoi(s); err == nil {
			return "exit " + s, true
		}
	}
	if s, found := strings.CutPrefix(code, codeSignal); found && s != "" {
		return "killed by " + s, true
	}
	if s, found := strings.CutPrefix(code, codeTimeout); found {
		if n, err := strconv.Atoi(strings.TrimSuffix(s, "s")); err == nil && strings.HasSuffix(s, "s") && n >= 0 {
			return "timed out after " + shortDuration(n), true
		}
	}
	return "", false
}

// shortDuration writes seconds as a person would: "45s", "2m", "1m30s",
// "1h".
func shortDuration(seconds int) string {
	h, m, s := seconds/3600, seconds/60%60, seconds%60
	var out string
	if h > 0 {
		out += fmt.Sprintf("%dh", h)
	}
	if m > 0 {
		out += fmt.Sprintf("%dm", m)
	}
	if s > 0 || out == "" {
		out += fmt.Sprintf("%ds", s)
	}
	return out
}
