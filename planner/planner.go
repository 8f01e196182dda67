// Package planner turns a channel's situation into one model request
// (sections, history window, state message) and defines the Model a
// client answers it through. It neither calls the model nor parses the
// answer: the scheduler does both, with a client such as planner/openai
// and the parser in planner/parse.
package planner

import (
	"context"
	"errors"
	"time"

	"github.com/airi-go/airi/state"
)

// Request is one chat completion request.
type Request struct {
	// ChannelID is the channel the tick belongs to.
	ChannelID string
	Messages  []state.ChatMessage
	// User is the stable per-channel user field ("airi:<channel id>"), or
	// empty when it is turned off.
	User string
}

// Response is the model's answer.
type Response struct {
	// Content is the answer text as returned (think blocks included, for the trace).
	Content string
	// Reasoning is what the provider returned separately as reasoning, if anything.
	Reasoning string
	Usage     state.Usage
	Latency   time.Duration
	Attempts  int
	// FinishReason is the provider's finish_reason ("stop", "length",
	// "tool_calls", ...), empty when it gave none.
	FinishReason string
	// Ended reports that the answer arrived whole (a complete body, or a
	// stream that reached its end). The parser reads the end of an answer
	// that did not, or whose reason is "length", as cut off.
	Ended bool
}

// Model answers chat completion requests. Errors are wrapped with what
// failed; a permanent failure (bad key, model or URL) wraps ErrPermanent.
type Model interface {
	Complete(ctx context.Context, req Request) (Response, error)
}

// ErrPermanent is wrapped by model errors that retrying cannot fix: a bad
// key, an unknown model, a wrong URL.
var ErrPermanent = errors.New("permanent model error")

// ErrContextLength is wrapped by model errors saying that the request is
// longer than the model's context window. The same request fails again,
// a shorter one may not: the scheduler retries once with a smaller history.
var ErrContextLength = errors.New("request exceeds the model's context length")
