package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agenttui/agenttui/runtime/model"
)

func TestReasoningPricesAndWire(t *testing.T) {
	c, err := Parse("/etc/a/agenttui.json", []byte(`{
		"reasoning": {"effort": "High"},
		"prices": {"anthropic:claude-opus-4-7": {"input": 5, "cached_input": 0.5, "cache_write": 6.25, "output": 25},
		           "my-local": {"input": 0, "output": 0}},
		"openai_api": "chat",
		"system_prompt_file": "prompts/coding.md"}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Reasoning == nil || *c.Reasoning != model.EffortHigh {
		t.Errorf("reasoning %v", c.Reasoning)
	}
	if p := c.Prices["anthropic:claude-opus-4-7"]; p != (model.Price{Input: 5, CachedInput: 0.5, CacheWrite: 6.25, Output: 25}) {
		t.Errorf("opus price %+v", p)
	}
	// Unsaid cache prices are those of fresh input: a free local model
	// is free however it is read.
	if p, ok := c.Prices.Of("openai:my-local"); !ok || p != (model.Price{}) {
		t.Errorf("local price %+v %v", p, ok)
	}
	if c.OpenAIAPI != OpenAIChat {
		t.Errorf("openai_api %q", c.OpenAIAPI)
	}
	if c.SystemPromptFile != "/etc/a/prompts/coding.md" {
		t.Errorf("system_prompt_file %q, want it beside the configuration", c.SystemPromptFile)
	}
}

func TestReasoningPricesAndWireRefusals(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"reasoning": {"effort": "huge"}}`, `config a.json: reasoning.effort: unknown reasoning effort "huge": use off, low, medium, high, max or default`},
		{`{"reasoning": {"budget": 1024}}`, `config a.json: reasoning.budget: unknown key (known keys: effort)`},
		{`{"reasoning": "high"}`, `config a.json: reasoning: expected an object, got a string`},
		{`{"prices": {"m": {"input": 1}}}`, `config a.json: prices["m"]: output is missing: give input and output in dollars per million tokens`},
		{`{"prices": {"m": {"input": -1, "output": 1}}}`, `config a.json: prices["m"].input: a price must not be negative`},
		{`{"prices": {"m": {"input": "1", "output": 1}}}`, `config a.json: prices["m"].input: expected dollars per million tokens as a number, got a string`},
		{`{"prices": {"m": {"in": 1, "output": 1}}}`, `config a.json: prices["m"].in: unknown key (known keys: input, cached_input, cache_write, output)`},
		{`{"openai_api": "completions"}`, `config a.json: openai_api: must be "responses" (OpenAI's Responses API) or "chat" (Chat Completions), not "completions"`},
		{`{"system_prompt_file": " "}`, `config a.json: system_prompt_file: must not be empty; leave the key out to use agenttui's own prompt`},
	} {
		_, err := Parse("a.json", []byte(tc.json))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.json, err, tc.want)
		}
	}
}

func TestSystemPromptFile(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agenttui.json")
	if err := os.WriteFile(filepath.Join(dir, "prompt.md"), []byte("Be brief.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Parse(cfg, []byte(`{"system_prompt_file": "prompt.md"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.SystemPrompt(); err != nil || got != "Be brief.\n" {
		t.Errorf("prompt %q, %v", got, err)
	}
	c.SystemPromptFile = filepath.Join(dir, "gone.md")
	if _, err := c.SystemPrompt(); err == nil || err.Error() != "config "+cfg+": system_prompt_file: "+c.SystemPromptFile+" cannot be read: no such file or directory" {
		t.Errorf("a missing prompt file: %v", err)
	}
	if got, err := (&Config{}).SystemPrompt(); got != "" || err != nil {
		t.Errorf("no prompt file: %q, %v", got, err)
	}
}
