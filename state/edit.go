package state

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Edits is the part of the contract that keeps what happens to a message
// on the platform after it arrived: people fix typos and delete what they
// regret.
type Edits interface {
	// EditMessage gives the stored message (e.ChannelID, e.PlatformID)
	// its new text: Content becomes e.Content, Previous the text it
	// replaces, Changed e.Time, Edited is set and Mentioned and
	// ReplyToSelf take e's. It
	// returns the message as it was and as it is now; changed is false
	// (and nothing is written) when the text is the same, which makes a
	// repeated edit idempotent, or when the message was deleted. An
	// unknown message gives ErrNotFound.
	EditMessage(ctx context.Context, e Edit) (before, after Message, changed bool, err error)
	// DeleteMessage marks the stored message (channelID, platformID)
	// deleted: it leaves the unread pool and the history (History and
	// Unread no longer return it; Timeline and Events still do, marked).
	// It returns the message as it was before; changed is false when it
	// was deleted already. at, when the deletion was reported, becomes
	// the message's Changed. An unknown message gives ErrNotFound.
	DeleteMessage(ctx context.Context, channelID, platformID string, at time.Time) (before Message, changed bool, err error)
}

// Edit is the new text of a stored message.
type Edit struct {
	ChannelID  string
	PlatformID string
	Content    string
	// Mentioned and ReplyToSelf are what the new text says of the bot.
	Mentioned   bool
	ReplyToSelf bool
	// Time is when the edit was made or reported; it becomes the
	// message's Changed.
	Time time.Time
}

// Validate reports what is wrong with an edit.
func (e Edit) Validate() error {
	var errs []error
	if e.ChannelID == "" {
		errs = append(errs, errors.New("edit: empty channel id"))
	}
	if e.PlatformID == "" {
		errs = append(errs, errors.New("edit: empty platform message id"))
	}
	if len(e.Content) > MaxContentBytes {
		errs = append(errs, fmt.Errorf("edit: content of %d bytes exceeds %d", len(e.Content), MaxContentBytes))
	}
	return errors.Join(errs...)
}

// Clean returns e with its text cleaned as CleanText does.
func (e Edit) Clean() Edit {
	e.ChannelID = CleanText(e.ChannelID)
	e.PlatformID = CleanText(e.PlatformID)
	e.Content = CleanText(e.Content)
	return e
}
