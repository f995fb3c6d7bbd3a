package wire

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/agenttui/agenttui/runtime/model"
)

// problem is an error a person can act on: Error is one line that says what
// happened and what to do, and never holds the API key.
type problem struct {
	msg   string
	cause error
	// overflow says the request was longer than the context window.
	overflow bool
}

func (e *problem) Error() string { return e.msg }
func (e *problem) Unwrap() error { return e.cause }

// Is lets errors.Is(err, model.ErrContextOverflow) find an overflow, which
// the agent loop answers by compacting the conversation.
func (e *problem) Is(target error) bool { return e.overflow && target == model.ErrContextOverflow }

// Fail returns an error worded by format, scrubbed of the API key and kept
// to one line, that wraps cause.
func (s *Server) Fail(cause error, format string, args ...any) error {
	return &problem{msg: oneLine(scrub(fmt.Sprintf(format, args...), s.Key), 0), cause: cause}
}

// scrub removes the secret from s, in case a server or a library echoes it.
func scrub(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, "[redacted]")
}

// oneLine folds s onto one line and, when limit is positive, cuts it to
// limit characters.
func oneLine(s string, limit int) string {
	s = strings.Join(strings.Fields(s), " ")
	if limit > 0 && utf8.RuneCountInString(s) > limit {
		s = string([]rune(s)[:limit]) + "…"
	}
	return s
}

// Response is an HTTP error response a request ended with, as Receive hands
// it to API.ExplainStatus.
type Response struct {
	// Status is the HTTP status code.
	Status int
	// Code and Message are what the body says, as ErrorBody reads them.
	Code, Message string
	// Line is the status and its text, such as "429 Too Many Requests".
	Line string
	// Detail is Message on one line, cut short and without a final
	// period: it is set inside brackets or before a semicolon, where its
	// own period would read as a stray.
	Detail string
	// Wait is the wait the response asked for before a retry.
	Wait time.Duration
}

// explain turns err, the error an attempt followed by w ended with, into a
// message a person can act on, marked model.Transient when making the
// request again may get past it. What is particular to the provider is left
// to its API's ExplainStatus and MidReply.
func (s *Server) explain(err error, w *Watch) error {
	if w.stalled() {
		return model.Transient(s.Fail(err, "%s sent nothing for %s, so the reply was abandoned; try again", s.Who, s.Stall),
			fmt.Sprintf("nothing arrived for %s", s.Stall), 0)
	}
	if w.status != 0 {
		return s.api.ExplainStatus(s, err, s.response(w))
	}
	if w.streaming {
		if code, msg, ok := s.api.MidReply(err); ok {
			if IsContextOverflow(code, msg) {
				return s.Overflow(err, msg)
			}
			failed := s.Fail(err, "%s reported an error in the middle of the reply: %s", s.Who, oneLine(msg, 300))
			if permanentCode(code) {
				return failed
			}
			return model.Transient(failed, "an error in the middle of the reply ("+strings.TrimRight(oneLine(msg, 60), ".")+")", 0)
		}
		return model.Transient(s.Fail(err, "the connection to %s dropped in the middle of the reply (%s); try again", s.Who, cause(err)),
			"the connection dropped", 0)
	}
	hint := "is it running, and is " + s.api.BaseURLEnv + " right?"
	if !s.Custom {
		hint = "check the network connection"
	}
	failed := s.Fail(err, "cannot reach %s: %s; %s", s.Who, cause(err), hint)
	if !reachable(err) {
		return failed
	}
	return model.Transient(failed, "cannot reach the server ("+cause(err)+")", 0)
}

// permanentCode recognises the error types of an error event that say the
// request itself is at fault, so that making it again cannot help.
func permanentCode(code string) bool {
	switch code {
	case "invalid_request_error", "authentication_error", "permission_error", "not_found_error", "billing_error":
		return true
	}
	return false
}

// reachable reports whether a request that could not reach the server may
// reach it when made again: not when the name does not exist or the
// server's certificate is not trusted, which waiting does not mend.
func reachable(err error) bool {
	var dns *net.DNSError
	var unknown x509.UnknownAuthorityError
	var invalid x509.CertificateInvalidError
	var host x509.HostnameError
	var verify *tls.CertificateVerificationError
	switch {
	case errors.As(err, &dns) && dns.IsNotFound:
		return false
	case errors.As(err, &unknown), errors.As(err, &invalid), errors.As(err, &host), errors.As(err, &verify):
		return false
	}
	return true
}

// Truncated says the reply ended without the field that says why it ended
// (named by missing, such as "no finish reason"), as a stream cut short
// does. Making the request again may get a whole reply.
func (s *Server) Truncated(missing string) error {
	return model.Transient(s.Fail(nil, "the reply from %s ended before it was complete (%s): the connection may have dropped; try again",
		s.Who, missing), "the reply ended before it was complete", 0)
}

// Malformed says the reply broke the wire format in a way that leaves it
// unusable, such as a tool call with no name (named by what). The model
// wrote it, so asking again may get a whole reply.
func (s *Server) Malformed(what string) error {
	return model.Transient(s.Fail(nil, "the reply from %s was malformed (%s), so it cannot be used: try again",
		s.Who, what), "the reply was malformed", 0)
}

