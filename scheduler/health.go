package scheduler

import (
	"errors"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/planner"
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
