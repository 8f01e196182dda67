package scheduler

import (
	"context"

	"go.uber.org/zap"

	"github.com/airi-go/airi/state"
)

// recordEnd records the end of a tick: the action record (when there is
// one), the trim of the action history and the tick record, in one
// transaction; if that fails (nothing was stored), one by one, so that
// what can be kept is. It returns the tick's id and whether the action
// record was stored.
func (s *Scheduler) recordEnd(ctx context.Context, act *state.ActionRecord, rec state.Tick) (tickID int64, actionStored bool) {
	_, id, err := s.deps.Store.RecordTick(ctx, act, s.cfg.ActionKeep, s.cfg.ActionOver, rec)
	if err == nil {
		if s.deps.OnTick != nil {
			s.deps.OnTick(rec)
		}
		return id, act != nil
	}
	s.log.Warn("record the tick in one transaction; recording its parts one by one", zap.String("channel", rec.ChannelID), zap.Error(err))
	if act != nil {
		if _, err := s.deps.Store.AppendAction(ctx, *act); err != nil {
			s.log.Error("record action", zap.String("channel", rec.ChannelID), zap.Error(err))
		} else {
			actionStored = true
		}
		if err := s.deps.Store.TrimActions(ctx, rec.ChannelID, s.cfg.ActionKeep, s.cfg.ActionOver); err != nil {
			s.log.Error("trim action history", zap.String("channel", rec.ChannelID), zap.Error(err))
		}
	}
	return s.record(ctx, rec), actionStored
}

// record stores a tick record and returns its id (0 when it could not be stored).
func (s *Scheduler) record(ctx context.Context, rec state.Tick) int64 {
	id, err := s.deps.Store.AddTick(ctx, rec)
	if err != nil {
		s.log.Error("record tick", zap.String("channel", rec.ChannelID), zap.Error(err))
	}
	if s.deps.OnTick != nil {
		s.deps.OnTick(rec)
	}
	return id
}
