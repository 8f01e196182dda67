package scheduler

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/state"
)

// Trigger says why a wake started. It is recorded with every tick (the
// "trigger" of a tick record and of a session's tick line), so the values
// below are part of the recorded format and never change.
type Trigger string

// Triggers recorded with every tick.
const (
	// TriggerMessage: new messages arrived (after the debounce), with no
	// attention policy to say more.
	TriggerMessage Trigger = "message"
	// TriggerDirect: a message arrived in a direct conversation.
	TriggerDirect Trigger = attention.ReasonDirect
	// TriggerAddressedMention: a group message mentioned the bot.
	TriggerAddressedMention Trigger = attention.ReasonMention
	// TriggerAddressedReply: a group message replied to the bot.
	TriggerAddressedReply Trigger = attention.ReasonReply
	// TriggerAddressedAlias: a group message called the bot by an alias.
	TriggerAddressedAlias Trigger = attention.ReasonAlias
	// TriggerAmbient: the bot looks at group talk that did not address it.
	TriggerAmbient Trigger = attention.ReasonAmbient
	// TriggerPeriodic: the periodic tick found unread messages.
	TriggerPeriodic Trigger = "periodic"
	// TriggerRearm: a wake that ended on the iteration cap with messages
	// unanswered is scheduled again.
	TriggerRearm Trigger = "rearm"
	// TriggerSleep: a sleep the model chose fell due.
	TriggerSleep Trigger = "sleep"
	// TriggerRestart: the first wake of a channel after a start (or after
	// its lease moved to this process).
	TriggerRestart Trigger = "restart"
	// TriggerBudgetResume: a wake owed to addressed messages that waited
	// for the budget to allow a call again.
	TriggerBudgetResume Trigger = "budget-resume"
	// TriggerRetry: a wake after a failed model call.
	TriggerRetry Trigger = "retry"
	// TriggerUnread: messages are still unread after a wake (beyond the
	// display cap, or arrived late), or arrived while the model slept.
	TriggerUnread Trigger = "unread"
	// TriggerEdited: an edit made a message address the bot that did
	// not before.
	TriggerEdited Trigger = "edited"
)

// loop is one channel's loop. It holds a goroutine only while a wake is
// due now or one of its calls runs: a wake due later, or waiting between
// two calls, waits on a timer, so an idle, sleeping or waiting channel
// costs its few fields and nothing more. wake runs a wake's calls in the
// caller's goroutine and is also callable directly (tests, replay).
type loop struct {
	s  *Scheduler
	id string
	// arrived tells a tick in flight that a new message came in. It is
	// made when a wake starts and dropped when it ends (guarded by mu;
	// the wake's own goroutines read it without), since an arrival
	// matters only to a tick in flight.
	arrived chan struct{}
	// wakeMu makes the ticks of one channel never overlap; it guards carry.
	wakeMu sync.Mutex
	// carry are messages shown again as new because the answer to the tick
	// that showed them did not parse.
	carry []state.Message

	mu           sync.Mutex // guards the fields below
	running      bool
	due          time.Time
	dueTrigger   Trigger
	firstPending time.Time
	rearms       int
	att          attendance
	// changed are the edits and deletions of messages already shown,
	// for the state message until a request showing them is answered.
	changed changes
	// active is set while the loop's goroutine runs; timer starts it
	// when a wake falls due later.
	active bool
	timer  *time.Timer
}

func newLoop(s *Scheduler, id string) *loop {
	return &loop{s: s, id: id}
}

// signal schedules a wake for the given reason.
func (l *loop) signal(t Trigger) {
	now := l.s.cfg.Now()
	l.mu.Lock()
	switch {
	case fromMessage(t):
		if l.firstPending.IsZero() {
			l.firstPending = now
		}
		// A burst is read together, but a chat that never pauses is still answered.
		due := now.Add(l.s.cfg.Debounce)
		if limit := l.firstPending.Add(4 * l.s.cfg.Debounce); due.After(limit) {
			due = limit
		}
		l.rearms = 0
		l.setDue(due, t, true)
		if fromMessage(l.dueTrigger) && rank(t) > rank(l.dueTrigger) {
			l.dueTrigger = t
		}
	default:
		l.setDue(now, t, false)
	}
	if fromMessage(t) && l.arrived != nil {
		select {
		case l.arrived <- struct{}{}:
		default:
		}
	}
	l.mu.Unlock()
	l.schedule()
	l.s.notifyChanged()
}

// schedule starts the loop's goroutine for a wake due now, or sets the
// timer for one due later; a running goroutine sees the new due time
// itself once its wake ends.
func (l *loop) schedule() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.active || l.due.IsZero() {
		return
	}
	if wait := l.due.Sub(l.s.cfg.Now()); wait > 0 {
		l.armLocked(wait)
		return
	}
	l.startLocked()
}

