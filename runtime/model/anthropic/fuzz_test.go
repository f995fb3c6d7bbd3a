package anthropic_test

import (
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/anthropic"
	"github.com/agenttui/agenttui/runtime/model/internal/wiretest"
)

// FuzzReplyStream feeds the Anthropic provider fuzzed Messages streams.
func FuzzReplyStream(f *testing.F) {
	wiretest.FuzzStream(f, "testdata/streams", func(base string) model.Model {
		m, err := anthropic.New("test-model", anthropic.WithBaseURL(base), anthropic.WithAPIKey(testKey),
			anthropic.WithStallTimeout(2*time.Second))
		if err != nil {
			f.Fatal(err)
		}
		return m
	})
}
