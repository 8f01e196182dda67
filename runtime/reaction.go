package runtime

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/adapters"
	"github.com/airi-go/airi/state"
)

// reactor is the ability of an adapter to put reactions on messages.
type reactor interface {
	React(ctx context.Context, r state.Reacting) error
}

// Reaction outcomes counted by Deps.OnReaction.
const (
	// ReactionReceived is a reaction to one of the bot's messages, stored
	// for the next state message.
	ReactionReceived = "received"
	// ReactionIgnored is a reaction to someone else's message (or to one
	// the bot does not have), or one stored already (an update received
	// twice).
	ReactionIgnored = "ignored"
)

// React implements actions.Reactor: it puts the reaction through the
// adapter of its channel.
func (r *router) React(ctx context.Context, x state.Reacting) error {
	a, id, err := r.resolve(x.ChannelID)
	if err != nil {
		return err
	}
	re, ok := a.(reactor)
	if !ok {
		return fmt.Errorf("%s does not support reactions", a.Name())
	}
	x.ChannelID = id
	return re.React(ctx, x)
}

// DeliverReaction implements adapters.ReactionInbox: a reaction to one
// of the bot's messages is stored for the next state message, one to
// anyone else's is dropped, and neither wakes the channel.
func (i *inbox) DeliverReaction(ctx context.Context, ch state.Channel, r state.Reaction) error {
	ch.ID = i.r.qualify(i.adapter, ch.ID)
	r.ChannelID = ch.ID
	if err := r.Validate(); err != nil {
		return fmt.Errorf("deliver reaction: %w", err)
	}
	stored, err := i.store.AddReaction(ctx, r)
	if err != nil {
		return fmt.Errorf("deliver reaction: %w", err)
	}
	outcome := ReactionIgnored
	if stored {
		outcome = ReactionReceived
		i.log.Debug("reaction to the bot's message", zap.String("channel", ch.ID), zap.String("message", r.MessageID),
			zap.Bool("removed", r.Removed))
	}
	if i.onReaction != nil {
		i.onReaction(ch.ID, outcome)
	}
	return nil
}

var (
	_ actions.Reactor        = (*router)(nil)
	_ adapters.ReactionInbox = (*inbox)(nil)
)
