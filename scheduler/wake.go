package scheduler

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/internal/backoff"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/scheduler/budget"
	"github.com/airi-go/airi/state"
)

// WakeReport says what one wake did.
type WakeReport struct {
	Trigger Trigger
	// Skipped is set when the wake found nothing to do (no model call).
	Skipped    bool
	Iterations int
	// Capped: the wake ended on its iteration cap while the model still asked for more.
	Capped bool
	// Unanswered: messages delivered in this wake got no send and no continue.
	Unanswered  bool
	Sleep       time.Duration
	ModelFailed bool
	Fatal       bool
	// Budget: the token budget refused a model call; the channel waits
	// for it to allow one again.
	Budget bool
	// PausedUntil is set when the wake was skipped because an operator
	// paused the channel until then.
	PausedUntil time.Time
	// StoreDown: the store refused writes, so the wake made no (further)
	// model call; it is tried again after the retry delay.
	StoreDown bool
}

type wakeState struct {
	id int64
	// person is set once a call of the wake showed a person's message.
	person      bool
	trigger     Trigger
	aborted     bool
	interrupted bool
	// pending are the messages of the previous call's read result: the
	// next request shows that result, and they are marked read once the
	// model answers it. A wake that ends first leaves them unread.
	pending []state.Message
	// shrink halves the history's share of the budget for the rest of the
	// wake, after the model refused a request as too long.
	shrink int
	budget bool // the token budget refused a call
}

// maxShrink bounds how far a wake shrinks the history after refusals.
const maxShrink = 4

// skipPaused is the recorded reason of a wake skipped because an operator
// paused the channel.
const skipPaused = "paused"

// Wake runs one wake of a channel now, in the caller's goroutine, with the
// given trigger (TriggerMessage, TriggerPeriodic, ...). Tests and replay
// drive the loop with it; it never overlaps another wake of the channel.
func (s *Scheduler) Wake(ctx context.Context, channelID string, trigger Trigger) WakeReport {
	return s.loopFor(channelID).wake(ctx, trigger)
}

func (l *loop) wake(ctx context.Context, trig Trigger) WakeReport {
	r, ok := l.startWake(ctx, trig)
	if !ok {
		return r.rep
	}
	// The caller's goroutine waits between two calls; a wait the context
	// ends is seen by the next call, which ends the wake.
	for r.call(ctx) {
		_ = backoff.Sleep(ctx, l.s.cfg.ContinueDelay)
	}
	return r.end()
}

// wakeRun is one wake in progress: the channel's wake lock is held from
// startWake to end, and what the wake knows is kept here across the
// continue delay between two calls, when it waits without a goroutine.
type wakeRun struct {
	l          *loop
	rep        WakeReport
	w          *wakeState
	unanswered bool
	// cut is set when the wake ended before its report was complete: the
	// context ended, or another process drives the channel now.
	cut bool
}

// startWake takes the channel's wake lock and runs the checks before the
// first call. ok is false when the wake ends there: r.rep says why, and
// the lock is released.
func (l *loop) startWake(ctx context.Context, trig Trigger) (r *wakeRun, ok bool) {
	l.wakeMu.Lock()
	l.mu.Lock()
	l.arrived = make(chan struct{}, 1)
	l.mu.Unlock()
	r = &wakeRun{l: l, rep: WakeReport{Trigger: trig}}
	s := l.s
	if rep, ok := l.paused(ctx, trig); ok {
		r.rep = rep
		r.end()
		return r, false
	}
	switch {
	case fromMessage(trig), trig == TriggerPeriodic, trig == TriggerRestart, trig == TriggerUnread,
		trig == TriggerRetry, trig == TriggerBudgetResume:
		unread, err := l.hasUnread(ctx)
		if err != nil {
			s.log.Warn("count unread before wake", s.chat(l.id), zap.Error(err))
			r.rep.ModelFailed = true
			r.end()
			return r, false
		}
		if !unread {
			r.rep.Skipped = true
			r.end()
			return r, false
		}
	}
	if s.budgetLevel(ctx, l.id, s.cfg.Now()) == budget.Exhausted {
		l.holdForBudget(ctx, trig)
		r.rep.Budget = true
		r.end()
		return r, false
	}
	if s.deps.OnWake != nil {
		s.deps.OnWake(l.id, string(trig))
	}
	r.w = &wakeState{id: s.nextWake(), trigger: trig}
	return r, true
}

