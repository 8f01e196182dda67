// Package tokens estimates how many tokens text takes in a model request,
// with the o200k encoding (the one of current OpenAI models; other
// providers' tokenizers land close enough for a budget).
package tokens

import (
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
	"github.com/tiktoken-go/tokenizer/codec"

	"github.com/airi-go/airi/state"
)

// Framing counts of the chat completion format: every message costs a few
// tokens around its content, and every request a few more to prime the
// answer.
const (
	PerMessage = 4
	PerRequest = 3
)

// Counter counts o200k tokens. It is safe for concurrent use.
type Counter struct {
	codec tokenizer.Codec
}

// New returns a counter. The vocabulary is embedded in the binary, so this
// needs no network.
func New() *Counter {
	c := codec.NewO200kBase()
	c.SetErrorMode(tokenizer.ErrorModeReplace)
	return &Counter{codec: c}
}

// Count returns the number of tokens of s.
func (c *Counter) Count(s string) int {
	if s == "" {
		return 0
	}
	n, err := c.codec.Count(s)
	if err != nil {
		// Invalid UTF-8 is replaced, so this is not expected; a byte count
		// never underestimates.
		return len(s)
	}
	return n
}

// Message returns the tokens one request message takes, framing included.
func (c *Counter) Message(m state.ChatMessage) int {
	return c.Count(m.Content) + PerMessage
}

// Request returns the prompt tokens of a whole request, the way chat
// completion APIs count them: each message's content plus its framing,
// plus the request's.
func (c *Counter) Request(msgs []state.ChatMessage) int {
	n := PerRequest
	for _, m := range msgs {
		n += c.Message(m)
	}
	return n
}

// Fit returns s when it takes at most limit tokens, else the longest
// cut(s, n) (s cut to n runes, with whatever marker cut adds) that does,
// or cut(s, 0) when none does. It counts O(log n) times.
func (c *Counter) Fit(s string, limit int, cut func(s string, n int) string) string {
	if c.Count(s) <= limit {
		return s
	}
	lo, hi := 0, utf8.RuneCountInString(s) // cut(s, lo) fits or lo is 0; cut(s, hi) does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if c.Count(cut(s, mid)) <= limit {
			lo = mid
		} else {
			hi = mid
		}
	}
	return cut(s, lo)
}
