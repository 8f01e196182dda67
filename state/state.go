// Package state holds the domain state of the runtime (channels, messages,
// the unread pool, action history, the outbox and tick records) and the
// Store contract its engines implement (state/sqlite).
package state

import (
	"context"
	"errors"
)

// ErrNotFound is returned when a channel, entry or record does not exist.
var ErrNotFound = errors.New("not found")

// Store is the whole contract of a state engine: everything the runtime
// needs, operations, retention, token use and the writes that store
// several things at once included, so that an engine lacking a capability
// fails to compile instead of turning a feature off. Consumers declare the
// smaller interfaces they use; this one is what every engine implements
// and what the shared test suite (state/storetest) checks.
//
// Channel ids are the ids the model sees (docs/ARCHITECTURE.md, "Channel
// ids"): the platform's own id, qualified as "platform:id" when several
// adapters run.
//
// Times come back as the same instant, not necessarily in the same location
// (engines return UTC). Ids of messages, action records, outbox entries and
// ticks increase in insertion order and are never reused.
type Store interface {
	// UpsertChannel records a channel or updates its title, kind and members.
	// An empty Title or a nil Members keeps the stored value, so an adapter
	// that does not know them on every event does not erase them.
	UpsertChannel(ctx context.Context, ch Channel) error
	// Channel returns one channel, or ErrNotFound.
	Channel(ctx context.Context, id string) (Channel, error)
	// Channels returns every known channel ordered by id.
	Channels(ctx context.Context) ([]Channel, error)

	// Ingest stores an incoming message durably. A message whose
	// (ChannelID, PlatformID) was stored before is a duplicate: Ingest
	// returns stored=false and changes nothing. A message with Self=false
	// joins the channel's unread pool; the bot's own never do. The returned
	// message carries its assigned ID. A message with an empty PlatformID
	// is never deduplicated. On a duplicate the stored message is returned
	// (with its ID and read flag) and isNew is false.
	Ingest(ctx context.Context, msg Message) (stored Message, isNew bool, err error)
	// Unread returns up to limit unread messages of a channel, oldest first
	// (limit <= 0 means all). Oldest means arrival (id) order.
	Unread(ctx context.Context, channelID string, limit int) ([]Message, error)
	// CountUnreadAfter returns the number of unread messages of a channel
	// whose id is greater than after (after 0 counts them all): whether
	// something arrived since a given message, without reading the
	// messages themselves.
	CountUnreadAfter(ctx context.Context, channelID string, after int64) (int, error)
	// UnreadCounts returns the number of unread messages per channel id
	// (channels with none are omitted).
	UnreadCounts(ctx context.Context) (map[string]int, error)
	// MarkRead marks exactly the given message ids read. Unknown ids and ids
	// already read are ignored.
	MarkRead(ctx context.Context, ids []int64) error
	// History returns the newest limit read or own messages of a channel,
	// oldest first, and how many such messages the channel has in total
	// (limit <= 0 means all).
	History(ctx context.Context, channelID string, limit int) (msgs []Message, total int, err error)
	// RecentOwn returns the bot's own messages among the channel's newest
	// scan messages History would show, newest first, at most limit of
	// them, with their content and time, without reading the others' rows.
	RecentOwn(ctx context.Context, channelID string, scan, limit int) ([]Message, error)
	// LastMessageID returns the highest message id stored for a channel (0 if none).
	LastMessageID(ctx context.Context, channelID string) (int64, error)
	// SetDecision records the attention decision on the given messages
	// (see Message.Decision), replacing an earlier one. Unknown ids are
	// ignored.
	SetDecision(ctx context.Context, ids []int64, decision string) error
	// AddSkippedWake records a wake that was due but made no model call,
	// and why. A zero Time is set to now.
	AddSkippedWake(ctx context.Context, w SkippedWake) (int64, error)
	// SkippedWakes returns the recorded skipped wakes in id order, filtered
	// like ticks (on Time; ID and Last do not apply).
	SkippedWakes(ctx context.Context, f TickFilter) ([]SkippedWake, error)

	// AppendAction adds an action record to a channel's history and returns its id.
	AppendAction(ctx context.Context, rec ActionRecord) (int64, error)
	// Actions returns the newest limit action records of a channel, oldest
	// first (limit <= 0 means all).
	Actions(ctx context.Context, channelID string, limit int) ([]ActionRecord, error)
	// ClearActions forgets a channel's action history (the break action).
	ClearActions(ctx context.Context, channelID string) error
	// TrimActions keeps the newest keep records once a channel has more than
	// over, never starting the kept part at a continue record: when the
	// oldest kept record is a continue (the end of a wake whose start is
	// dropped) it is dropped too, repeatedly, so fewer than keep may remain.
	// keep <= 0 clears the history once it is over the bound.
	TrimActions(ctx context.Context, channelID string, keep, over int) error

	// AddOutbox records a send before the platform is called. An empty State
	// is stored as OutboxPending; zero Created and Updated are set to now.
	AddOutbox(ctx context.Context, e OutboxEntry) (int64, error)
	// SetOutboxState records the outcome of a send and sets Updated to now;
	// an unknown id gives ErrNotFound.
	SetOutboxState(ctx context.Context, id int64, st OutboxState, platformID, errText string) error
	// PendingOutbox returns entries still in OutboxPending (after a crash:
	// their outcome is unknown).
	PendingOutbox(ctx context.Context) ([]OutboxEntry, error)

	// AddTick stores a tick record and returns its id.
	AddTick(ctx context.Context, t Tick) (int64, error)
	// Ticks returns tick records in id order, filtered: of one channel when
	// ChannelID is set, with Now at or after Since when Since is set, only
	// the tick with ID, only the newest Last.
	Ticks(ctx context.Context, f TickFilter) ([]Tick, error)
	// Events returns the incoming (not own) messages in id order, filtered
	// like ticks (on the message's Time), for exporting recorded sessions.
	// Read and unread messages are both included.
	Events(ctx context.Context, f TickFilter) ([]Message, error)
	// ReminderSends returns the messages the reminder loop sent (own
	// messages from ReminderSenderID) in id order, filtered like Events,
	// for exporting recorded sessions.
	ReminderSends(ctx context.Context, f TickFilter) ([]Message, error)

	// Timeline returns one page of messages and ticks, newest first (see
	// TimelineQuery); an invalid query gives its Validate error. It reads
	// at most 2*q.Limit rows whatever the size of the channel. Ticks
	// recorded without a time are left out.
	Timeline(ctx context.Context, q TimelineQuery) ([]TimelineItem, error)
	// TickNeighbours returns the ids of the ticks of channelID just before
	// and just after the tick id (0 where there is none).
	TickNeighbours(ctx context.Context, channelID string, id int64) (prev, next int64, err error)
	// ChannelActivity returns the latest activity of every known channel,
	// ordered by channel id.
	ChannelActivity(ctx context.Context) ([]ChannelActivity, error)

	// Cursor returns a stored adapter cursor (a Satori sequence number, a
	// Telegram offset), or "" when unset.
	Cursor(ctx context.Context, key string) (string, error)
	// SetCursor stores an adapter cursor.
	SetCursor(ctx context.Context, key, value string) error

	// UpdateSeen reports whether MarkUpdate recorded the platform update
	// with this key (such as "telegram:<bot id>:<update id>") within
	// UpdateRetention. Intake that may receive one update more than once
	// (webhook retries, several replicas) asks before handling it.
	UpdateSeen(ctx context.Context, key string) (bool, error)
	// MarkUpdate records that the update with this key was handled (its
	// messages are stored). Marking it again changes nothing. Records older
	// than UpdateRetention are dropped.
	MarkUpdate(ctx context.Context, key string) error

	// NoteStore keeps the memory notes.
	NoteStore
	// Reactions keeps the reactions to the bot's messages.
	Reactions
	// Recorder stores the hot path's compound writes.
	Recorder
	// Operations are the operator's commands and retention.
	Operations
	// TokenUsage keeps the daily token counts of the budgets.
	TokenUsage
	// Edits keeps edits and deletions of stored messages.
	Edits
	// Reminders keeps the chats' reminders.
	Reminders
	// MediaCache keeps fetched files and what was made of them.
	MediaCache

	// Close releases the store.
	Close() error
}

