package scheduler

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/state"
)

// step names a step of a tick; a tick record's ModelError starts with the
// name of the step that failed.
type step string

// Steps of a tick that can fail.
const (
	stepBudget    step = "check the token budget"
	stepInput     step = "gather tick input"
	stepWatermark step = "read watermark"
	stepBuild     step = "build prompt"
	stepCall      step = "model call"
	stepMarkRead  step = "mark shown messages read"
	stepEncode    step = "encode action"
)

// stepError is the failure of one step of a tick.
type stepError struct {
	step step
	err  error
}

// Error names the step before the cause, unless the cause names it
// already (the model client's errors start with "model call").
func (e *stepError) Error() string {
	msg := e.err.Error()
	if strings.HasPrefix(msg, string(e.step)+":") || strings.HasPrefix(msg, string(e.step)+" ") {
		return msg
	}
	return string(e.step) + ": " + msg
}

func (e *stepError) Unwrap() error { return e.err }

// stepOf returns the step that err says failed, or "".
func stepOf(err error) step {
	if se := (*stepError)(nil); errors.As(err, &se) {
		return se.step
	}
	return ""
}

// tickOutcome is what a tick tells its wake.
type tickOutcome struct {
	delivered   int
	res         actions.Result
	interrupted bool
	// err is the failure of a step (a *stepError), or the cancellation
	// of the wake.
	err error
	// watermark is the newest stored message id when the request was built.
	watermark int64
}

// tick is one model call of a wake and the action it produced, as a value
// that its steps fill in turn: build gathers the input and builds the
// request, call asks the model, handle marks read what the request showed
// and runs the answer's action, record stores the end of the tick. A step
// that fails returns a *stepError naming it, and fail records the tick
// with it.
type tick struct {
	l   *loop
	w   *wakeState
	now time.Time
	// rec is the tick's record; every step adds to it.
	rec state.Tick
	// holding is set while the tick holds a model slot.
	holding bool

	// Left by build: the messages the request offers as new and the ids
	// of those it shows, its estimated tokens, the request, and the newest
	// stored message id when it was built.
	incoming []state.Message
	shown    []int64
	// reactions are the ids of the reactions the request shows, marked
	// shown once the model answered it.
	reactions []int64
	tokens    int
	req       planner.Request
	watermark int64
	// changes are the edit and deletion lines the state message shows.
	changes []string

	// Left by call: the answer, or that a new message interrupted it.
	resp        planner.Response
	interrupted bool

	// Left by handle: what the action did, and its record.
	out tickOutcome
	act state.ActionRecord
}

// tick runs one model call and the action it produced.
func (l *loop) tick(ctx context.Context, w *wakeState) tickOutcome {
	t := &tick{l: l, w: w}
	return t.run(ctx)
}

