package state

import (
	"context"
	"fmt"
	"time"
)

// Group attention modes an operator may set per channel.
const (
	ModeAddressed = "addressed"
	ModeAmbient   = "ambient"
	ModeAll       = "all"
)

// ChannelControl is what an operator set on one channel.
type ChannelControl struct {
	ChannelID string `json:"channelId"`
	// Paused stops model calls for the channel; its messages are still
	// stored. PausedUntil ends the pause; zero means until resumed.
	Paused      bool      `json:"paused"`
	PausedUntil time.Time `json:"pausedUntil,omitzero"`
	// Mode overrides the configured group attention mode; empty keeps it.
	Mode string `json:"mode,omitempty"`
}

// PausedAt reports whether the channel is paused at now.
func (c ChannelControl) PausedAt(now time.Time) bool {
	return c.Paused && (c.PausedUntil.IsZero() || now.Before(c.PausedUntil))
}

// Validate reports an unknown mode or a missing channel id.
func (c ChannelControl) Validate() error {
	if c.ChannelID == "" {
		return fmt.Errorf("channel control: empty channel id")
	}
	switch c.Mode {
	case "", ModeAddressed, ModeAmbient, ModeAll:
		return nil
	}
	return fmt.Errorf("channel control: unknown mode %q: want %s, %s or %s", c.Mode, ModeAddressed, ModeAmbient, ModeAll)
}

// TickSummary is the short form of a tick record.
type TickSummary struct {
	ID      int64     `json:"id"`
	Now     time.Time `json:"now"`
	Trigger string    `json:"trigger"`
	// Outcome is the action's name, "parse error" or "model error".
	Outcome string `json:"outcome"`
}

// SummaryOutcome is the Outcome of a TickSummary: the action's name, or
// what failed instead.
func SummaryOutcome(action string, parseErr, modelErr bool) string {
	switch {
	case modelErr:
		return "model error"
	case parseErr:
		return "parse error"
	case action == "":
		return "none"
	}
	return action
}

// TickActivity is what the tick records say about one channel.
type TickActivity struct {
	ChannelID string       `json:"channelId"`
	LastTick  *TickSummary `json:"lastTick,omitempty"`
	// LastError is the newest model or parse error, with its time.
	LastError   string    `json:"lastError,omitempty"`
	LastErrorAt time.Time `json:"lastErrorAt,omitzero"`
	// Tokens are the prompt and completion tokens spent since the time
	// Activity was asked for.
	Tokens int `json:"tokens"`
}

// TableStats are the size of one table.
type TableStats struct {
	Name  string `json:"name"`
	Rows  int64  `json:"rows"`
	Bytes int64  `json:"bytes"`
}

// Stats describe a database for `airi db stats`.
type Stats struct {
	Engine string       `json:"engine"`
	Tables []TableStats `json:"tables"`
	// FileBytes is the size of the database (file or PostgreSQL schema).
	FileBytes int64 `json:"fileBytes"`
	// FreeBytes is space held by the file but unused (SQLite).
	FreeBytes int64 `json:"freeBytes,omitempty"`
	// Pruned counts the rows retention deleted so far, per table.
	Pruned map[string]int64 `json:"pruned"`
	// LastPrune is when retention last ran.
	LastPrune time.Time `json:"lastPrune,omitzero"`
}

// ChannelForgotten counts what ForgetChannel deleted.
type ChannelForgotten struct {
	Messages int64 `json:"messages"`
	Ticks    int64 `json:"ticks"`
	Actions  int64 `json:"actions"`
}

// Operations is what operators do to a store besides running the bot:
// pausing and resetting channels, forgetting, retention and statistics.
// It is part of Store.
type Operations interface {
	// ChannelControls returns every channel's control, by channel id.
	ChannelControls(ctx context.Context) (map[string]ChannelControl, error)
	// ChannelControl returns one channel's control (the zero control,
	// with ChannelID set, when none was stored).
	ChannelControl(ctx context.Context, channelID string) (ChannelControl, error)
	// SetChannelControl stores a channel's control.
	SetChannelControl(ctx context.Context, c ChannelControl) error
	// Activity returns, per channel, the newest tick, the newest error and
	// the tokens spent since since.
	Activity(ctx context.Context, since time.Time) (map[string]TickActivity, error)
	// ResetChannel clears a channel's action history and marks its unread
	// messages read; messages stay. It returns how many were unread.
	ResetChannel(ctx context.Context, channelID string) (int64, error)
	// ForgetChannel deletes a channel's messages, ticks, action history,
	// outbox entries and reminders; the channel itself stays known.
	ForgetChannel(ctx context.Context, channelID string) (ChannelForgotten, error)
	// PruneTicks deletes tick records older than before, and reminders
	// that ended (delivered, cancelled, dropped) before it, and counts
	// them in the statistics; it returns how many ticks it deleted.
	PruneTicks(ctx context.Context, before time.Time) (int64, error)
	// PruneMessages deletes messages older than before (never unread
	// ones) and counts them in the statistics.
	PruneMessages(ctx context.Context, before time.Time) (int64, error)
	// Reclaim returns the space freed by deletions to the file system
	// where the engine needs to be asked (SQLite).
	Reclaim(ctx context.Context) error
	// Stats returns rows and bytes per table.
	Stats(ctx context.Context) (Stats, error)
	// UserIDs returns the stored sender ids and user-note subjects that
	// are id, or that qualify id with a platform ("telegram:501" for
	// "501"), sorted: whom a bare id may name.
	UserIDs(ctx context.Context, id string) ([]string, error)
}
