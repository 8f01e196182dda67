package state

import (
	"errors"
	"fmt"
	"time"
)

// Message is one chat message, incoming or the bot's own.
type Message struct {
	// ID is assigned by the store, increasing in arrival order.
	ID        int64  `json:"id,omitempty"`
	ChannelID string `json:"channelId"`
	// PlatformID is the platform's message id, the deduplication key.
	PlatformID string `json:"platformId,omitempty"`
	SenderID   string `json:"senderId,omitempty"`
	SenderName string `json:"sender"`
	Self       bool   `json:"self,omitempty"`
	Content    string `json:"content"`
	ReplyTo    string `json:"replyTo,omitempty"`
	Mentioned  bool   `json:"mentioned,omitempty"`
	// ReplyToSelf says the message replies to one of the bot's own.
	ReplyToSelf bool `json:"replyToSelf,omitempty"`
	// FromBot says the sender is a bot (Telegram's is_bot, Satori's user.is_bot).
	FromBot bool      `json:"fromBot,omitempty"`
	Time    time.Time `json:"time"`
	Read    bool      `json:"read,omitempty"`
	// Decision is what the attention policy made of the message when it
	// arrived: the reason of the wake it started ("direct",
	// "addressed:mention", "ambient", ...) or why it woke nothing
	// ("unaddressed", "cooldown", "budget", "sender-rate", "bot"). Empty
	// for the bot's own messages and when no policy decided.
	Decision string `json:"decision,omitempty"`
	// Edited says the message was changed on the platform after it
	// arrived; Content is its newest text and Previous the text before
	// the latest edit. Delivered to the runtime, an Edited message is an
	// edit of the stored message with the same PlatformID.
	Edited   bool   `json:"edited,omitempty"`
	Previous string `json:"previous,omitempty"`
	// Deleted says the message was deleted on the platform: it is never
	// shown to the model again. Delivered to the runtime, a Deleted
	// message is the deletion of the stored one with the same PlatformID.
	Deleted bool `json:"deleted,omitempty"`
	// Changed is when the latest edit or the deletion arrived (zero:
	// never changed).
	Changed time.Time `json:"changed,omitempty"`
	// Media are the message's attachments (a photo, a sticker, a voice
	// note, files); Content is their caption.
	Media []Media `json:"media,omitempty"`
}

// MaxContentBytes bounds a stored message; longer incoming text is cut by
// the adapter with a marker.
const MaxContentBytes = 16 << 10

// Validate reports what is wrong with an incoming message.
func (m Message) Validate() error {
	var errs []error
	if m.ChannelID == "" {
		errs = append(errs, errors.New("message: empty channel id"))
	}
	if m.Time.IsZero() {
		errs = append(errs, errors.New("message: zero time"))
	}
	if len(m.Content) > MaxContentBytes {
		errs = append(errs, fmt.Errorf("message: content of %d bytes exceeds %d", len(m.Content), MaxContentBytes))
	}
	if len(m.Media) > MaxMediaPerMessage {
		errs = append(errs, fmt.Errorf("message: %d attachments exceed %d", len(m.Media), MaxMediaPerMessage))
	}
	for i, md := range m.Media {
		if err := md.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("message: attachment %d: %w", i, err))
		}
	}
	return errors.Join(errs...)
}
