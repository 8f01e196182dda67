package scheduler

import (
	"context"

	"go.uber.org/zap"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/state"
)

// record stores the end of the tick, even when shutdown cancelled it:
// the action record (none for a break, which clears the history), the
// trim of the action history and the tick record. The read result the
// action returned becomes the wake's pending messages once its action
// record is stored, and the notes the action wrote name the tick.
func (t *tick) record(ctx context.Context) {
	s, res := t.l.s, t.out.res
	bg := context.WithoutCancel(ctx)
	var act *state.ActionRecord
	if t.act.Name != actions.NameBreak {
		act = &t.act
	}
	tickID, actionStored := s.recordEnd(bg, act, t.rec)
	if actionStored && len(res.Shown) > 0 {
		// The next request shows this result; what it lists is read
		// once the model answers that request.
		t.w.pending = res.Shown
	}
	if len(res.Notes) > 0 && tickID > 0 {
		if err := s.deps.Store.SetNoteTick(bg, res.Notes, tickID); err != nil {
			s.log.Error("record the tick that wrote notes", s.chat(t.l.id), zap.Error(err))
		}
	}
}

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
	s.log.Warn("record the tick in one transaction; recording its parts one by one", s.chat(rec.ChannelID), zap.Error(err))
	if act != nil {
		if _, err := s.deps.Store.AppendAction(ctx, *act); err != nil {
			s.log.Error("record action", s.chat(rec.ChannelID), zap.Error(err))
		} else {
			actionStored = true
		}
		if err := s.deps.Store.TrimActions(ctx, rec.ChannelID, s.cfg.ActionKeep, s.cfg.ActionOver); err != nil {
			s.log.Error("trim action history", s.chat(rec.ChannelID), zap.Error(err))
		}
	}
	return s.record(ctx, rec), actionStored
}

// record stores a tick record and returns its id (0 when it could not be stored).
func (s *Scheduler) record(ctx context.Context, rec state.Tick) int64 {
	id, err := s.deps.Store.AddTick(ctx, rec)
	if err != nil {
		s.log.Error("record tick", s.chat(rec.ChannelID), zap.Error(err))
	}
	if s.deps.OnTick != nil {
		s.deps.OnTick(rec)
	}
	return id
}
