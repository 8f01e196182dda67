package scheduler

import "context"

// A wake that waits gives its places back: between two calls (the
// continue delay), while its model call waits out a retry or a
// Retry-After, and while a typing request to the platform is in flight,
// it holds neither a wake slot nor a model slot. It takes its slots again
// when the wait is over, queued behind the wakes that fell due before and
// ahead of those that fall due later. A burst of chats whose model reads
// before it replies then runs as fast as one whose model replies at once,
// instead of every slot sleeping through a continue delay.
//
// Between two calls the wake holds no goroutine either: its state waits
// in a wakeRun behind a timer (loop.drive). During a retry's wait or a
// typing request, which happen inside a call, the goroutine parks with
// the call on its stack (away).

// gateKey marks the context of a wake that runs under the scheduler's
// gate and so holds one of its places. Wake and RunDue run outside it.
type gateKey struct{}

// underGate returns ctx marked as holding a place of g.
func underGate(ctx context.Context, g *gate) context.Context {
	return context.WithValue(ctx, gateKey{}, g)
}

// away runs wait without the wake slot ctx holds, if it holds one, and
// takes a slot again before it returns.
func away(ctx context.Context, wait func() error) error {
	g, _ := ctx.Value(gateKey{}).(*gate)
	if g == nil {
		return wait()
	}
	g.leave()
	err := wait()
	g.back(ctx)
	return err
}

// awayFromModel runs wait, the model call's own wait for a retry, without
// the tick's model slot and wake slot, and takes both again: the wake
// slot first, then the model slot, in the order a wake takes them.
func (t *tick) awayFromModel(ctx context.Context, wait func() error) error {
	held := t.holding
	t.freeSlot()
	err := away(ctx, wait)
	if held {
		select {
		case t.l.s.sem <- struct{}{}:
			t.holding = true
		case <-ctx.Done():
			if err == nil {
				err = ctx.Err()
			}
		}
	}
	return err
}
