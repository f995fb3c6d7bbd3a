package anthropic

// The prompt cache, as https://platform.claude.com/docs/en/build-with-claude/prompt-caching
// describes it: a cache_control breakpoint on a block caches the prompt up
// to and including that block, in the order tools, system, messages; a later
// request whose prompt starts with the same blocks reads them from the cache
// instead (cache_read_input_tokens) and pays for writing what it adds
// (cache_creation_input_tokens). The cache is looked up at each breakpoint
// and at the block boundaries up to 20 blocks before it. A request may have
// at most four breakpoints ("A maximum of 4 blocks with cache_control may
// be provided. Found 5."), and a prompt shorter than the model's minimum
// (from 512 tokens on the newest models to 4,096 on Opus 4.5 and 4.6 and
// Haiku 4.5) is not cached, without an error.

// MaxBreakpoints is how many cache_control breakpoints a request may have.
const MaxBreakpoints = 4

// markCache sets the request's cache breakpoints and returns how many it
// set: on the last tool, on the system prompt, on the last block of the
// latest user message, so that the next request reads this one from the
// cache, and on the last block of the user message before it, which is
// where the previous request ended: the previous request's cache entry is
// then found however many blocks the reply and its results added, past the
// 20 blocks the API looks back.
func markCache(r *request) int {
	n := 0
	mark := func(flag *bool) {
		if n < MaxBreakpoints {
			*flag = true
			n++
		}
	}
	if len(r.tools) > 0 {
		mark(&r.tools[len(r.tools)-1].cache)
	}
	if r.system != "" {
		mark(&r.systemCache)
	}
	users := 0
	for i := len(r.messages) - 1; i >= 0 && users < 2; i-- {
		if r.messages[i].role != "user" {
			continue
		}
		users++
		blocks := r.messages[i].blocks
		for j := len(blocks) - 1; j >= 0; j-- {
			// Thinking blocks cannot carry cache_control; user messages hold
			// none, but this keeps the rule where it is.
			if k := blocks[j].kind; k == blockThinking || k == blockRedacted {
				continue
			}
			mark(&blocks[j].cache)
			break
		}
	}
	return n
}
