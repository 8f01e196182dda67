package planner

import "context"

// awayKey carries the caller's way of waiting in a model call's context.
type awayKey struct{}

// WithAway returns ctx through which a Model waits out a retry's backoff
// or a Retry-After: away runs wait, and may give back what the caller
// holds meanwhile (the scheduler gives back its model and wake slots,
// so that a call waiting for the provider holds no slot).
func WithAway(ctx context.Context, away func(wait func() error) error) context.Context {
	return context.WithValue(ctx, awayKey{}, away)
}

// Away runs wait, a Model's wait inside one call, through the way ctx
// carries (see WithAway), or plainly when it carries none.
func Away(ctx context.Context, wait func() error) error {
	if away, ok := ctx.Value(awayKey{}).(func(wait func() error) error); ok && away != nil {
		return away(wait)
	}
	return wait()
}
