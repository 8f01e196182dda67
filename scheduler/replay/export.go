package replay

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/state"
)

// Source is what exporting needs from a store.
type Source interface {
	Channel(ctx context.Context, id string) (state.Channel, error)
	Ticks(ctx context.Context, f state.TickFilter) ([]state.Tick, error)
	Events(ctx context.Context, f state.TickFilter) ([]state.Message, error)
	ReminderSends(ctx context.Context, f state.TickFilter) ([]state.Message, error)
	ReactionEvents(ctx context.Context, f state.TickFilter) ([]state.Reaction, error)
}

// ExportOptions say what to export and what to write in the headers.
type ExportOptions struct {
	// Filter selects the channel (empty: every channel that has ticks) and
	// the start time (zero: from the start).
	Filter state.TickFilter
	// Bot is the bot's name for the headers.
	Bot string
	// Settings are written into every header.
	Settings Settings
	// Turn is the turn semantics the ticks ran under; empty means the
	// scheduler's default.
	Turn scheduler.Turn
	// Attention, when set, returns the group mode a channel ran under
	// (ambient, addressed); "all" or "" leaves the header without it.
	Attention func(channelID string) string
	// Tools, when set, is written into every header: the bot ran with tools.
	Tools *Tools
}

// Export builds sessions from the ticks, messages and reactions recorded
// in a store: one session per channel that has ticks, in channel id order
// (or just the filtered channel). Events and ticks are merged by time; an
// event at the same instant as a tick comes first, since a message or a
// reaction stored by then was part of the tick's request.
func Export(ctx context.Context, src Source, opt ExportOptions) ([]*Session, error) {
	ticks, err := src.Ticks(ctx, opt.Filter)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	byChannel := map[string][]state.Tick{}
	for _, t := range ticks {
		byChannel[t.ChannelID] = append(byChannel[t.ChannelID], t)
	}
	ids := make([]string, 0, len(byChannel))
	for id := range byChannel {
		ids = append(ids, id)
	}
	if opt.Filter.ChannelID != "" && len(ids) == 0 {
		ids = append(ids, opt.Filter.ChannelID)
	}
	sort.Strings(ids)
	var out []*Session
	for _, id := range ids {
		ch, err := src.Channel(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("export channel %q: %w", id, err)
		}
		f := opt.Filter
		f.ChannelID = id
		events, err := src.Events(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("export channel %q: %w", id, err)
		}
		sends, err := src.ReminderSends(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("export channel %q: %w", id, err)
		}
		reactions, err := src.ReactionEvents(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("export channel %q: %w", id, err)
		}
		s, err := build(ch, events, sends, reactions, byChannel[id], opt)
		if err != nil {
			return nil, fmt.Errorf("export channel %q: %w", id, err)
		}
		out = append(out, s)
	}
	return out, nil
}

func build(ch state.Channel, events, sends []state.Message, reactions []state.Reaction, ticks []state.Tick, opt ExportOptions) (*Session, error) {
	turn := opt.Turn
	if turn == "" {
		turn = scheduler.TurnSendEnds
	}
	s := &Session{Header: Header{Session: Version, Channel: ch, Bot: opt.Bot, Platform: ch.Platform, Turn: turnField(turn), Settings: opt.Settings, Tools: opt.Tools}}
	if opt.Attention != nil {
		if mode := opt.Attention(ch.ID); mode != AttentionAll {
			s.Header.Attention = mode
		}
	}
	// A stored message is one line, or several when it was edited or
	// deleted since (each change at its own time).
	var lines []*Event
	for _, m := range events {
		lines = append(lines, EventsOf(m)...)
	}
	// A reaction to the bot's message is shown in the next request: it is
	// a line of its own, at the time it came.
	for _, r := range reactions {
		lines = append(lines, ReactionEventOf(r))
	}
	// Events come in arrival (id) order; a platform's clock can disagree
	// with arrival by a little, so sort stably by time only for merging.
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].Time.Before(lines[j].Time) })
	// A session under "all" keeps the lines of sessions recorded before
	// decisions were: every message woke the channel there.
	if s.Header.Attention == "" {
		for _, e := range lines {
			e.Decision = ""
		}
	}
	// The reminders the bot sent go among the events, each at its time
	// (after an event of the same instant).
	between := make([]Item, 0, len(lines)+len(sends))
	for _, e := range lines {
		between = append(between, Item{Event: e})
	}
	for _, m := range sends {
		between = append(between, Item{Reminder: ReminderOf(m)})
	}
	sort.SliceStable(between, func(i, j int) bool { return itemTime(between[i]).Before(itemTime(between[j])) })
	i := 0
	for _, t := range ticks {
		for i < len(between) && !itemTime(between[i]).After(t.Now) {
			s.Items = append(s.Items, between[i])
			i++
		}
		line, err := TickOf(t)
		if err != nil {
			return nil, err
		}
		s.Items = append(s.Items, Item{Tick: line})
	}
	s.Items = append(s.Items, between[i:]...)
	return s, nil
}

// itemTime is when an event arrived or a reminder was sent.
func itemTime(it Item) time.Time {
	if it.Reminder != nil {
		return it.Reminder.Time
	}
	return it.Event.Time
}
