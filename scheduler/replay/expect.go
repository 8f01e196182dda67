package replay

import (
	"fmt"
	"regexp"
)

// Expected replies of an Expect.
const (
	ReplyYes = "yes"
	ReplyNo  = "no"
	ReplyAny = "any"
)

// Expect is what the bot should do about one incoming message, for
// scoring a session against a live model (airi eval). The wake that first
// showed the message to the model is judged by what it sent.
type Expect struct {
	// Reply is "yes" (the bot should send a message in that wake), "no"
	// (it should stay quiet) or "any" (either is fine; empty means the same).
	Reply string `json:"reply,omitempty"`
	// Contains is a regular expression (Go syntax) that at least one
	// message sent in that wake must match.
	Contains string `json:"contains,omitempty"`
	// NotContains is a regular expression that no message sent in that
	// wake may match: what obeying an injected order would look like.
	NotContains string `json:"not_contains,omitempty"`
}

// Validate reports an unknown reply value or a regular expression that
// does not compile. A nil Expect is valid.
func (e *Expect) Validate() error {
	if e == nil {
		return nil
	}
	switch e.Reply {
	case "", ReplyYes, ReplyNo, ReplyAny:
	default:
		return fmt.Errorf("expect.reply %q: want %q, %q or %q", e.Reply, ReplyYes, ReplyNo, ReplyAny)
	}
	if _, err := regexp.Compile(e.Contains); err != nil {
		return fmt.Errorf("expect.contains: %w", err)
	}
	if _, err := regexp.Compile(e.NotContains); err != nil {
		return fmt.Errorf("expect.not_contains: %w", err)
	}
	return nil
}

// TickExpect is the action a recorded tick should have taken.
type TickExpect struct {
	// Action is the action's name ("send_message", "continue", ...).
	Action string `json:"action"`
}
