package assets

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"testing"
)

// systemPromptSHA256 pins the system prompt. Every byte of it is in the
// prefix a provider caches and in what every model reads, so a change must
// be meant: change the prompt, then this digest, in the same commit.
const systemPromptSHA256 = "ea8589b4d4f478ffda992a4cb2ceba649479980564951a2cf10048ff311508e4"

func TestSystemPromptIsPinned(t *testing.T) {
	sum := sha256.Sum256([]byte(SystemPrompt))
	if got := hex.EncodeToString(sum[:]); got != systemPromptSHA256 {
		t.Errorf("assets/system_prompt.md changed (sha256 %s, pinned %s): if the change is meant, update systemPromptSHA256", got, systemPromptSHA256)
	}
}

// TestSystemPromptSaysWhatTheIssueAsks checks the prompt covers each thing a
// model needs from it, by the words it must use: the tools and results it
// names must be the runtime's own.
func TestSystemPromptSaysWhatTheIssueAsks(t *testing.T) {
	for _, want := range []string{
		"run side by side", // how batches run
		"in one reply",     // what to batch
		"Explore before you change anything",
		"edit_file", "run_shell", "write_file", "read_file", "list_dir", "glob", "grep",
		"run the project's tests",
		"Skipped:", "Denied:", "Not finished:", "Cut:", "Error:",
		"finish", "ask_user", "remember",
	} {
		if !strings.Contains(SystemPrompt, want) {
			t.Errorf("the system prompt does not say %q", want)
		}
	}
}

// TestSystemPromptIsTheSameEveryTime checks nothing in the prompt can vary
// between requests: no date, time or template to fill in.
func TestSystemPromptIsTheSameEveryTime(t *testing.T) {
	if regexp.MustCompile(`\d{4}-\d{2}-\d{2}|\{\{|%[sdv]`).MatchString(SystemPrompt) {
		t.Error("the system prompt holds a date or a placeholder")
	}
	if strings.Contains(SystemPrompt, "\r") || !strings.HasSuffix(SystemPrompt, "\n") || strings.HasSuffix(SystemPrompt, "\n\n") {
		t.Error("the system prompt's line endings are not plain")
	}
}
