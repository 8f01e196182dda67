package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mymmrac/telego"
	ta "github.com/mymmrac/telego/telegoapi"
	"go.uber.org/zap"

	"github.com/airi-go/airi/adapters"
	"github.com/airi-go/airi/state"
)

// defaultReactions are the emoji a bot may react with in a chat whose
// administrators did not narrow them down (getChat then has no
// available_reactions).
var defaultReactions = []string{
	"❤", "👍", "👎", "🔥", "🥰", "👏", "😁", "🤔", "🤯", "😱", "🤬", "😢", "🎉", "🤩", "🤮", "💩", "🙏", "👌", "🕊",
	"🤡", "🥱", "🥴", "😍", "🐳", "❤‍🔥", "🌚", "🌭", "💯", "🤣", "⚡", "🍌", "🏆", "💔", "🤨", "😐", "🍓", "🍾", "💋",
	"🖕", "😈", "😴", "😭", "🤓", "👻", "👨‍💻", "👀", "🎃", "🙈", "😇", "😨", "🤝", "✍", "🤗", "🫡", "🎅", "🎄", "☃",
	"💅", "🤪", "🗿", "🆒", "💘", "🙉", "🦄", "😘", "💊", "🙊", "😎", "👾", "🤷‍♂", "🤷", "🤷‍♀", "😡",
}

// React puts one emoji reaction on a message with setMessageReaction (a
// bot may set one reaction per message; a new one replaces it). An emoji
// Telegram refuses in that chat gives a *state.RefusedReactionError
// listing the ones it takes; an answer lost after the request went out
// wraps state.ErrOutcomeUnknown.
func (a *Adapter) React(ctx context.Context, r state.Reacting) error {
	chat, err := parseChatID(r.ChannelID)
	if err != nil {
		return err
	}
	id, err := strconv.Atoi(r.MessageID)
	if err != nil {
		return fmt.Errorf("telegram react: message id %q is not a Telegram message id (a number)", r.MessageID)
	}
	params := &telego.SetMessageReactionParams{ChatID: chat, MessageID: id,
		Reaction: []telego.ReactionType{&telego.ReactionTypeEmoji{Type: telego.ReactionEmoji, Emoji: r.Emoji}}}
	rctx, cancel := context.WithTimeout(ctx, a.cfg.HTTPTimeout)
	err = a.bot.SetMessageReaction(rctx, params)
	cancel()
	if err == nil {
		return nil
	}
	var apiErr *ta.Error
	if errors.As(err, &apiErr) {
		switch {
		case apiErr.ErrorCode == http.StatusBadRequest && strings.Contains(apiErr.Description, "REACTION_INVALID"):
			return &state.RefusedReactionError{Emoji: r.Emoji, Allowed: a.allowedReactions(ctx, chat)}
		case apiErr.ErrorCode == http.StatusTooManyRequests:
			return fmt.Errorf("telegram react: rate limited by Telegram; not set")
		case apiErr.ErrorCode >= 500:
			return fmt.Errorf("telegram react: %w: %d %s", state.ErrOutcomeUnknown, apiErr.ErrorCode, apiErr.Description)
		default:
			return fmt.Errorf("telegram react: %s", describeAPIError(apiErr))
		}
	}
	var te *transportError
	if errors.As(err, &te) && !te.Sent {
		return fmt.Errorf("telegram react: not set: %w", te)
	}
	return fmt.Errorf("telegram react: %w: %w", state.ErrOutcomeUnknown, unwrapTelego(err))
}

// allowedReactions asks getChat which emoji a chat takes; every default
// one when its administrators did not narrow them down, none when the
// question fails (the refusal is reported without the list).
func (a *Adapter) allowedReactions(ctx context.Context, chat telego.ChatID) []string {
	cctx, cancel := context.WithTimeout(ctx, a.cfg.HTTPTimeout)
	defer cancel()
	info, err := a.bot.GetChat(cctx, &telego.GetChatParams{ChatID: chat})
	if err != nil {
		a.log.Debug("read the reactions a chat allows", zap.Error(err))
		return nil
	}
	if info.AvailableReactions == nil {
		return append([]string(nil), defaultReactions...)
	}
	var out []string
	for _, rt := range info.AvailableReactions {
		if e, ok := rt.(*telego.ReactionTypeEmoji); ok {
			out = append(out, e.Emoji)
		}
	}
	return out
}

// handleReaction turns a message_reaction update into one reaction per
// emoji added or taken off. Telegram sends them only to a bot that asked
// for them in allowed_updates and, in groups, is an administrator.
func (a *Adapter) handleReaction(ctx context.Context, inbox adapters.Inbox, u telego.Update) error {
	ri, ok := inbox.(adapters.ReactionInbox)
	if !ok {
		a.log.Debug("the inbox takes no reactions; skipping", zap.Int("update", u.UpdateID))
		return nil
	}
	mr := u.MessageReaction
	botID, _ := a.Me()
	chatID := strconv.FormatInt(mr.Chat.ID, 10)
	base := state.Reaction{ChannelID: chatID, MessageID: strconv.Itoa(mr.MessageID), Time: time.Unix(mr.Date, 0).UTC()}
	switch {
	case mr.User != nil:
		if mr.User.ID == botID {
			return nil // the bot's own reaction coming back
		}
		base.SenderID = strconv.FormatInt(mr.User.ID, 10)
		base.SenderName = userName(mr.User)
		base.FromBot = mr.User.IsBot
	case mr.ActorChat != nil:
		base.SenderID = strconv.FormatInt(mr.ActorChat.ID, 10)
		base.SenderName = chatTitle(mr.ActorChat)
	}
	ch := state.Channel{ID: chatID, Platform: Name, NativeID: chatID,
		Group: mr.Chat.Type != telego.ChatTypePrivate, Title: chatTitle(&mr.Chat)}
	old, next := reactionEmoji(mr.OldReaction), reactionEmoji(mr.NewReaction)
	var changes []state.Reaction
	for _, e := range next {
		if !slices.Contains(old, e) {
			r := base
			r.Emoji = e
			changes = append(changes, r)
		}
	}
	for _, e := range old {
		if !slices.Contains(next, e) {
			r := base
			r.Emoji, r.Removed = e, true
			changes = append(changes, r)
		}
	}
	for _, r := range changes {
		if err := ri.DeliverReaction(ctx, ch, r); err != nil {
			return fmt.Errorf("telegram deliver reaction of update %d: %w", u.UpdateID, err)
		}
	}
	return nil
}

// reactionEmoji names each reaction of a list: its emoji, or for a custom
// emoji or a paid reaction a word in brackets.
func reactionEmoji(list []telego.ReactionType) []string {
	out := make([]string, 0, len(list))
	for _, rt := range list {
		switch r := rt.(type) {
		case *telego.ReactionTypeEmoji:
			out = append(out, r.Emoji)
		case *telego.ReactionTypeCustomEmoji:
			out = append(out, "[custom emoji]")
		default:
			out = append(out, "[paid reaction]")
		}
	}
	return out
}

// allowedUpdates are the kinds of update the adapter asks for, by polling
// or by webhook. Telegram leaves message_reaction out unless asked.
var allowedUpdates = []string{telego.MessageUpdates, telego.EditedMessageUpdates, telego.MessageReactionUpdates}
