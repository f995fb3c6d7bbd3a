package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"
	"unicode/utf8"

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

// FuzzResponsesStream feeds the OpenAI provider fuzzed Responses API
// streams; the seeds in testdata/responses are streams as OpenAI sends
// them. Besides what FuzzStream checks, every reasoning part of a reply must
// be one the next request can carry: readable text that is UTF-8, and a
// payload that is a JSON object, or none.
func FuzzResponsesStream(f *testing.F) {
	wiretest.FuzzStream(f, "testdata/responses", func(base string) model.Model {
		m, err := openai.New("test-model", openai.WithBaseURL(base+"/v1"), openai.WithAPIKey(testKey),
			openai.WithAPI(openai.APIResponses), openai.WithStallTimeout(2*time.Second))
		if err != nil {
			f.Fatal(err)
		}
		return checked{m}
	})
}

// checked is a model whose replies' reasoning is checked as it returns.
type checked struct{ model.Model }

func (c checked) Reply(ctx context.Context, req model.Request, onDelta func(model.Delta)) (model.Reply, error) {
	r, err := c.Model.Reply(ctx, req, onDelta)
	for _, p := range r.Reasoning {
		var obj map[string]json.RawMessage
		if !utf8.ValidString(p.Text) || (p.Data != "" && (json.Unmarshal([]byte(p.Data), &obj) != nil || obj == nil)) {
			panic(fmt.Sprintf("a reasoning part the next request cannot carry: %+v", p))
		}
	}
	return r, err
}
