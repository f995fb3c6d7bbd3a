package anthropic

import (
	"errors"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/agenttui/agenttui/runtime/model/internal/wire"
)

// explainStatus explains an HTTP error response of Anthropic or a gateway.
func explainStatus(s *wire.Server, err error, r wire.Response) error {
	switch {
	case r.Status == http.StatusUnauthorized:
		return s.KeyRejected(err, r)
	case r.Status == http.StatusNotFound && strings.Contains(strings.ToLower(r.Message), "model"):
		return s.Fail(err, "%s does not know the model %q (%s: %s): check the name after anthropic:", s.Who, s.Model, r.Line, r.Detail)
	case r.Status == http.StatusNotFound:
		return s.Fail(err, "%s has no messages endpoint at %s (%s): check %s, which should not end in /v1",
			s.Who, s.Endpoint, r.Line, EnvBaseURL)
	case r.Status == http.StatusBadRequest && refusedSetting(r.Message):
		return s.Fail(err, "%s refused the reasoning setting sent to %s (%s: %s): change the reasoning effort "+
			`with "reasoning": {"effort": …} in the configuration, --reasoning, or /reasoning in the console`,
			s.Who, s.Model, r.Line, r.Detail)
	case wire.IsContextOverflow(r.Code, r.Message) || r.Status == http.StatusRequestEntityTooLarge:
		return s.Overflow(err, r.Message)
	case r.Status == http.StatusForbidden:
		return s.Refused(err, r)
	case strings.Contains(strings.ToLower(r.Message), "credit balance"):
		return s.Fail(err, "%s says the account has no credit left (%s: %s): check its plan and billing", s.Who, r.Line, r.Detail)
	case r.Status == http.StatusTooManyRequests:
		return s.RateLimited(err, r)
	case r.Status == 529 || r.Code == "overloaded_error":
		return s.Overloaded(err, r)
	case r.Status == http.StatusRequestTimeout || r.Status == http.StatusConflict:
		return s.TryLater(err, r)
	case r.Status >= 500:
		return s.ServerFailed(err, r)
	default:
		return s.Rejected(err, r)
	}
}

// settingWords are what the API's refusals of a thinking setting say: a
// thinking type the model does not take ("\"thinking.type.disabled\" is not
// supported for this model", "adaptive thinking is not supported on this
// model", Sonnet 5.5's "To turn thinking off on this model, send
// \"thinking\": {\"type\": \"between_tools\"}"), an effort it does not
// take ("This model does not support the effort parameter.",
// "output_config.effort 'xhigh' is not supported when thinking is disabled
// on this model"), a budget ("`max_tokens` must be greater than
// `thinking.budget_tokens`") and the sampling parameters thinking does not
// allow ("`temperature` may only be set to 1 when thinking is enabled"). A
// refusal of a thinking block sent back ("Invalid `signature` in
// `thinking` block") is not one: no setting mends it.
var settingWords = []string{"thinking.type", "adaptive thinking", "between_tools", "budget_tokens", "effort", "temperature", "top_p", "top_k"}

// refusedSetting reports whether msg refuses a reasoning setting.
func refusedSetting(msg string) bool {
	lower := strings.ToLower(msg)
	if strings.Contains(lower, "signature") || strings.Contains(lower, "cannot be modified") {
		return false
	}
	for _, w := range settingWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// statusText words a status; 529 has no standard text, so the error type
// stands in for it.
func statusText(status int, code string) string {
	if t := http.StatusText(status); t != "" {
		return t
	}
	if status == 529 {
		return "Overloaded"
	}
	return code
}

// midReply recognises an error event in the reply and reads its body.
func midReply(err error) (code, msg string, ok bool) {
	body, ok := streamError(err)
	if !ok {
		return "", "", false
	}
	code, msg = wire.ErrorBody(body)
	return code, msg, true
}

// streamError returns the body of an error event in the stream.
func streamError(err error) ([]byte, bool) {
	var ae *sdk.Error
	if errors.As(err, &ae) && ae.RawJSON() != "" {
		return []byte(ae.RawJSON()), true
	}
	const prefix = "received error while streaming: "
	if s := err.Error(); strings.HasPrefix(s, prefix) {
		return []byte(strings.TrimPrefix(s, prefix)), true
	}
	return nil, false
}
