package config

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agenttui/agenttui/runtime/model"
)

var reasoningKeys = []string{"effort"}

var priceKeys = []string{"input", "cached_input", "cache_write", "output"}

// The wires "openai_api" chooses between.
const (
	// OpenAIResponses is OpenAI's Responses API, which keeps a reasoning
	// model's reasoning between calls.
	OpenAIResponses = "responses"
	// OpenAIChat is the Chat Completions API, which compatible servers
	// speak.
	OpenAIChat = "chat"
)

func (c *Config) loadReasoning(raw json.RawMessage, fail func(string, string, ...any) error) error {
	obj, err := objectOf(raw)
	if err != nil {
		return fail("reasoning", "%v", err)
	}
	for _, key := range sortedKeys(obj) {
		full := "reasoning." + key
		switch key {
		case "effort":
			s, err := stringOf(obj[key])
			if err != nil {
				return fail(full, "%v", err)
			}
			e, err := model.ParseEffort(s)
			if err != nil {
				return fail(full, "%v", err)
			}
			c.Reasoning = &e
		default:
			return fail(full, "unknown key (known keys: %s)", strings.Join(reasoningKeys, ", "))
		}
	}
	return nil
}

// loadPrices reads "prices": model names or prefixes, each with its price
// in US dollars per million tokens. Input and output are required; cached
// input and cache writes cost as fresh input when they are not given.
func (c *Config) loadPrices(raw json.RawMessage, fail func(string, string, ...any) error) error {
	obj, err := objectOf(raw)
	if err != nil {
		return fail("prices", "%v", err)
	}
	c.Prices = model.Prices{}
	for _, name := range sortedKeys(obj) {
		at := fmt.Sprintf("prices[%q]", name)
		if strings.TrimSpace(name) == "" {
			return fail(at, "a model name must not be empty")
		}
		fields, err := objectOf(obj[name])
		if err != nil {
			return fail(at, "%v; give {\"input\": …, \"output\": …} in dollars per million tokens", err)
		}
		got := map[string]float64{}
		for _, key := range sortedKeys(fields) {
			if !slices.Contains(priceKeys, key) {
				return fail(at+"."+key, "unknown key (known keys: %s)", strings.Join(priceKeys, ", "))
			}
			var v float64
			if err := json.Unmarshal(fields[key], &v); err != nil {
				return fail(at+"."+key, "expected dollars per million tokens as a number, got %s", kindOf(fields[key]))
			}
			if v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
				return fail(at+"."+key, "a price must not be negative")
			}
			got[key] = v
		}
		for _, need := range []string{"input", "output"} {
			if _, ok := got[need]; !ok {
				return fail(at, "%s is missing: give input and output in dollars per million tokens", need)
			}
		}
		p := model.Price{Input: got["input"], CachedInput: got["input"], CacheWrite: got["input"], Output: got["output"]}
		if v, ok := got["cached_input"]; ok {
			p.CachedInput = v
		}
		if v, ok := got["cache_write"]; ok {
			p.CacheWrite = v
		}
		c.Prices[name] = p
	}
	return nil
}

// SystemPrompt returns the system prompt system_prompt_file names, read
// now; "" with no error when the configuration names none. The file is
// read once, when a session starts, so that every request of the session
// carries the same bytes.
func (c *Config) SystemPrompt() (string, error) {
	if c == nil || c.SystemPromptFile == "" {
		return "", nil
	}
	data, err := os.ReadFile(c.SystemPromptFile)
	if err != nil {
		return "", &Error{File: c.Path, Key: "system_prompt_file", Problem: fmt.Sprintf("%s cannot be read: %v", c.SystemPromptFile, unwrapPathError(err))}
	}
	if strings.TrimSpace(string(data)) == "" {
		return "", &Error{File: c.Path, Key: "system_prompt_file", Problem: fmt.Sprintf("%s is empty", c.SystemPromptFile)}
	}
	return string(data), nil
}

// promptPath resolves the system_prompt_file value: a relative path is
// relative to the configuration file's folder, and ~/ is the home folder.
func promptPath(configPath, p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(configPath), p)
}
