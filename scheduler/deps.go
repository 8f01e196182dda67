package scheduler

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/media"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/parse"
	"github.com/airi-go/airi/scheduler/budget"
	"github.com/airi-go/airi/state"
)

// Store is what the scheduler needs from the state.
type Store interface {
	UpsertChannel(ctx context.Context, ch state.Channel) error
	Channel(ctx context.Context, id string) (state.Channel, error)
	Channels(ctx context.Context) ([]state.Channel, error)
	Ingest(ctx context.Context, msg state.Message) (state.Message, bool, error)
	Unread(ctx context.Context, channelID string, limit int) ([]state.Message, error)
	CountUnreadAfter(ctx context.Context, channelID string, after int64) (int, error)
	UnreadCounts(ctx context.Context) (map[string]int, error)
	MarkRead(ctx context.Context, ids []int64) error
	History(ctx context.Context, channelID string, limit int) ([]state.Message, int, error)
	LastMessageID(ctx context.Context, channelID string) (int64, error)
	SetDecision(ctx context.Context, ids []int64, decision string) error
	AddSkippedWake(ctx context.Context, w state.SkippedWake) (int64, error)
	AppendAction(ctx context.Context, rec state.ActionRecord) (int64, error)
	Actions(ctx context.Context, channelID string, limit int) ([]state.ActionRecord, error)
	TrimActions(ctx context.Context, channelID string, keep, over int) error
	AddTick(ctx context.Context, t state.Tick) (int64, error)
	PendingOutbox(ctx context.Context) ([]state.OutboxEntry, error)
	SetOutboxState(ctx context.Context, id int64, st state.OutboxState, platformID, errText string) error
	// IngestIn and RecordTick store a delivered message with its
	// channel, and the end of a tick, in one transaction each.
	IngestIn(ctx context.Context, ch state.Channel, msg state.Message) (state.Message, bool, error)
	RecordTick(ctx context.Context, act *state.ActionRecord, keep, over int, t state.Tick) (actionID, tickID int64, err error)
	// SetNoteTick records the tick that wrote memory notes.
	SetNoteTick(ctx context.Context, ids []int64, tick int64) error
	// Edits keeps the edits and deletions the platforms report.
	state.Edits
	// NewReactions and MarkReactionsShown show each reaction to the bot's
	// messages once.
	NewReactions(ctx context.Context, channelID string, limit int) ([]state.Reaction, error)
	MarkReactionsShown(ctx context.Context, ids []int64) error
}

// Prompter builds the request of one tick.
type Prompter interface {
	Build(ctx context.Context, in planner.Input) (planner.Prompt, error)
	// HistoryLimit is how many messages of history Build is given: the
	// history window is set once, in the prompt builder.
	HistoryLimit() int
}

// Parser turns a raw answer into one action.
type Parser interface {
	Parse(raw string) (parse.Result, error)
}

// EndedParser is a Parser that can be told how the answer ended
// (planner/parse's Parser is one), so that an unterminated end the model
// wrote itself is run rather than refused as cut off. A Parser without
// it reads every unterminated end as cut off.
type EndedParser interface {
	ParseEnded(raw string, finish parse.Finish) (parse.Result, error)
}

// Dispatcher runs one action.
type Dispatcher interface {
	Dispatch(ctx context.Context, call actions.Call) actions.Result
}

// Deps are the parts a scheduler drives.
type Deps struct {
	Store      Store
	Prompter   Prompter
	Model      planner.Model
	Parser     Parser
	Dispatcher Dispatcher
	// Platform names the adapter of a channel (for the prompt); nil uses the
	// channel's recorded platform.
	Platform func(ch state.Channel) string
	// Typing, when set, shows a typing indicator in a channel while a
	// model call for it runs longer than half a second.
	Typing func(ctx context.Context, channelID string)
	// OnTick, when set, observes every recorded tick (metrics, demo output).
	OnTick func(t state.Tick)
	// OnFatal, when set, is told of a model failure that retrying cannot fix.
	OnFatal func(err error)
	// Leases, when set, limits the loops to the channels this process
	// holds (several replicas on one database).
	Leases Leases
	// Budget, when set, is asked before every model call and told what
	// the call cost.
	Budget Budget
	// Tokens estimates the tokens of text when the provider reports no
	// usage; nil counts four bytes a token.
	Tokens func(text string) int
	// OnWake, when set, is told the reason of every wake that runs;
	// OnSkip the reason of every message that woke nothing and of every
	// wake or call refused.
	OnWake func(channelID, reason string)
	OnSkip func(channelID, reason string)
	// Storage, when set, pauses wakes while the store refuses writes;
	// without it (an engine whose writes cannot fail locally) they are
	// never paused for that.
	Storage Storage
	// Controls, when set, says which channels an operator paused: a wake
	// of a paused channel makes no model call and is due again when the
	// pause ends.
	Controls Controls
	// Media, when set, looks at the attachments of the messages a
	// request shows before it is built.
	Media  Media
	Logger *zap.Logger
}

// Media prepares the attachments of the messages a request shows (the
// media room): what was made of each, and the images to send inline.
type Media interface {
	Prepare(ctx context.Context, channelID string, msgs []state.Message) (media.Result, error)
}

// Storage says whether the store takes writes (SQLite's disk full, or
// its file no longer writable). While it does not, wakes make no model
// call: the answer could be neither recorded nor its messages marked
// read, and the call would be paid for again.
type Storage interface {
	// Writable returns why writes fail, or nil; while they fail it tries
	// a write of its own, so that it says so as soon as they succeed.
	Writable(ctx context.Context) error
}

// Controls reads the operator's control of a channel.
type Controls interface {
	ChannelControl(ctx context.Context, channelID string) (state.ChannelControl, error)
}

// Budget is the daily token budget the scheduler keeps to (scheduler/budget).
type Budget interface {
	// Level says how much of the budgets of a channel is used.
	Level(ctx context.Context, channelID string, now time.Time) (budget.Level, error)
	// Admit reports whether a model call estimated to cost estimate
	// tokens may be made, reserving that estimate; when it may, release
	// is called with what the call cost.
	Admit(ctx context.Context, channelID string, now time.Time, estimate int64) (release func(tokens int64), ok bool, err error)
}
