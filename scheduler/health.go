package scheduler

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/state"
)

// modelHealth follows whether model calls succeed. A failure is logged
// once at error level; the same failure again is logged at debug level
// until a call succeeds, which is logged once, so that a bad key or an
// unreachable endpoint is one line, not one per wake.
type modelHealth struct {
	log *zap.Logger

	mu        sync.Mutex
	failing   bool
	since     time.Time
	lastText  string
	repeats   int
	permanent error
	// probed is when ModelDegraded last asked the model itself.
	probed time.Time
}

// observe records the outcome of one model call of a channel.
func (h *modelHealth) observe(channel string, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err == nil {
		if h.failing {
			h.log.Info("model calls recovered", zap.Int("failed_calls", h.repeats+1), zap.Duration("failing_for", time.Since(h.since)))
		}
		h.failing, h.lastText, h.repeats, h.permanent = false, "", 0, nil
		return
	}
	text := err.Error()
	if errors.Is(err, planner.ErrPermanent) {
		h.permanent = err
	} else {
		h.permanent = nil
	}
	if h.failing && text == h.lastText {
		h.repeats++
		h.log.Debug("model call failed again", zap.String("channel", channel), zap.Int("repeats", h.repeats), zap.Error(err))
		return
	}
	if !h.failing {
		h.since = time.Now()
	}
	h.failing, h.lastText, h.repeats = true, text, 0
	msg := "model call failed; retrying on the next wake (the same error again is not logged until calls recover)"
	if h.permanent != nil {
		msg = "the model refuses the calls; fix the setting the error names (the same error again is not logged until calls recover)"
	}
	h.log.Error(msg, zap.String("channel", channel), zap.Error(err))
}

// err returns the permanent failure of the last model call, or nil.
func (h *modelHealth) err() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.permanent
}

// failingSince returns when the model calls started failing and the
// last error, or the zero time while they succeed.
func (h *modelHealth) failingSince() (time.Time, string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.failing {
		return time.Time{}, ""
	}
	return h.since, h.lastText
}

// ModelFailing returns since when every model call has failed and the
// last error, or the zero time when the last call succeeded (or none was
// made). `airi chat` gives up on a model that fails too long.
func (s *Scheduler) ModelFailing() (time.Time, string) { return s.model.failingSince() }

// ModelErr returns why the model refuses every call (a bad key, model or
// URL: a failure retrying cannot fix) while the last call failed that
// way, or nil. Readiness checks report it.
func (s *Scheduler) ModelErr() error { return s.model.err() }

// DefaultModelGiveUp is how long every model call may fail before
// readiness reports the model degraded.
const DefaultModelGiveUp = 60 * time.Second

// DefaultModelProbe bounds how often ModelDegraded asks the model itself
// while calls fail.
const DefaultModelProbe = 15 * time.Second

// ModelDegraded returns why the model is not serving: its permanent
// refusal, or, when every call has failed for at least after, the last
// error and for how long; nil while it serves. While calls fail it also
// asks the model itself, at most every Config.ModelProbe, with one small
// call (not a tick: nothing is recorded or shown to a chat) whose
// outcome counts like any call's, so that readiness turns good again
// soon after the model comes back even when no chat wakes the bot.
func (s *Scheduler) ModelDegraded(ctx context.Context, after time.Duration) error {
	if err := s.model.err(); err != nil {
		return err
	}
	since, _ := s.model.failingSince()
	if since.IsZero() {
		return nil
	}
	if s.model.probeDue(s.cfg.ModelProbe) {
		pctx, cancel := context.WithTimeout(ctx, s.cfg.ModelProbe)
		_, err := s.deps.Model.Complete(pctx, planner.Request{ChannelID: "airi:probe", Messages: []state.ChatMessage{
			{Role: "user", Content: `Answer with {"action":"continue"} and nothing else.`},
		}})
		cancel()
		if ctx.Err() == nil {
			s.model.observe("airi:probe", err)
		}
	}
	if err := s.model.err(); err != nil {
		return err
	}
	since, last := s.model.failingSince()
	if d := time.Since(since); !since.IsZero() && d >= after {
		return fmt.Errorf("every model call has failed for %s: %s", d.Round(time.Second), last)
	}
	return nil
}

// probeDue reports whether a probe may start now, and if so notes that
// one did.
func (h *modelHealth) probeDue(every time.Duration) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if time.Since(h.probed) < every {
		return false
	}
	h.probed = time.Now()
	return true
}