// call runs one call of the wake and reports whether another follows,
// after the continue delay.
func (r *wakeRun) call(ctx context.Context) (more bool) {
	l, s, rep, w := r.l, r.l.s, &r.rep, r.w
	if rep.Iterations >= s.cfg.MaxIterations {
		return false
	}
	if rep.Iterations > 0 && ctx.Err() != nil {
		r.cut = true
		return false
	}
	if s.storeDown(ctx, l.id) {
		rep.StoreDown = true
		return false
	}
	if rep.Iterations > 0 && !r.unanswered && l.botsHeld(ctx, rep.Trigger) {
		return false
	}
	release, ok := s.pin(l.id)
	if !ok {
		// Another process drives the channel now.
		rep.Skipped = rep.Iterations == 0
		r.cut = true
		return false
	}
	out := l.tick(ctx, w)
	release()
	if w.budget {
		rep.Budget = true
		return false
	}
	rep.Iterations++
	if ctx.Err() != nil {
		r.cut = true
		return false
	}
	if out.interrupted {
		return rep.Iterations < s.cfg.MaxIterations
	}
	if out.err != nil {
		rep.ModelFailed = true
		rep.Fatal = errors.Is(out.err, planner.ErrPermanent)
		if rep.Fatal && s.deps.OnFatal != nil {
			s.deps.OnFatal(out.err)
		}
		return false
	}
	if out.delivered > 0 {
		r.unanswered = true
	}
	if out.res.Answered {
		r.unanswered = false
	}
	if out.res.Aborted {
		w.aborted = true
	}
	if out.res.Sleep > 0 {
		rep.Sleep = out.res.Sleep
		return false
	}
	if !l.next(ctx, out, r.unanswered) {
		return false
	}
	if rep.Iterations >= s.cfg.MaxIterations {
		rep.Capped = true
		return false
	}
	return true
}

// end releases the channel's wake lock and returns the wake's report.
func (r *wakeRun) end() WakeReport {
	if !r.cut {
		r.rep.Unanswered = r.unanswered
	}
	l := r.l
	l.mu.Lock()
	l.arrived = nil
	l.mu.Unlock()
	l.wakeMu.Unlock()
	return r.rep
}

// paused reports a wake skipped because an operator paused the channel,
// recording why.
func (l *loop) paused(ctx context.Context, trig Trigger) (WakeReport, bool) {
	s := l.s
	rep := WakeReport{Trigger: trig}
	if s.deps.Controls == nil {
		return rep, false
	}
	c, err := s.deps.Controls.ChannelControl(ctx, l.id)
	if err != nil {
		s.log.Warn("read channel control before wake", s.chat(l.id), zap.Error(err))
		return rep, false
	}
	now := s.cfg.Now()
	if !c.PausedAt(now) {
		return rep, false
	}
	rep.Skipped = true
	rep.PausedUntil = c.PausedUntil
	fields := []zap.Field{s.chat(l.id), zap.String("reason", "paused by an operator"), zap.String("trigger", string(trig))}
	if !c.PausedUntil.IsZero() {
		fields = append(fields, zap.Time("until", c.PausedUntil))
	}
	s.log.Info("wake skipped", fields...)
	if s.deps.OnSkip != nil {
		s.deps.OnSkip(l.id, skipPaused)
	}
	// Every skipped wake has its reason in the store, beside the ticks.
	if _, err := s.deps.Store.AddSkippedWake(ctx, state.SkippedWake{
		ChannelID: l.id, Trigger: string(trig), Reason: skipPaused, Time: now,
	}); err != nil {
		s.log.Warn("record a wake skipped for a pause", s.chat(l.id), zap.Error(err))
	}
	return rep, true
}

// next decides whether the wake goes on after a tick. Under the send-ends
// semantics a send that went out ends the wake unless messages arrived for
// the channel while the model was deciding, or messages the wake delivered
// are still unanswered (the send went to another channel).
func (l *loop) next(ctx context.Context, out tickOutcome, unanswered bool) bool {
	if l.s.cfg.Turn != TurnSendEnds || !out.res.EndsTurn {
		return out.res.Next
	}
	if unanswered {
		return true
	}
	fresh, err := l.arrivedSince(ctx, out.watermark)
	if err != nil {
		// Another call is the safe side: the model sees what is new.
		l.s.log.Warn("check for messages that arrived during the tick", l.s.chat(l.id), zap.Error(err))
		return true
	}
	return fresh
}

// hasUnread reports whether the channel has an unread message.
func (l *loop) hasUnread(ctx context.Context) (bool, error) {
	return l.arrivedSince(ctx, 0)
}

// arrivedSince reports unread messages of the channel newer than watermark.
func (l *loop) arrivedSince(ctx context.Context, watermark int64) (bool, error) {
	n, err := l.s.deps.Store.CountUnreadAfter(ctx, l.id, watermark)
	if err != nil {
		return false, fmt.Errorf("count unread: %w", err)
	}
	return n > 0, nil
}

// storeDown reports whether the store refuses writes now; the store logs
// the change of state once, so a paused wake logs only at debug level.
func (s *Scheduler) storeDown(ctx context.Context, channelID string) bool {
	if s.deps.Storage == nil {
		return false
	}
	err := s.deps.Storage.Writable(ctx)
	if err == nil {
		return false
	}
	s.log.Debug("store refuses writes: no model call until it takes them again", zap.String("channel", channelID), zap.Error(err))
	if s.deps.OnSkip != nil {
		s.deps.OnSkip(channelID, skipStoreDown)
	}
	return true
}

// skipStoreDown is the reason of a wake paused because the store refused
// writes (it cannot be recorded in the store).
const skipStoreDown = "store-down"
