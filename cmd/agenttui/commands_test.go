package main

import (
	"strings"
	"testing"
)

func TestConsoleModelNeedsTheProvidersKey(t *testing.T) {
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
		if _, err := consoleModel(spec, modelSettings{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("consoleModel(%q) = %v, want an error saying %q", spec, err, want)
		}
	}
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test-key-0123456789")
	m, err := consoleModel("anthropic:claude-sonnet-4-5", modelSettings{})
	if err != nil || m.Name() != "anthropic:claude-sonnet-4-5" {
		t.Fatalf("with the key set: %v, %v", m, err)
	}
}
