package actions

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/state"
)

// NameReact is the name of the react action.
const NameReact = "react"

// React puts an emoji reaction on a message: the quiet answer, when a
// word would be too much.
type React struct {
	ChannelID string `json:"channelId,omitempty" jsonschema:"minLength=1"`
	MessageID string `json:"messageId" jsonschema:"minLength=1"`
	Emoji     string `json:"emoji" jsonschema:"minLength=1,maxLength=16"`
	// Then says what follows a reaction that was set, as for SendMessage;
	// the catalog describes it once, at send_message.
	Then string `json:"then,omitempty" jsonschema:"enum=next,enum=end"`
}

// Reactor puts reactions on messages through the platform of their
// channel. r.ChannelID is the id the model sees. An error wrapping
// state.ErrOutcomeUnknown means the reaction may have been set; a
// *state.RefusedReactionError that the platform does not take the emoji
// there.
type Reactor interface {
	React(ctx context.Context, r state.Reacting) error
}

const (
	// ReactRate bounds the reactions the bot sets in one channel within
	// reactRateWindow.
	ReactRate       = 6
	reactRateWindow = time.Minute
)

// reactLog remembers the reactions set per channel, for the repeat and
// rate bounds: the newest ones, no older than the repeat window.
type reactLog struct {
	mu  sync.Mutex
	set map[string][]reactMark
}

type reactMark struct {
	message, emoji string
	at             time.Time
}

// check refuses a reaction that repeats one set within the repeat window
// or that would exceed the channel's rate; it returns the model's text.
func (l *reactLog) check(channel, message, emoji string, now time.Time) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	marks := l.prune(channel, now)
	recent := 0
	for _, m := range marks {
		if m.message == message && m.emoji == emoji {
			return fmt.Sprintf("not set: you already reacted %s to message %q %s ago; react to something new, or do nothing.",
				emoji, message, max(now.Sub(m.at), 0).Round(time.Second))
		}
		if now.Sub(m.at) < reactRateWindow {
			recent++
		}
	}
	if recent >= ReactRate {
		return fmt.Sprintf("not set: you set %d reactions in %q within the last minute, the most allowed; wait, or answer in words.", recent, channel)
	}
	return ""
}

// add records a reaction that was set or may have been.
func (l *reactLog) add(channel, message, emoji string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.set == nil {
		l.set = make(map[string][]reactMark)
	}
	l.set[channel] = append(l.prune(channel, now), reactMark{message: message, emoji: emoji, at: now})
}

// prune drops the marks older than the repeat window; callers hold mu.
func (l *reactLog) prune(channel string, now time.Time) []reactMark {
	marks := l.set[channel]
	i := 0
	for i < len(marks) && now.Sub(marks[i].at) > repeatWindow {
		i++
	}
	marks = marks[i:]
	if len(marks) == 0 {
		delete(l.set, channel)
	} else {
		l.set[channel] = marks
	}
	return marks
}

// react puts a reaction on a message: it refuses a repeat or a reaction
// over the channel's rate, records the reaction in the outbox, asks the
// platform, and records the outcome. Like a send it ends the turn unless
// the model asked for more, and a reaction whose outcome is unknown is
// reported, never repeated.
func (h *builtins) react(ctx context.Context, call Call) (Result, error) {
	p, ok := call.Action.Params.(*React)
	if !ok {
		return Result{}, fmt.Errorf("react got parameters of type %T", call.Action.Params)
	}
	ch, refusal, err := h.channel(ctx, p.ChannelID)
	if err != nil || refusal != nil {
		return deref(refusal), err
	}
	if h.deps.Reactor == nil {
		return Result{Next: true, Text: fmt.Sprintf("not set: reactions are not available in %q; answer in words, or not at all.", ch.ID)}, nil
	}
	emoji := strings.TrimSpace(p.Emoji)
	message := strings.TrimSpace(p.MessageID)
	if blank(emoji) || message == "" {
		return Result{Next: true, Text: "not set: give one emoji, such as 👍, and the id of the message it goes on."}, nil
	}
	now := h.deps.Now()
	if text := h.reacts.check(ch.ID, message, emoji, now); text != "" {
		return Result{Next: true, Text: text}, nil
	}
	id, err := h.deps.Store.AddOutbox(ctx, state.OutboxEntry{ChannelID: ch.ID, Kind: state.OutboxReaction, Content: emoji,
		ReplyTo: message, State: state.OutboxPending, Created: now, Updated: now})
	if err != nil {
		return Result{}, fmt.Errorf("record reaction in outbox: %w", err)
	}
	reactErr := h.deps.Reactor.React(ctx, state.Reacting{ChannelID: ch.ID, MessageID: message, Emoji: emoji})
	// Recording the outcome must survive a cancelled tick.
	bg := context.WithoutCancel(ctx)
	if reactErr != nil {
		st := state.OutboxFailed
		text := fmt.Sprintf("reaction %s on message %q in %q failed: %v", emoji, message, ch.ID, reactErr)
		var refused *state.RefusedReactionError
		switch {
		case errors.As(reactErr, &refused):
			text = fmt.Sprintf("not set: %q does not take %s as a reaction", ch.ID, emoji)
			if len(refused.Allowed) > 0 {
				text += "; use one of " + strings.Join(refused.Allowed, " ")
			}
		case errors.Is(reactErr, state.ErrOutcomeUnknown):
			st = state.OutboxUnknown
			text = fmt.Sprintf("the reaction %s on message %q in %q may or may not have been set (%v); it will not be repeated automatically", emoji, message, ch.ID, reactErr)
			h.reacts.add(ch.ID, message, emoji, now)
		}
		if err := h.deps.Store.SetOutboxState(bg, id, st, "", reactErr.Error()); err != nil {
			return Result{}, fmt.Errorf("record failed reaction: %w", err)
		}
		return Result{Next: true, Text: text}, nil
	}
	h.reacts.add(ch.ID, message, emoji, now)
	if err := h.deps.Store.SetOutboxState(bg, id, state.OutboxDone, message, ""); err != nil {
		h.deps.Logger.Error("reaction set, but its outbox entry could not be marked done",
			zap.String("channel", ch.ID), zap.String("message", message), zap.Error(err))
	}
	return Result{
		OK: true, Next: true, Answered: ch.ID == call.Channel, EndsTurn: p.Then != ThenNext,
		Text:    fmt.Sprintf("reacted %s to message %q in %q", emoji, message, ch.ID),
		Effects: []Effect{{Kind: "react", ChannelID: ch.ID, Content: emoji, MessageID: message}},
	}, nil
}
