package runtime

import (
	"context"
	"time"

	"github.com/airi-go/airi/state"
)

// ChannelStatus is what an operator sees of one channel: what it is, how
// much waits unread, how its last tick went, whether it is paused, and the
// tokens it spent today. `airi status` prints one per line; its JSON is the
// same value.
type ChannelStatus struct {
	ID          string             `json:"id"`
	Title       string             `json:"title,omitempty"`
	Platform    string             `json:"platform"`
	Group       bool               `json:"group"`
	Unread      int                `json:"unread"`
	LastTick    *state.TickSummary `json:"lastTick"`
	LastError   string             `json:"lastError,omitempty"`
	LastErrorAt time.Time          `json:"lastErrorAt,omitzero"`
	Paused      bool               `json:"paused"`
	PausedUntil time.Time          `json:"pausedUntil,omitzero"`
	Mode        string             `json:"mode,omitempty"`
	// TokensToday are the tokens spent since midnight UTC.
	TokensToday int `json:"tokensToday"`
}

// StatusStore is what Statuses reads.
type StatusStore interface {
	Channels(ctx context.Context) ([]state.Channel, error)
	UnreadCounts(ctx context.Context) (map[string]int, error)
	ChannelControls(ctx context.Context) (map[string]state.ChannelControl, error)
	Activity(ctx context.Context, since time.Time) (map[string]state.TickActivity, error)
}

// Statuses gathers the status of every channel the store knows, in the
// store's order, as of now.
func Statuses(ctx context.Context, st StatusStore, now time.Time) ([]ChannelStatus, error) {
	chans, err := st.Channels(ctx)
	if err != nil {
		return nil, err
	}
	counts, err := st.UnreadCounts(ctx)
	if err != nil {
		return nil, err
	}
	ctls, err := st.ChannelControls(ctx)
	if err != nil {
		return nil, err
	}
	act, err := st.Activity(ctx, StartOfDay(now))
	if err != nil {
		return nil, err
	}
	out := make([]ChannelStatus, 0, len(chans))
	for _, ch := range chans {
		c := ctls[ch.ID]
		a := act[ch.ID]
		cs := ChannelStatus{ID: ch.ID, Title: ch.Title, Platform: ch.Platform, Group: ch.Group, Unread: counts[ch.ID],
			LastTick: a.LastTick, LastError: a.LastError, LastErrorAt: a.LastErrorAt,
			Paused: c.PausedAt(now), Mode: c.Mode, TokensToday: a.Tokens}
		if cs.Paused {
			cs.PausedUntil = c.PausedUntil
		}
		out = append(out, cs)
	}
	return out, nil
}
