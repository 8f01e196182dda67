// Package tokens estimates how many tokens text takes in a model request,
// with the o200k encoding (the one of current OpenAI models; other
// providers' tokenizers land close enough for a budget).
package tokens

import (
	"strings"
	"unicode/utf8"

	"github.com/airi-go/airi/internal/tokens/internal/vocab"
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
	vocab   vocab.Vocab
	classes *classes
}

// New returns a counter. The vocabulary is embedded in the binary and read
// in place, so this needs no network and allocates next to nothing.
func New() *Counter {
	return &Counter{vocab: vocab.Embedded(), classes: newClasses()}
}

// Count returns the number of tokens of s, exactly as tiktoken-go's o200k
// encoder with invalid UTF-8 replaced counts them. It runs on every tick
// and allocates nothing for valid UTF-8 (BenchmarkCount).
func (c *Counter) Count(s string) int {
	if !utf8.ValidString(s) {
		s = replaceInvalid(s)
	}
	n := 0
	for i := 0; i < len(s); {
		e := c.classes.pieceEnd(s, i)
		if e < 0 {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			continue
		}
		n += pieceTokens(c.vocab, s[i:e])
		i = e
	}
	return n
}

// replaceInvalid returns s with each maximal ill-formed subsequence (as
// Unicode defines it) replaced by U+FFFD, the way the reference encoder
// cleans its input.
func replaceInvalid(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
			n = illFormedLen(s)
		} else {
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String()
}

// illFormedLen returns the length of the maximal ill-formed subsequence at
// the start of s: the longest prefix of a well-formed sequence, or one
// byte.
func illFormedLen(s string) int {
	need, lo, hi := 0, byte(0x80), byte(0xbf)
	switch c := s[0]; {
	case c >= 0xc2 && c <= 0xdf:
		need = 1
	case c == 0xe0:
		need, lo = 2, 0xa0
	case c == 0xed:
		need, hi = 2, 0x9f
	case c >= 0xe1 && c <= 0xef:
		need = 2
	case c == 0xf0:
		need, lo = 3, 0x90
	case c >= 0xf1 && c <= 0xf3:
		need = 3
	case c == 0xf4:
		need, hi = 3, 0x8f
	default:
		return 1
	}
	i := 1
	for ; i <= need && i < len(s); i++ {
		c := s[i]
		if i == 1 && (c < lo || c > hi) || i > 1 && (c < 0x80 || c > 0xbf) {
			break
		}
	}
	return i
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
