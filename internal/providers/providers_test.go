package providers

import (
	"errors"
	"strings"
	"testing"

	"github.com/agenttui/agenttui/internal/config"
	"github.com/agenttui/agenttui/runtime/model"
	"github.com/agenttui/agenttui/runtime/model/openai"
)

// testKey is an API key for the tests; no message may hold it.
const testKey = "sk-ant-test-key-0123456789"

func TestForConsoleNeedsTheProvidersKey(t *testing.T) {
	for _, v := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"} {
		t.Setenv(v, "")
	}
	for spec, want := range map[string]string{
		"anthropic:claude-sonnet-4-5": "ANTHROPIC_API_KEY is not set, so anthropic:claude-sonnet-4-5 cannot be used",
		"openai:gpt-4o":               "OPENAI_API_KEY is not set, so openai:gpt-4o cannot be used",
		"openai:":                     "needs a model name",
		"demo":                        `"demo" is not a model this console can switch to`,
		"gemini:pro":                  "use openai:NAME or anthropic:NAME",
	} {
		if _, err := ForConsole(spec, Settings{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ForConsole(%q) = %v, want an error saying %q", spec, err, want)
		}
	}
	t.Setenv("ANTHROPIC_API_KEY", testKey)
	m, err := ForConsole("anthropic:claude-sonnet-4-5", Settings{})
	if err != nil || m.Name() != "anthropic:claude-sonnet-4-5" {
		t.Fatalf("with the key set: %v, %v", m, err)
	}
}

func TestOpenSpecs(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "http://localhost:11434/v1")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("ANTHROPIC_BASE_URL", "")
	t.Setenv("ANTHROPIC_API_KEY", testKey)
	for spec, want := range map[string]string{
		// An Ollama tag keeps its colon: only the first one ends the provider.
		"openai:llama3.2:3b":          "openai:llama3.2:3b",
		"anthropic:claude-sonnet-4-5": "anthropic:claude-sonnet-4-5",
	} {
		m, err := Open(spec, Settings{})
		if err != nil || m.Name() != want {
			t.Errorf("%s: %v, %v", spec, m, err)
		}
	}
	var pe *Error
	if _, err := Open("gemini:pro", Settings{}); !errors.As(err, &pe) ||
		err.Error() != `unknown model provider "gemini" in --model gemini:pro: use openai:<name>, anthropic:<name> or demo` {
		t.Errorf("unknown provider: %v", err)
	}
	t.Setenv("ANTHROPIC_API_KEY", "")
	if _, err := Open("anthropic:claude-opus-4-7", Settings{}); !errors.As(err, &pe) || err.Error() != "ANTHROPIC_API_KEY is not set: export it, or use --model demo" ||
		pe.MissingKey() != "ANTHROPIC_API_KEY" {
		t.Errorf("no key: %v", err)
	}
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	if _, err := Open("openai:gpt-5", Settings{}); !errors.As(err, &pe) || pe.MissingKey() != "OPENAI_API_KEY" {
		t.Errorf("no key: %v", err)
	}
	if _, err := Open("gemini:pro", Settings{}); !errors.As(err, &pe) || pe.MissingKey() != "" {
		t.Errorf("an unknown provider says a key is missing: %v", err)
	}
}

// TestOpenAIWire checks openai_api chooses the wire of openai: models, and
// that without it OpenAI itself gets the Responses API and a compatible
// server Chat Completions.
func TestOpenAIWire(t *testing.T) {
	wireOf := func(s Settings) openai.API {
		t.Helper()
		m, err := Open("openai:gpt-5", s)
		if err != nil {
			t.Fatal(err)
		}
		return m.(*model.Retrying).Model.(*openai.Model).API()
	}
	t.Setenv("OPENAI_API_KEY", testKey)
	t.Setenv("OPENAI_BASE_URL", "")
	if got := wireOf(Settings{}); got != openai.APIResponses {
		t.Errorf("OpenAI itself: %q", got)
	}
	if got := wireOf(Settings{OpenAIAPI: config.OpenAIChat}); got != openai.APIChat {
		t.Errorf("OpenAI with openai_api chat: %q", got)
	}
	t.Setenv("OPENAI_BASE_URL", "http://localhost:8000/v1")
	if got := wireOf(Settings{}); got != openai.APIChat {
		t.Errorf("a compatible server: %q", got)
	}
	if got := wireOf(Settings{OpenAIAPI: config.OpenAIResponses}); got != openai.APIResponses {
		t.Errorf("a compatible server with openai_api responses: %q", got)
	}
}