func (l *loop) armLocked(wait time.Duration) {
	if l.timer == nil {
		l.timer = time.AfterFunc(wait, l.schedule)
		return
	}
	l.timer.Reset(wait)
}

// startLocked starts the goroutine unless the scheduler is not running,
// once the bound on running wakes allows; until then the loop counts as
// active and its goroutine as started, so that Close waits for it.
func (l *loop) startLocked() {
	ctx, ok := l.s.life.add()
	if !ok {
		return
	}
	if l.timer != nil {
		l.timer.Stop()
	}
	l.active = true
	l.s.wakes.enter(func() { l.run(ctx) })
}

// setDue moves the next wake; with override the new time replaces a later
// one of any kind (a message ends a sleep), otherwise only an earlier time wins.
func (l *loop) setDue(at time.Time, t Trigger, override bool) {
	if l.due.IsZero() || at.Before(l.due) || (override && l.dueTrigger == TriggerSleep) {
		l.due, l.dueTrigger = at, t
	}
}

// busy reports a running wake or one due soon; a sleep due is not busy.
func (l *loop) busy() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.running || (!l.due.IsZero() && l.dueTrigger != TriggerSleep)
}

// run runs the wakes that are due and returns when the next one is not:
// schedule starts it again then.
func (l *loop) run(ctx context.Context) {
	l.carryOn(underGate(ctx, l.s.wakes))
}

// carryOn runs the wakes that are due until the next one is not, or until
// a wake waits between two calls: its rest runs later, on whichever
// goroutine the gate gives it, and carries on from there.
func (l *loop) carryOn(ctx context.Context) {
	for {
		l.mu.Lock()
		if ctx.Err() != nil || l.due.IsZero() {
			l.active = false
			// Nothing is due: an idle loop keeps no timer.
			if l.timer != nil {
				l.timer.Stop()
				l.timer = nil
			}
			l.mu.Unlock()
			// A loop waiting for the place is counted in the lifetime
			// already: Close waits for it too.
			l.s.life.done()
			return
		}
		if wait := l.due.Sub(l.s.cfg.Now()); wait > 0 {
			l.active = false
			l.armLocked(wait)
			l.mu.Unlock()
			l.s.life.done()
			return
		}
		l.mu.Unlock()
		r, ok := l.startWake(ctx, l.takeDue())
		if !ok {
			l.finish(ctx, r.rep)
			continue
		}
		if l.drive(ctx, r) {
			return
		}
	}
}

// drive runs the wake's calls. Between two calls it waits the continue
// delay holding no goroutine and no place of the gate: it returns true,
// and when the delay is over (or the scheduler stops) the rest of the
// wake enters the gate, behind the wakes that fell due before and ahead
// of those that fall due later, and carries on with the loop's run. It
// returns false once the wake has ended and what follows it is scheduled.
func (l *loop) drive(ctx context.Context, r *wakeRun) (waiting bool) {
	for r.call(ctx) {
		if d := l.s.cfg.ContinueDelay; d > 0 {
			l.resumeAfter(ctx, d, func() {
				if !l.drive(ctx, r) {
					l.carryOn(ctx)
				}
			})
			return true
		}
	}
	l.finish(ctx, r.end())
	return false
}

// resumeAfter lets rest enter the wake gate once d has passed, or at once
// when ctx ends first: then beyond the bound, so that a stop never waits
// for a place.
func (l *loop) resumeAfter(ctx context.Context, d time.Duration, rest func()) {
	r := &resumption{gate: l.s.wakes, rest: rest}
	// The callbacks wait for both to be set.
	r.mu.Lock()
	defer r.mu.Unlock()
	r.timer = time.AfterFunc(d, r.onTime)
	r.stop = context.AfterFunc(ctx, r.onCancel)
}

// resumption is the rest of a wake waiting for its continue delay: a
// timer and a context callback, whichever fires first.
type resumption struct {
	gate *gate
	rest func()

	mu    sync.Mutex
	fired bool
	timer *time.Timer
	stop  func() bool
}

// take reports whether the caller fired first.
func (r *resumption) take() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fired {
		return false
	}
	r.fired = true
	return true
}

func (r *resumption) onTime() {
	if !r.take() {
		return
	}
	r.stop() // the context keeps no callback of a wake that went on
	r.gate.enter(r.rest)
}

func (r *resumption) onCancel() {
	if !r.take() {
		return
	}
	r.timer.Stop()
	r.gate.force(r.rest)
}

