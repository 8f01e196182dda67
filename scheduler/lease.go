package scheduler

import (
	"context"

	"go.uber.org/zap"
)

// Leases says which channels this process may drive when several
// processes serve one bot from one database. Without it (one process, as
// on SQLite) every channel is this process's.
type Leases interface {
	// Pin reports whether this process holds the channel's lease and, if
	// so, keeps the lease from being handed to another process until
	// release is called. The scheduler pins a channel for each tick.
	Pin(channelID string) (release func(), ok bool)
}

// pin pins a channel for one tick; without Leases every channel is ours.
func (s *Scheduler) pin(channelID string) (release func(), ok bool) {
	if s.deps.Leases == nil {
		return func() {}, true
	}
	return s.deps.Leases.Pin(channelID)
}

// Resume is called when this process gains a channel's lease: sends the
// previous holder left of unknown outcome are reported to the model, and
// the channel wakes if it has unread messages.
func (s *Scheduler) Resume(ctx context.Context, channelID string) {
	if !s.allowed(channelID) {
		return
	}
	if err := s.recoverOutbox(ctx, func(id string) bool { return id == channelID }); err != nil {
		s.log.Warn("recover outbox of a gained channel", s.chat(channelID), zap.Error(err))
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if !closed {
		s.loopFor(channelID).signal(TriggerRestart)
	}
}

// MessageStored wakes a channel for a message another process stored (and
// this one did not deliver itself).
func (s *Scheduler) MessageStored(channelID string) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if !closed && s.allowed(channelID) {
		s.loopFor(channelID).signal(TriggerMessage)
	}
}
