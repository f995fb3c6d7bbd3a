package openai

import (
	"errors"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/agenttui/agenttui/runtime/model/internal/wire"
)

// reasoningSettings names the settings of agenttui that set the reasoning
// effort, for messages that ask the person to change it.
const reasoningSettings = `the configuration's "reasoning": {"effort": …}, --reasoning or /reasoning`

// explainStatus explains an HTTP error response of OpenAI or a compatible
// server, on the wire api.
func explainStatus(s *wire.Server, api API, err error, r wire.Response) error {
	param, lower := "", strings.ToLower(r.Message)
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		param = apiErr.Param
	}
	switch {
	case r.Status == http.StatusUnauthorized:
		return s.KeyRejected(err, r)
	case r.Code == "model_not_found" || (r.Status == http.StatusNotFound && strings.Contains(lower, "model")):
		return s.Fail(err, "%s does not know the model %q (%s: %s): check the name after openai:", s.Who, s.Model, r.Line, r.Detail)
	case r.Status == http.StatusNotFound && strings.Contains(lower, "not persisted"):
		// "Item with id 'rs_…' not found. Items are not persisted when
		// `store` is set to false." An item was sent by reference.
		return s.Fail(err, "%s no longer has an item an earlier reply refers to (%s: %s): compact the conversation with /compact, or start a new session",
			s.Who, r.Line, r.Detail)
	case r.Status == http.StatusNotFound && api == APIResponses:
		return s.Fail(err, `%s has no Responses API endpoint at %s (%s): set "openai_api": "chat" in the configuration for a server that speaks only Chat Completions, or check %s`,
			s.Who, s.Endpoint, r.Line, EnvBaseURL)
	case r.Status == http.StatusNotFound:
		return s.Fail(err, "%s has no chat completions endpoint at %s (%s): check %s, which usually ends in /v1",
			s.Who, s.Endpoint, r.Line, EnvBaseURL)
	case wire.IsContextOverflow(r.Code, r.Message):
		return s.Overflow(err, r.Message)
	case r.Code == "invalid_encrypted_content" || strings.Contains(lower, "could not be verified"):
		// Encrypted reasoning is bound to the organization that made it.
		return s.Fail(err, "%s could not verify the reasoning of an earlier reply (%s: %s): it was made with another API key or organization; compact the conversation with /compact, or start a new session",
			s.Who, r.Line, r.Detail)
	case r.Status == http.StatusBadRequest && strings.Contains(lower, "function tools with reasoning_effort"):
		// Chat Completions takes function tools with a reasoning model only
		// at reasoning_effort "none" from GPT-5.4 on.
		return s.Fail(err, `%s takes tools with reasoning only on the Responses API (%s: %s): set "openai_api": "responses" in the configuration, or the reasoning effort to off (%s)`,
			s.Who, r.Line, r.Detail, reasoningSettings)
	case r.Status == http.StatusBadRequest && isReasoningParam(param, lower):
		return s.Fail(err, "%s refused the reasoning setting for %s (%s: %s): change the reasoning effort with %s",
			s.Who, s.Model, r.Line, r.Detail, reasoningSettings)
	case r.Status == http.StatusBadRequest && (param == "max_tokens" || strings.Contains(lower, "'max_tokens'")):
		return s.Fail(err, `%s refused max_tokens (%s: %s): remove "max_output_tokens" from the configuration`, s.Who, r.Line, r.Detail)
	case r.Status == http.StatusBadRequest && strings.HasPrefix(lower, "unsupported parameter"):
		return s.Fail(err, "%s refused a setting %s does not take (%s: %s): agenttui sets no sampling parameters, so remove it from the request options that add it",
			s.Who, s.Model, r.Line, r.Detail)
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

// isReasoningParam recognises a refusal of a reasoning setting: by the
// error's param (reasoning.effort, reasoning.summary, reasoning_effort), or
// by its message ("Unsupported value: 'reasoning.effort' does not support
// 'none' with this model.", "Unsupported parameter: 'reasoning_effort' is
// not supported with this model.").
func isReasoningParam(param, lowerMsg string) bool {
	if param == "reasoning" || strings.HasPrefix(param, "reasoning.") || param == "reasoning_effort" {
		return true
	}
	return strings.Contains(lowerMsg, "'reasoning.") || strings.Contains(lowerMsg, "'reasoning_effort'")
}

// eventError is an error the Responses API reported in the middle of a
// reply: an error event, or a response.failed event.
type eventError struct {
	code, message string
}

func (e *eventError) Error() string { return e.message }

// midReply recognises an error in the middle of a reply: on Chat
// Completions an error event, which the SDK returns as a StreamError, and on
// the Responses API an eventError. The code makes an error that making the
// request again cannot mend final; any other may pass.
func midReply(err error) (code, msg string, ok bool) {
	var ee *eventError
	if errors.As(err, &ee) {
		return finalCode(ee.code), ee.message, true
	}
	var se *ssestream.StreamError
	if !errors.As(err, &se) {
		return "", "", false
	}
	code, msg = wire.ErrorBody(se.Event.Data)
	return finalCode(code), msg, true
}

// finalCode returns the code of a mid-reply error as wire reads it: an error
// the request itself caused (a prompt refused by a policy, reasoning that
// cannot be verified, an image that cannot be read) as the
// invalid_request_error that wire knows to be final, and any other code as
// it is. The codes are those of the Responses API's error object.
func finalCode(code string) string {
	switch {
	case code == "invalid_prompt", code == "invalid_encrypted_content", code == "bio_policy",
		code == "misalignment_policy_violation", code == "data_residency_mismatch",
		strings.HasPrefix(code, "image_"), strings.HasPrefix(code, "invalid_image"):
		return "invalid_request_error"
	}
	return code
}
