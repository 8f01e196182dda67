package satori

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/airi-go/airi/adapters"
	"github.com/airi-go/airi/state"
)

// wireEmoji is the emoji of a reaction event: a unicode emoji names
// itself; a platform's custom one has an id and a name.
type wireEmoji struct {
	ID   flexString `json:"id"`
	Name string     `json:"name"`
}

// React puts an emoji on a message with reaction.create. It is never
// retried: a failure after the request went out wraps
// state.ErrOutcomeUnknown, a refusal carries the server's text.
func (a *Adapter) React(ctx context.Context, r state.Reacting) error {
	if err := a.loadLogins(ctx); err != nil {
		return fmt.Errorf("react in %s: %w", r.ChannelID, err)
	}
	l, native, err := a.route(r.ChannelID)
	if err != nil {
		return fmt.Errorf("react in %s: %w", r.ChannelID, err)
	}
	body, err := json.Marshal(map[string]string{"channel_id": native, "message_id": platformReplyTo(r.MessageID), "emoji": r.Emoji})
	if err != nil {
		return fmt.Errorf("react in %s: encode: %w", r.ChannelID, err)
	}
	if _, err := a.call(ctx, "reaction.create", l, body); err != nil {
		var apiErr *APIError
		if errors.As(err, &apiErr) && apiErr.Status == 400 {
			return &state.RefusedReactionError{Emoji: r.Emoji}
		}
		return fmt.Errorf("react in %s: %w", r.ChannelID, err)
	}
	return nil
}

// handleReaction delivers a reaction-added or reaction-removed event. The
// bot's own reactions coming back are dropped; the inbox keeps those on
// the bot's messages only.
func (a *Adapter) handleReaction(ctx context.Context, inbox adapters.Inbox, ev *wireEvent) error {
	ri, ok := inbox.(adapters.ReactionInbox)
	if !ok {
		return nil
	}
	platform, selfID := ev.bot()
	l := a.addLogin(login{Platform: platform, SelfID: selfID})
	wc := ev.channel()
	user := ev.user()
	if wc == nil || wc.ID == "" || ev.Message == nil || ev.Message.id() == "" {
		a.log.Warn("reaction event without a channel or a message; ignored", zap.String("type", ev.Type))
		return nil
	}
	if id := user.id(); id != "" && id == l.SelfID {
		return nil
	}
	emoji := ""
	if ev.Emoji != nil {
		emoji = ev.Emoji.Name
		if emoji == "" {
			emoji = string(ev.Emoji.ID)
		}
	}
	if emoji == "" {
		emoji = ev.Message.Content
	}
	if emoji == "" {
		a.log.Warn("reaction event without an emoji; ignored", zap.String("type", ev.Type))
		return nil
	}
	guild := ev.guild()
	ch := state.Channel{ID: a.channelID(l, string(wc.ID)), Platform: Name, NativeID: string(wc.ID),
		Group: !((wc.Type != nil && *wc.Type == channelDirect) || guild == nil || guild.ID == "")}
	r := state.Reaction{
		ChannelID: ch.ID, MessageID: ev.Message.id(), SenderID: user.id(), SenderName: displayName(ev.member(), user),
		FromBot: user != nil && user.IsBot, Emoji: truncate(emoji, state.MaxEmojiBytes),
		Removed: ev.Type == "reaction-removed", Time: msgTime(ev.Timestamp.V, a.cfg.Now()),
	}
	if err := ri.DeliverReaction(ctx, ch, r); err != nil {
		return fmt.Errorf("%w reaction in %s: %w", errDeliver, ch.ID, err)
	}
	return nil
}