// response reads the last error response w kept.
func (s *Server) response(w *Watch) Response {
	code, msg := ErrorBody(w.body)
	text := func(status int) string {
		if t := http.StatusText(status); t != "" {
			return t
		}
		if status == 529 {
			// Anthropic's overloaded status, which gateways pass on too.
			return "Overloaded"
		}
		return code
	}
	if s.api.StatusText != nil {
		text = func(status int) string { return s.api.StatusText(status, code) }
	}
	return Response{
		Status: w.status, Code: code, Message: msg,
		Line:   fmt.Sprintf("%d %s", w.status, text(w.status)),
		Detail: strings.TrimRight(oneLine(msg, 300), "."),
		Wait:   w.wait,
	}
}

// The methods below word the error responses that mean the same with every
// API. ExplainStatus decides which applies, because the APIs tell them
// apart in different orders and with different codes, and words the rest
// itself.

// KeyRejected says the API key was rejected. The server's message is left
// out because it may quote part of the key, as OpenAI's does.
func (s *Server) KeyRejected(err error, r Response) error {
	return s.Fail(err, "%s rejected the API key (%s): check %s", s.Who, r.Line, s.api.KeyEnv)
}

// Overflow says the conversation is too long for the model; msg is the
// server's message.
func (s *Server) Overflow(err error, msg string) error {
	p := s.Fail(err, "the conversation no longer fits the context window of %s (%s)", s.Model, oneLine(msg, 300)).(*problem)
	p.overflow = true
	return p
}

// Refused says the key may not do what was asked, which is most often
// using the model.
func (s *Server) Refused(err error, r Response) error {
	return s.Fail(err, "%s refused the request (%s: %s): check that the API key may use the model %q", s.Who, r.Line, r.Detail, s.Model)
}

// RateLimited says the server limits the rate of requests. It may pass,
// unless the server asks for a wait longer than MaxRetryWait: then it is
// reported at once.
func (s *Server) RateLimited(err error, r Response) error {
	if r.Wait > MaxRetryWait {
		return s.Fail(err, "%s is limiting the rate of requests (%s: %s) and asks to wait %s; try again then",
			s.Who, r.Line, r.Detail, r.Wait.Round(time.Second))
	}
	return model.Transient(s.Fail(err, "%s is limiting the rate of requests (%s: %s); wait a little and try again",
		s.Who, r.Line, r.Detail), "rate limited ("+r.Line+")", r.Wait)
}

// ServerFailed says the server failed with a 5xx status; it may pass.
func (s *Server) ServerFailed(err error, r Response) error {
	return model.Transient(s.Fail(err, "%s failed with %s: %s; try again later", s.Who, r.Line, r.Detail),
		"the server failed ("+r.Line+")", r.Wait)
}

// Overloaded says the server is too busy to answer, as Anthropic's 529
// says; it may pass.
func (s *Server) Overloaded(err error, r Response) error {
	return model.Transient(s.Fail(err, "%s is overloaded (%s: %s); try again later", s.Who, r.Line, r.Detail),
		"the server is overloaded ("+r.Line+")", r.Wait)
}

// TryLater says the server could not take the request now, for a reason
// that may pass: 408 Request Timeout, 409 Conflict.
func (s *Server) TryLater(err error, r Response) error {
	return model.Transient(s.Fail(err, "%s could not take the request (%s: %s); try again", s.Who, r.Line, r.Detail),
		"the server could not take the request ("+r.Line+")", r.Wait)
}

// Rejected says the server rejected the request for a reason no other
// message covers.
func (s *Server) Rejected(err error, r Response) error {
	return s.Fail(err, "%s rejected the request (%s: %s)", s.Who, r.Line, r.Detail)
}

// IsContextOverflow recognises the ways servers say the prompt is too long.
func IsContextOverflow(code, msg string) bool {
	if code == "context_length_exceeded" || code == "string_above_max_length" {
		return true
	}
	msg = strings.ToLower(msg)
	for _, s := range []string{"context length", "context_length", "context window", "prompt is too long", "too many tokens", "maximum context"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// ErrorBody finds the code and the message in an error body: OpenAI's
// {"error":{"message","code","type"}}, Anthropic's
// {"type":"error","error":{"type","message"}}, and the shapes compatible
// servers and gateways use ({"error":"…"}, {"message":"…"},
// {"detail":"…"}), else the text. The code is the error's code, else its
// type.
func ErrorBody(body []byte) (code, msg string) {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &v) != nil {
		return "", strings.TrimSpace(string(body))
	}
	var inner struct {
		Message string `json:"message"`
		Code    any    `json:"code"`
		Type    string `json:"type"`
	}
	var s string
	switch {
	case json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
		code = fmt.Sprint(inner.Code)
		if inner.Code == nil {
			code = inner.Type
		}
		return code, inner.Message
	case json.Unmarshal(v.Error, &s) == nil && s != "":
		return "", s
	case v.Message != "":
		return "", v.Message
	case v.Detail != nil:
		return "", fmt.Sprint(v.Detail)
	}
	return "", strings.TrimSpace(string(body))
}

// cause words a connection error by its root: "connection refused" rather
// than the whole chain with the request URL.
func cause(err error) string {
	var dns *net.DNSError
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "unexpected end of the stream"
	case errors.As(err, &dns):
		return "no such host " + dns.Name
	case errors.As(err, &ne) && ne.Timeout():
		return "timed out"
	}
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}