// Recorder is the part of the contract that stores the several writes of
// one step of the hot path together: in one transaction, so that nothing
// is stored when it fails and a retry of the parts one by one cannot
// store anything twice.
type Recorder interface {
	// IngestIn records ch (as UpsertChannel) and stores msg (as Ingest).
	IngestIn(ctx context.Context, ch Channel, msg Message) (stored Message, isNew bool, err error)
	// RecordTick stores the end of a tick: the action record when act is
	// not nil (then the action history is trimmed as TrimActions(keep,
	// over) does) and the tick record. actionID is 0 when act is nil.
	RecordTick(ctx context.Context, act *ActionRecord, keep, over int, t Tick) (actionID, tickID int64, err error)
	// RecordSent records a send that went out: outbox entry id marked
	// done with platformID and errText (as SetOutboxState) and msg, the
	// bot's message, stored in the history (as Ingest).
	RecordSent(ctx context.Context, id int64, platformID, errText string, msg Message) error
}

// TokenUsage keeps the token use of the daily budgets, by day and scope
// (the whole bot, or one channel).
type TokenUsage interface {
	// AddTokens adds n tokens to the count of scope on day and returns
	// the new count.
	AddTokens(ctx context.Context, day, scope string, n int64) (int64, error)
	// Tokens returns the count of scope on day, 0 when none was added.
	Tokens(ctx context.Context, day, scope string) (int64, error)
}
