package runtime

import "time"

// Clock tells the time and waits. The runtime takes it from its Agent so that
// tests of backoff and budgets control time instead of sleeping.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type systemClock struct{}

func (systemClock) Now() time.Time                         { return time.Now() }
func (systemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// SystemClock returns the clock of the operating system.
func SystemClock() Clock { return systemClock{} }
