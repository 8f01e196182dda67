package scheduler

import (
	"context"
	"errors"
	"fmt"
	"strings"

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

type tickOutcome struct {
	delivered   int
	res         actions.Result
	interrupted bool
	modelErr    error
	// watermark is the newest stored message id when the request was built.
	watermark int64
}

// tick runs one model call and the action it produced.
func (l *loop) tick(ctx context.Context, w *wakeState) tickOutcome {
	s := l.s
	// The model slot is taken before the request is built, not only for
	// the call: in a burst as many requests are built and held at once as
	// there are slots, not one per waiting channel (their memory, and CPU
	// that the intake of new messages needs), and a request shows what
	// arrived while its channel waited. It is given back before the action
	// runs.
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return tickOutcome{modelErr: ctx.Err()}
	}
	holding := true
	freeSlot := func() {
		if holding {
			holding = false
			<-s.sem
		}
	}
	defer freeSlot()
	now := s.cfg.Now()
	rec := state.Tick{ChannelID: l.id, Wake: w.id, Trigger: string(w.trigger), Now: now}
	fail := func(err error) tickOutcome { return l.fail(ctx, &rec, err) }

	// Messages that arrived before the request is built are part of it.
	select {
	case <-l.arrived:
	default:
	}
	release := func(int64) {}
	if s.deps.Budget != nil {
		rel, ok, err := s.deps.Budget.Admit(ctx, l.id, now)
		if err != nil {
			return fail(&stepError{stepBudget, err})
		}
		if !ok {
			s.log.Info("token budget used up: no model call; unread messages wait for the budget", zap.String("channel", l.id))
			w.budget = true
			l.holdForBudget(ctx, w.trigger)
			return tickOutcome{}
		}
		release = rel
	}
	spent := int64(0)
	defer func() { release(spent) }()

	in, watermark, prompt, req, err := l.request(ctx, w, now, &rec)
	if err != nil {
		return fail(err)
	}
	stopTyping := s.typing(ctx, l.id)
	defer stopTyping()
	resp, interrupted, err := s.complete(ctx, l, w, req, watermark)
	if err != nil && !interrupted && ctx.Err() == nil && errors.Is(err, planner.ErrContextLength) && w.shrink < maxShrink {
		// The estimate was over what this model takes: record the refusal,
		// halve the history and ask once more.
		w.shrink++
		s.log.Warn("the model refused the request as longer than its context; retrying once with half the history (lower AIRI_PROMPT_MAX_TOKENS to avoid this)",
			zap.String("channel", l.id), zap.Int("estimated_tokens", prompt.Tokens), zap.Int("shrink", w.shrink), zap.Error(err))
		rec.ModelError = fmt.Sprintf("model call: %v", err)
		s.record(ctx, rec)
		rec = state.Tick{ChannelID: l.id, Wake: w.id, Trigger: string(w.trigger), Now: now}
		in, watermark, prompt, req, err = l.request(ctx, w, now, &rec)
		if err != nil {
			return fail(err)
		}
		resp, interrupted, err = s.complete(ctx, l, w, req, watermark)
	}
	freeSlot()
	stopTyping()
	spent = s.cost(req, resp, err)
	if s.cfg.Attention != nil && (err != nil || interrupted) {
		l.called(now, nil)
	}
	rec.Raw, rec.Reasoning, rec.Usage = resp.Content, resp.Reasoning, resp.Usage
	rec.LatencyMS = resp.Latency.Milliseconds()
	if interrupted {
		w.interrupted = true
		rec.ModelError = "interrupted: a new message arrived; planning again with it"
		s.record(ctx, rec)
		return tickOutcome{interrupted: true}
	}
	if err != nil {
		if ctx.Err() != nil {
			return tickOutcome{modelErr: err}
		}
		return fail(&stepError{stepCall, err})
	}

	s.model.observe(l.id, nil)
	// The answer is handled in a function of its own: the frame of this
	// one is what a wake waiting on the model keeps on its stack.
	return l.answered(ctx, w, now, &rec, in.Incoming, prompt.Shown, resp.Content, watermark)
}

// fail records a tick whose step failed; err is a *stepError.
func (l *loop) fail(ctx context.Context, rec *state.Tick, err error) tickOutcome {
	s := l.s
	if ctx.Err() != nil {
		// Shutting down: the cancellation is not a failure to report.
		return tickOutcome{modelErr: err}
	}
	rec.ModelError = err.Error()
	if stepOf(err) == stepCall {
		s.model.observe(l.id, err)
	} else {
		s.log.Error("tick failed", zap.String("channel", l.id), zap.Error(err))
	}
	s.record(ctx, *rec)
	return tickOutcome{modelErr: err}
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