// takeDue takes the wake that fell due: the loop runs it now.
func (l *loop) takeDue() Trigger {
	l.mu.Lock()
	trig := l.dueTrigger
	l.due, l.dueTrigger = time.Time{}, ""
	l.firstPending = time.Time{}
	l.running = true
	l.mu.Unlock()
	l.s.notifyChanged()
	return trig
}

// runDue runs the wake that fell due and schedules what follows it.
func (l *loop) runDue(ctx context.Context) WakeReport {
	rep := l.wake(ctx, l.takeDue())
	l.finish(ctx, rep)
	return rep
}

// finish schedules what follows a wake: the end of a sleep, a re-arm, a
// retry after a failed model call, or a wake for messages still unread.
func (l *loop) finish(ctx context.Context, rep WakeReport) {
	cfg := l.s.cfg
	// The lock is held across the unread count so that a message stored
	// meanwhile either is counted or signals after this decision. The
	// count is made only when the decision depends on it: after most
	// wakes nothing does, and it is a store read per wake.
	l.mu.Lock()
	cancelled := ctx.Err() != nil
	counted, unread := false, 0
	unreadLeft := func() int {
		if counted || cancelled {
			return unread
		}
		counted = true
		if has, err := l.hasUnread(ctx); err == nil && has {
			unread = 1
		} else if err != nil {
			l.s.log.Warn("count unread after wake", l.s.chat(l.id), zap.Error(err))
		}
		return unread
	}
	now := cfg.Now()
	l.running = false
	if fromMessage(l.dueTrigger) && unreadLeft() == 0 {
		// Messages that arrived during the wake were delivered by it: their
		// wake would find nothing and must not stand in for what follows.
		l.due, l.dueTrigger = time.Time{}, ""
	}
	switch {
	case ctx.Err() != nil:
	case rep.Budget:
		// The periodic tick resumes the channel once the budget allows.
	case rep.ModelFailed && !rep.Fatal, rep.StoreDown:
		l.setDue(now.Add(cfg.RetryDelay), TriggerRetry, false)
	case rep.Fatal:
	case !rep.PausedUntil.IsZero():
		// Messages that came during the pause are answered when it ends.
		l.setDue(rep.PausedUntil, TriggerUnread, false)
	case rep.Sleep > 0:
		if unreadLeft() > 0 {
			l.setDue(now.Add(cfg.Debounce), TriggerUnread, false)
		} else {
			l.setDue(now.Add(rep.Sleep), TriggerSleep, false)
		}
	case rep.Capped && rep.Unanswered:
		if l.rearms < cfg.MaxRearms {
			l.rearms++
			l.setDue(now.Add(cfg.ContinueDelay), TriggerRearm, false)
			// A re-arm runs even when nothing is unread any more.
			l.dueTrigger = TriggerRearm
		} else {
			l.s.log.Info("wake ended on its iteration cap with messages unanswered; re-armed twice already, waiting for a new message",
				l.s.chat(l.id))
		}
	case !rep.Skipped && (l.s.cfg.Attention == nil || (l.att.want > l.att.served && !l.att.held)) && unreadLeft() > 0:
		// Unread is left (beyond the display cap, or arrived late): the
		// next wake shows it; each wake delivers some, so this ends.
		l.setDue(now.Add(cfg.Debounce), TriggerUnread, false)
	}
	l.mu.Unlock()
	l.s.notifyChanged()
}

// NextDue returns the channel whose wake falls due first, when (on the
// scheduler's clock) and why ("message", "sleep", "rearm", ...); ok is
// false when no wake is scheduled. With RunDue it lets a driver step the
// loops on a clock of its own instead of Start (airi eval plays hours of
// chat on a virtual clock this way).
func (s *Scheduler) NextDue() (channelID string, at time.Time, trigger string, ok bool) {
	s.mu.Lock()
	loops := make([]*loop, 0, len(s.loops))
	for _, l := range s.loops {
		loops = append(loops, l)
	}
	s.mu.Unlock()
	for _, l := range loops {
		l.mu.Lock()
		due, trig := l.due, l.dueTrigger
		l.mu.Unlock()
		if due.IsZero() {
			continue
		}
		if !ok || due.Before(at) || (due.Equal(at) && l.id < channelID) {
			channelID, at, trigger, ok = l.id, due, string(trig), true
		}
	}
	return channelID, at, trigger, ok
}

// RunDue runs the channel's scheduled wake now, in the caller's goroutine,
// and schedules what follows it, as the channel's loop does when its timer
// fires. ok is false when no wake was scheduled for the channel.
func (s *Scheduler) RunDue(ctx context.Context, channelID string) (rep WakeReport, ok bool) {
	l := s.loopFor(channelID)
	l.mu.Lock()
	scheduled := !l.due.IsZero()
	l.mu.Unlock()
	if !scheduled {
		return WakeReport{}, false
	}
	return l.runDue(ctx), true
}
