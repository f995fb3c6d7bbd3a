package openai_test

import (
	"testing"
	"time"

	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/internal/wiretest"
	"github.com/agenttui/agenttui/runtime/model/openai"
)

// FuzzReplyStream feeds the OpenAI provider fuzzed Chat Completions streams.
func FuzzReplyStream(f *testing.F) {
	wiretest.FuzzStream(f, "testdata/streams", func(base string) model.Model {
		m, err := openai.New("test-model", openai.WithBaseURL(base+"/v1"), openai.WithAPIKey(testKey),
			openai.WithStallTimeout(2*time.Second))
		if err != nil {
			f.Fatal(err)
		}
		return m
	})
}
