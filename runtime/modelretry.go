package runtime

import (
	"errors"
	"fmt"
	"time"

	"github.com/agenttui/agenttui/runtime/model"
)

// modelRetry is the event of a model request made again.
func modelRetry(turn int, r model.Retry, now time.Time) ModelRetry {
	msg := ""
	if r.Err != nil {
		msg = r.Err.Error()
	}
	return ModelRetry{Turn: turn, Attempt: r.Attempt, Max: r.Max, Why: r.Why, Error: msg,
		WaitMS: r.Wait.Milliseconds(), At: Time{now}}
}

// modelFailed says how a model request failed, with how many attempts it
// got when it got more than one.
func modelFailed(err error) string {
	var ae *model.AttemptsError
	if errors.As(err, &ae) {
		return fmt.Sprintf("the model failed after %d attempts: %v", ae.Attempts, ae.Err)
	}
	return fmt.Sprintf("the model failed: %v", err)
}