// run takes a model slot and the budget's leave, then runs the steps.
func (t *tick) run(ctx context.Context) tickOutcome {
	l, s, w := t.l, t.l.s, t.w
	// The model slot is taken before the request is built, not only for
	// the call: in a burst as many requests are built and held at once as
	// there are slots, not one per waiting channel (their memory, and CPU
	// that the intake of new messages needs), and a request shows what
	// arrived while its channel waited. It is given back before the action
	// runs.
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return tickOutcome{err: ctx.Err()}
	}
	t.holding = true
	defer t.freeSlot()
	t.now = s.cfg.Now()
	t.rec = t.newRecord()

	// Messages that arrived before the request is built are part of it.
	select {
	case <-l.arrived:
	default:
	}
	if err := t.build(ctx); err != nil {
		return t.fail(ctx, err)
	}
	// The call reserves what it may cost before it starts: the request as
	// counted and the longest answer the model may give.
	release := func(int64) {}
	if s.deps.Budget != nil {
		rel, ok, err := s.deps.Budget.Admit(ctx, l.id, t.now, int64(t.tokens+s.cfg.AnswerTokens))
		if err != nil {
			return t.fail(ctx, &stepError{stepBudget, err})
		}
		if !ok {
			s.log.Info("token budget used up: no model call; unread messages wait for the budget", s.chat(l.id))
			w.budget = true
			l.holdForBudget(ctx, w.trigger)
			return tickOutcome{}
		}
		release = rel
	}
	spent := int64(0)
	defer func() { release(spent) }()
	stopTyping := s.typing(ctx, l.id)
	// The typing request is waited for without any slot.
	defer func() {
		t.freeSlot()
		stopTyping()
	}()
	err := t.call(ctx)
	if err != nil && ctx.Err() == nil && errors.Is(err, planner.ErrContextLength) && w.shrink < maxShrink {
		// The estimate was over what this model takes: record the refusal,
		// halve the history and ask once more. The refusal is recorded as
		// the model's own error after the step's name.
		cause := errors.Unwrap(err)
		w.shrink++
		s.log.Warn("the model refused the request as longer than its context; retrying once with half the history (lower AIRI_PROMPT_MAX_TOKENS to avoid this)",
			s.chat(l.id), zap.Int("estimated_tokens", t.tokens), zap.Int("shrink", w.shrink), zap.Error(cause))
		t.rec.ModelError = fmt.Sprintf("%s: %v", stepCall, cause)
		s.record(ctx, t.rec)
		t.rec = t.newRecord()
		if err := t.build(ctx); err != nil {
			return t.fail(ctx, err)
		}
		err = t.call(ctx)
	}
	t.freeSlot()
	stopTyping()
	spent = s.cost(t.req, t.resp, err)
	if s.cfg.Attention != nil && (err != nil || t.interrupted) {
		l.called(t.now, nil)
	}
	t.rec.Raw, t.rec.Reasoning, t.rec.Usage = t.resp.Content, t.resp.Reasoning, t.resp.Usage
	t.rec.LatencyMS = t.resp.Latency.Milliseconds()
	if t.interrupted {
		w.interrupted = true
		t.rec.ModelError = "interrupted: a new message arrived; planning again with it"
		s.record(ctx, t.rec)
		return tickOutcome{interrupted: true}
	}
	if err != nil {
		return t.fail(ctx, err)
	}

	s.model.observe(l.id, nil)
	if err := t.handle(ctx); err != nil {
		return t.fail(ctx, err)
	}
	t.record(ctx)
	return t.out
}

// newRecord returns the tick's record before any step added to it.
func (t *tick) newRecord() state.Tick {
	return state.Tick{ChannelID: t.l.id, Wake: t.w.id, Trigger: string(t.w.trigger), Now: t.now}
}

// freeSlot gives the tick's model slot back, once.
func (t *tick) freeSlot() {
	if t.holding {
		t.holding = false
		<-t.l.s.sem
	}
}

// fail records the tick with the step that failed; err is a *stepError.
func (t *tick) fail(ctx context.Context, err error) tickOutcome {
	s := t.l.s
	if ctx.Err() != nil {
		// Shutting down: the cancellation is not a failure to report.
		return tickOutcome{err: err}
	}
	t.rec.ModelError = err.Error()
	if stepOf(err) == stepCall {
		s.model.observe(t.l.id, err)
	} else {
		s.log.Error("tick failed", s.chat(t.l.id), zap.Error(err))
	}
	s.record(ctx, t.rec)
	return tickOutcome{err: err}
}

// cost is what a model call spent against the budget: the usage the
// provider reported, else an estimate of the request and the answer (a
// call cancelled or failed after it was sent may still be billed).
func (s *Scheduler) cost(req planner.Request, resp planner.Response, err error) int64 {
	if n := resp.Usage.PromptTokens + resp.Usage.CompletionTokens; n > 0 {
		return int64(n)
	}
	if s.deps.Budget == nil || (err != nil && resp.Content == "" && errors.Is(err, planner.ErrPermanent)) {
		return 0
	}
	n := s.estimate(resp.Content)
	for _, m := range req.Messages {
		n += s.estimate(m.Content)
	}
	return int64(n)
}
