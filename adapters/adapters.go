// Package adapters declares what every platform adapter needs from the
// runtime. The adapters themselves live in one package each
// (adapters/console, adapters/satori, adapters/telegram); they depend on
// the domain types in state and on these interfaces, never on the
// scheduler, the planner or the actions.
package adapters

import (
	"context"

	"github.com/airi-go/airi/state"
)

// Inbox is where an adapter delivers what it receives; the runtime
// implements it.
type Inbox interface {
	// Deliver stores msg durably (deduplicated by ChannelID+PlatformID) and
	// wakes its channel. It returns only once the message is stored; on
	// error it was not stored and must not be confirmed upstream.
	Deliver(ctx context.Context, ch state.Channel, msg state.Message) error
}

// Cursors persists adapter positions (an update offset, a session id)
// across restarts; the state store implements it.
type Cursors interface {
	// Cursor returns the stored value of key, or "" when unset.
	Cursor(ctx context.Context, key string) (string, error)
	// SetCursor stores value under key.
	SetCursor(ctx context.Context, key, value string) error
}

// ReactionInbox is the optional part of an Inbox that takes reactions;
// the runtime's inbox has it. An adapter whose inbox lacks it drops the
// reactions it receives.
type ReactionInbox interface {
	// DeliverReaction stores a reaction to one of the bot's messages (one
	// to anyone else's is dropped); it never wakes the channel. On error
	// nothing was stored and the update must not be confirmed upstream.
	DeliverReaction(ctx context.Context, ch state.Channel, r state.Reaction) error
}
