// Package backoff computes the wait between the attempts of a retried
// operation (an exponential window, jittered, capped, honouring a wait the
// other side asked for) and waits it out without outliving a context.
//
// The model client, the Telegram poller and the Satori event stream and
// sender share it, so every retry in airi follows the same rules.
package backoff

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// Jitter says how a wait is drawn from its window.
type Jitter int

const (
	// NoJitter waits the whole window.
	NoJitter Jitter = iota
	// FullJitter draws the wait evenly from [0, window]: retries of many
	// callers spread out the most.
	FullJitter
	// EqualJitter draws the wait evenly from [window/2, window]: spread out,
	// yet never much shorter than the window.
	EqualJitter
)

// Policy is an exponential backoff: the window of the wait after the nth
// failure is Min doubled n-1 times, never more than Max. The zero Policy
// never waits.
type Policy struct {
	// Min is the window after the first failure.
	Min time.Duration
	// Max caps every window and every wait, including one asked for.
	Max time.Duration
	// Jitter draws the wait from the window.
	Jitter Jitter
	// Rand returns an even draw from [0, n) for n > 0; nil uses
	// math/rand/v2. Tests set it to make the waits repeatable.
	Rand func(n time.Duration) time.Duration
}

// Window is the upper bound of the wait after the nth failure (1-based).
func (p Policy) Window(n int) time.Duration {
	w := p.Min
	for i := 1; i < n && w < p.Max; i++ {
		w *= 2
	}
	return min(w, p.Max)
}

// Delay is the wait after the nth failure (1-based): a draw from its
// window, at least retryAfter (what the other side asked for, 0 if
// nothing), at most Max.
func (p Policy) Delay(n int, retryAfter time.Duration) time.Duration {
	w := p.Window(n)
	var d time.Duration
	switch p.Jitter {
	case FullJitter:
		d = p.draw(w + 1)
	case EqualJitter:
		half := w / 2
		d = half + p.draw(w-half+1)
	default:
		d = w
	}
	return min(max(d, retryAfter), p.Max)
}

// draw returns an even draw from [0, n), 0 when n < 1.
func (p Policy) draw(n time.Duration) time.Duration {
	if n <= 1 {
		return 0
	}
	if p.Rand != nil {
		return p.Rand(n)
	}
	return rand.N(n)
}

// Sleep waits for d, or less if ctx ends first. It returns nil after a
// full wait, and otherwise an error that matches both ctx.Err() and the
// cause ctx was cancelled with (context.Cause) under errors.Is. A wait of
// zero or less returns at once, with ctx's error if it is already done.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return done(ctx)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return done(ctx)
	case <-t.C:
		return nil
	}
}

// done reports a finished context with its cause, nil while ctx is alive.
func done(ctx context.Context) error {
	err := ctx.Err()
	if err == nil {
		return nil
	}
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return fmt.Errorf("%w (%w)", err, cause)
	}
	return err
}
