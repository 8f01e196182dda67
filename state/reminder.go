package state

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ReminderState is where a reminder stands.
type ReminderState string

// Reminder states. Only a pending reminder falls due; the others are kept
// so that an operator can see what happened to it.
const (
	ReminderPending   ReminderState = "pending"
	ReminderDone      ReminderState = "done"
	ReminderCancelled ReminderState = "cancelled"
	// ReminderDropped is a reminder whose due time passed while the bot
	// was down for longer than the grace of late delivery.
	ReminderDropped ReminderState = "dropped"
)

// ReminderSenderID is the sender id of what the reminder loop puts into a
// chat: the text of a reminder it sent (an own message of the bot) and
// the note of a composed or dropped reminder (an incoming one).
const ReminderSenderID = "airi:reminder"

// Reminder is a message a chat asked for at a later time, once or
// repeatedly. Its occurrences are counted from First, so a recurring
// reminder never drifts: occurrence n is computed from First and Every in
// Zone, not from the previous delivery.
type Reminder struct {
	ID        int64  `json:"id,omitempty"`
	ChannelID string `json:"channelId"`
	// CreatedBy is the sender id of the person whose request the reminder
	// answers ("" when unknown); the per-person cap counts by it.
	CreatedBy string `json:"createdBy,omitempty"`
	Content   string `json:"content"`
	// First is the first due time; Due the next one.
	First time.Time `json:"first"`
	Due   time.Time `json:"due"`
	// Every is "" for a one-off reminder, a Go duration of at least an
	// hour ("1h", "90m"), "daily" or "weekly".
	Every string `json:"every,omitempty"`
	// Zone is the IANA time zone the reminder's times are read in.
	Zone string `json:"zone"`
	// Compose wakes the chat at the due time instead of sending Content.
	Compose bool          `json:"compose,omitempty"`
	State   ReminderState `json:"state"`
	// Count is the number of occurrences handled so far (delivered or
	// skipped); the next one is occurrence Count.
	Count int `json:"count"`
	// Outbox is the outbox entry of the latest delivery (0 before one).
	Outbox  int64     `json:"outbox,omitempty"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
}

// Validate reports what is wrong with a reminder about to be stored.
func (r Reminder) Validate() error {
	var errs []string
	if r.ChannelID == "" {
		errs = append(errs, "empty channel id")
	}
	if strings.TrimSpace(r.Content) == "" {
		errs = append(errs, "empty content")
	}
	if r.Due.IsZero() {
		errs = append(errs, "no due time")
	}
	if r.Zone == "" {
		errs = append(errs, "no time zone")
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid reminder: %s", strings.Join(errs, ", "))
	}
	return nil
}

// ReminderLimits caps the pending reminders a new one may join; zero
// fields set no cap.
type ReminderLimits struct {
	// PerChannel caps the pending reminders of one channel.
	PerChannel int
	// PerPerson caps the pending reminders of one CreatedBy across all
	// channels.
	PerPerson int
}

// ReminderLimitError is AddReminder's refusal of a reminder over a cap.
type ReminderLimitError struct {
	// Scope is "channel" or "person".
	Scope string
	Limit int
}

func (e *ReminderLimitError) Error() string {
	return fmt.Sprintf("%d reminders are already pending for this %s, the most allowed", e.Limit, e.Scope)
}

// ErrReminderClaimed is returned by ClaimReminder when the occurrence was
// already handled (by this process before, or by another replica) or the
// reminder is no longer pending: nothing was stored.
var ErrReminderClaimed = errors.New("reminder occurrence already handled")

// ReminderFilter selects reminders: of one channel when ChannelID is set,
// only pending ones when Pending is set.
type ReminderFilter struct {
	ChannelID string
	Pending   bool
}

// ReminderClaim handles one occurrence of a reminder: Count and Due name
// the occurrence as read from the store, Next is the due time of the one
// after (zero when none follows: the reminder ends in End), Skipped the
// occurrences passed over with it (missed while the bot was down), and
// Outbox, when not nil, the send that delivers it.
type ReminderClaim struct {
	ID      int64
	Count   int
	Due     time.Time
	Next    time.Time
	Skipped int
	End     ReminderState
	Outbox  *OutboxEntry
}

// Reminders keeps the reminders of the chats.
type Reminders interface {
	// AddReminder stores a new pending reminder and returns it with its
	// id, unless the channel or the person already has as many pending as
	// lim allows: then a *ReminderLimitError and nothing is stored.
	AddReminder(ctx context.Context, r Reminder, lim ReminderLimits) (Reminder, error)
	// Reminder returns one reminder, or ErrNotFound.
	Reminder(ctx context.Context, id int64) (Reminder, error)
	// ListReminders returns the reminders f selects, by due time then id.
	ListReminders(ctx context.Context, f ReminderFilter) ([]Reminder, error)
	// CancelReminder cancels a pending reminder. With a channelID, a
	// reminder of another channel is ErrNotFound, as is one that is not
	// pending: a chat never learns of another chat's reminders.
	CancelReminder(ctx context.Context, id int64, channelID string) error
	// DueReminders returns up to limit pending reminders due at or before
	// t, the earliest first.
	DueReminders(ctx context.Context, t time.Time, limit int) ([]Reminder, error)
	// ClaimReminder handles one occurrence in one transaction: the
	// reminder moves past it and the claim's outbox entry, if any, is
	// added, or neither happens. An occurrence already handled gives
	// ErrReminderClaimed. It returns the outbox entry's id (0 without one).
	// On a replica the outbox entry is fenced like AddOutbox's.
	ClaimReminder(ctx context.Context, c ReminderClaim) (outboxID int64, err error)
}
