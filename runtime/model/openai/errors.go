package openai

import (
	"errors"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/agenttui/agenttui/runtime/model/internal/wire"
)

// explainStatus explains an HTTP error response of OpenAI or a compatible
// server.
func explainStatus(s *wire.Server, err error, r wire.Response) error {
	switch {
	case r.Status == http.StatusUnauthorized:
		return s.KeyRejected(err, r)
	case r.Code == "model_not_found" || (r.Status == http.StatusNotFound && strings.Contains(strings.ToLower(r.Message), "model")):
		return s.Fail(err, "%s does not know the model %q (%s: %s): check the name after openai:", s.Who, s.Model, r.Line, r.Detail)
	case r.Status == http.StatusNotFound:
		return s.Fail(err, "%s has no chat completions endpoint at %s (%s): check %s, which usually ends in /v1",
			s.Who, s.Endpoint, r.Line, EnvBaseURL)
	case wire.IsContextOverflow(r.Code, r.Message):
		return s.Overflow(err, r.Message)
	case r.Status == http.StatusForbidden:
		return s.Refused(err, r)
	case r.Code == "insufficient_quota":
		return s.Fail(err, "%s says the account has no quota left (%s: %s): check its plan and billing", s.Who, r.Line, r.Detail)
	case r.Status == http.StatusTooManyRequests:
		return s.RateLimited(err, r)
	case r.Status == http.StatusRequestTimeout || r.Status == http.StatusConflict:
		return s.TryLater(err, r)
	case r.Status == 529 || r.Code == "overloaded_error":
		return s.Overloaded(err, r)
	case r.Status >= 500:
		return s.ServerFailed(err, r)
	default:
		return s.Rejected(err, r)
	}
}

// midReply recognises an error event in the reply, which the SDK returns as
// a StreamError. Only the message is returned, not the code: an error event
// is taken for an overflow by its wording alone.
func midReply(err error) (code, msg string, ok bool) {
	var se *ssestream.StreamError
	if !errors.As(err, &se) {
		return "", "", false
	}
	_, msg = wire.ErrorBody(se.Event.Data)
	return "", msg, true
}
