package scheduler

import (
	"context"
	"sync"
	"time"

	"github.com/airi-go/airi/planner"
)

// typingDelay is how long a model call runs before the channel shows a
// typing indicator.
const typingDelay = 500 * time.Millisecond

// typing shows the channel's typing indicator once the model has worked
// for typingDelay: an answer within it appears about as soon as the
// indicator would. The indicator is a request to the platform of its own,
// sent beside the call rather than before it. stop cancels it when not yet
// sent and otherwise waits for it, so that it never follows the reply; the
// caller gives its model slot back first, so a slow platform holds no slot.
func (s *Scheduler) typing(ctx context.Context, id string) (stop func()) {
	if s.deps.Typing == nil {
		return func() {}
	}
	done := make(chan struct{})
	t := time.AfterFunc(typingDelay, func() {
		defer close(done)
		s.deps.Typing(ctx, id)
	})
	return sync.OnceFunc(func() {
		if t.Stop() {
			return
		}
		select {
		case <-done:
			// Sent already: nothing to wait for, no slot to give back.
		default:
			// The request is in flight: wait for it without the wake
			// slot (the caller gave its model slot back already).
			_ = away(ctx, func() error { <-done; return nil })
		}
	})
}

// call asks the model for its answer to the request; the tick holds a
// model slot. A message arriving for the channel cancels the call once per
// wake (when interrupts are on), if it is newer than the watermark: a
// message stored just before the request was built signals after it, but
// the request already shows it. An interrupted call sets t.interrupted
// and returns no error.
func (t *tick) call(ctx context.Context) error {
	l, s := t.l, t.l.s
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	// A retry's wait inside the call holds no slot. The slots are taken
	// back under the wake's context: an interrupt ends the wait, not the
	// queueing for a slot, which would take one beyond the bound.
	callCtx = planner.WithAway(callCtx, func(wait func() error) error { return t.awayFromModel(ctx, wait) })
	var (
		interrupted bool
		wg          sync.WaitGroup
		stop        = make(chan struct{})
		watermark   = t.watermark
	)
	if s.cfg.Interrupt && !t.w.interrupted {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-l.arrived:
					fresh, err := l.arrivedSince(callCtx, watermark)
					if err != nil || !fresh {
						continue
					}
					interrupted = true
					cancel()
				case <-stop:
				}
				return
			}
		}()
	}
	resp, err := s.deps.Model.Complete(callCtx, t.req)
	close(stop)
	wg.Wait()
	t.resp = resp
	t.interrupted = interrupted && ctx.Err() == nil && err != nil
	if err != nil && !t.interrupted {
		return &stepError{stepCall, err}
	}
	return nil
}
