package scheduler

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/state"
)

// Deliver stores an incoming message durably and wakes its channel. It
// returns once the message is stored; an adapter confirms it upstream only
// then. ch.ID and msg.ChannelID are the ids the model sees.
func (s *Scheduler) Deliver(ctx context.Context, ch state.Channel, msg state.Message) error {
	if err := ch.Validate(); err != nil {
		return fmt.Errorf("deliver: %w", err)
	}
	msg.ChannelID = ch.ID
	if err := msg.Validate(); err != nil {
		return fmt.Errorf("deliver: %w", err)
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return errors.New("deliver: scheduler is shutting down")
	}
	if msg.Edited || msg.Deleted {
		return s.deliverChange(ctx, ch, msg)
	}
	ch, changed, err := s.channelUpdate(ctx, ch, msg)
	if err != nil {
		return err
	}
	if s.cfg.Attention != nil && !ch.Group && !msg.Self && s.allowed(ch.ID) {
		// Every message of a direct chat is decided "direct" (a budget
		// that holds it is recorded over it below): stored with the
		// message, the decision costs no write of its own.
		msg.Decision = attention.ReasonDirect
	}
	stored, isNew, err := s.store(ctx, ch, changed, msg)
	if err != nil {
		return err
	}
	if isNew && !msg.Self {
		fields := []zap.Field{s.chat(ch.ID), zap.String("sender", msg.SenderID)}
		if msg.SenderName != "" {
			fields = append(fields, zap.String("sender_name", msg.SenderName))
		}
		fields = append(fields, zap.Int("chars", utf8.RuneCountInString(msg.Content)))
		if msg.Mentioned {
			fields = append(fields, zap.Bool("mentioned", true))
		}
		if s.cfg.LogContent {
			fields = append(fields, zap.String("text", msg.Content))
		}
		s.log.Info("message received", fields...)
	}
	if !isNew || msg.Self || !s.allowed(ch.ID) {
		return nil
	}
	l := s.loopFor(ch.ID)
	if s.cfg.Attention == nil {
		l.signal(TriggerMessage)
		return nil
	}
	d := l.attend(ctx, ch.Group, stored)
	if d.Wake {
		l.signal(Trigger(d.Reason))
	} else {
		s.skipped(ch.ID, d.Reason)
	}
	// After the signal: the wake does not wait for the record.
	s.decided(ctx, stored, d.Reason)
	return nil
}

// maxMembers bounds the member list kept per channel.
const maxMembers = 50

// channelUpdate returns ch as it is to be stored with msg (the title and
// members kept, msg's sender added to a group's members), and whether that
// differs from what is stored.
func (s *Scheduler) channelUpdate(ctx context.Context, ch state.Channel, msg state.Message) (state.Channel, bool, error) {
	old, err := s.deps.Store.Channel(ctx, ch.ID)
	switch {
	case errors.Is(err, state.ErrNotFound):
	case err != nil:
		return ch, false, fmt.Errorf("deliver: look up channel: %w", err)
	default:
		if ch.Title == "" {
			ch.Title = old.Title
		}
		ch.Members = mergeMembers(old.Members, ch.Members)
	}
	if ch.Group && !msg.Self && msg.SenderName != "" {
		ch.Members = mergeMembers(ch.Members, []string{msg.SenderName})
	}
	return ch, err != nil || !sameChannel(old, ch), nil
}

// store records ch when changed and stores msg, in one transaction.
func (s *Scheduler) store(ctx context.Context, ch state.Channel, changed bool, msg state.Message) (stored state.Message, isNew bool, err error) {
	if changed {
		if stored, isNew, err = s.deps.Store.IngestIn(ctx, ch, msg); err != nil {
			return stored, isNew, fmt.Errorf("deliver: store message and channel: %w", err)
		}
	} else {
		if stored, isNew, err = s.deps.Store.Ingest(ctx, msg); err != nil {
			return stored, isNew, fmt.Errorf("deliver: store message: %w", err)
		}
	}
	// Also when unchanged: after a restart the cache starts empty, and
	// the log lines of this channel name it by its title.
	if t, ok := s.titles.get(ch.ID); changed || !ok || t != ch.Title {
		s.titles.set(ch.ID, ch.Title)
	}
	return stored, isNew, nil
}

// title returns a channel's title, from memory once known.
func (s *Scheduler) title(ctx context.Context, id string) (string, error) {
	if t, ok := s.titles.get(id); ok {
		return t, nil
	}
	ch, err := s.deps.Store.Channel(ctx, id)
	if errors.Is(err, state.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	s.titles.set(id, ch.Title)
	return ch.Title, nil
}

// titleCache remembers channel titles, so that the unread counts a
// state message lists cost no lookups. Deliver keeps it current.
type titleCache struct {
	mu sync.RWMutex
	m  map[string]string
}

func (c *titleCache) get(id string) (string, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	t, ok := c.m[id]
	return t, ok
}

func (c *titleCache) set(id, title string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]string{}
	}
	c.m[id] = title
}

func mergeMembers(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, m := range b {
		found := false
		for _, x := range out {
			if x == m {
				found = true
				break
			}
		}
		if !found && len(out) < maxMembers {
			out = append(out, m)
		}
	}
	return out
}

func sameChannel(a, b state.Channel) bool {
	if a.ID != b.ID || a.Platform != b.Platform || a.NativeID != b.NativeID || a.Group != b.Group || a.Title != b.Title || len(a.Members) != len(b.Members) {
		return false
	}
	for i := range a.Members {
		if a.Members[i] != b.Members[i] {
			return false
		}
	}
	return true
}
