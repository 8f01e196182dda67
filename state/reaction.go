package state

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Reaction is an emoji a person (or another bot) put on, or took off, one
// of the bot's own messages. The bot is shown each one once, in the state
// message of its next request; a reaction never wakes the bot by itself.
type Reaction struct {
	// ID is assigned by the store, increasing in arrival order.
	ID        int64  `json:"id,omitempty"`
	ChannelID string `json:"channelId"`
	// MessageID is the platform id of the bot's message reacted to.
	MessageID  string `json:"messageId"`
	SenderID   string `json:"senderId,omitempty"`
	SenderName string `json:"sender"`
	// FromBot says the one who reacted is a bot.
	FromBot bool   `json:"fromBot,omitempty"`
	Emoji   string `json:"emoji"`
	// Removed says the reaction was taken off the message.
	Removed bool      `json:"removed,omitempty"`
	Time    time.Time `json:"time"`
}

// MaxEmojiBytes bounds a stored reaction's emoji (Telegram's longest are a
// few code points joined; a custom emoji is shown by its id).
const MaxEmojiBytes = 64

// Validate reports what is wrong with an incoming reaction.
func (r Reaction) Validate() error {
	var errs []error
	if r.ChannelID == "" {
		errs = append(errs, errors.New("reaction: empty channel id"))
	}
	if r.MessageID == "" {
		errs = append(errs, errors.New("reaction: empty message id"))
	}
	if r.Emoji == "" {
		errs = append(errs, errors.New("reaction: empty emoji"))
	}
	if len(r.Emoji) > MaxEmojiBytes {
		errs = append(errs, errors.New("reaction: emoji longer than 64 bytes"))
	}
	if r.Time.IsZero() {
		errs = append(errs, errors.New("reaction: zero time"))
	}
	return errors.Join(errs...)
}

// Reactions keeps the reactions to the bot's own messages until the bot
// has been shown them.
type Reactions interface {
	// AddReaction stores a reaction to one of the bot's own messages: a
	// message of r.ChannelID whose platform id is r.MessageID and that is
	// stored as the bot's (Self). A reaction to anyone else's message, or
	// to a message not stored, is not stored and gives stored=false
	// without an error; so does one stored before (the same sender,
	// emoji, message, removal and time: an update received twice). An invalid reaction gives its Validate error.
	AddReaction(ctx context.Context, r Reaction) (stored bool, err error)
	// NewReactions returns up to limit reactions of a channel not yet
	// marked shown, oldest first (limit <= 0 means all).
	NewReactions(ctx context.Context, channelID string, limit int) ([]Reaction, error)
	// MarkReactionsShown marks the given reactions shown: NewReactions no
	// longer returns them. Unknown ids are ignored.
	MarkReactionsShown(ctx context.Context, ids []int64) error
	// ReactionEvents returns the stored reactions, shown or not, in id
	// order, filtered like Events (on the reaction's Time), for exporting
	// recorded sessions.
	ReactionEvents(ctx context.Context, f TickFilter) ([]Reaction, error)
	// ReactionCounts returns what the given messages of a channel (the
	// bot's, by platform id) carry now: per message and emoji, the
	// senders whose latest reaction with that emoji was not taken off.
	// Counts of zero are left out; the order is by message id, then
	// count (most first), then emoji.
	ReactionCounts(ctx context.Context, channelID string, messageIDs []string) ([]ReactionCount, error)
}

// ReactionCount is how many senders an emoji stands for on a message.
type ReactionCount struct {
	MessageID string
	Emoji     string
	Count     int
}

// OutboxReaction is the Kind of an outbox entry that puts a reaction on a
// message: its Content is the emoji, its ReplyTo the message's platform id.
const OutboxReaction = "reaction"

// Reacting is a reaction the runtime asks an adapter to put on a message.
// ChannelID is the platform's own id (not qualified with the platform
// name), MessageID the platform's id of the message.
type Reacting struct {
	ChannelID string
	MessageID string
	Emoji     string
}

// RefusedReactionError is returned by an adapter when the platform refused
// an emoji as a reaction in that chat; Allowed lists the emoji it takes
// there (empty when the platform did not say).
type RefusedReactionError struct {
	Emoji   string
	Allowed []string
}

func (e *RefusedReactionError) Error() string {
	if len(e.Allowed) == 0 {
		return fmt.Sprintf("the platform does not take %q as a reaction here", e.Emoji)
	}
	return fmt.Sprintf("the platform does not take %q as a reaction here; it takes one of %s", e.Emoji, strings.Join(e.Allowed, " "))
}
