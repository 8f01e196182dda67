package scheduler

import (
	"slices"
	"testing"
	"testing/synctest"
)

// syncGate is a gate whose goroutines are counted and run at once, on
// the caller's, so that a test sees every run in order.
func syncGate(n int) (*gate, *int) {
	g := newGate(n)
	spawned := 0
	g.spawn = func(f func()) {
		spawned++
		f()
	}
	return g, &spawned
}

func TestGateRunsInTurn(t *testing.T) {
	g := newGate(2)
	var started []int
	var held []func()
	g.spawn = func(f func()) { held = append(held, f) }
	for i := range 5 {
		g.enter(func() { started = append(started, i) })
	}
	if len(held) != 2 {
		t.Fatalf("%d goroutines started for 2 places", len(held))
	}
	// The first goroutine runs its loop, then each waiting one in turn.
	held[0]()
	if want := []int{0, 2, 3, 4}; !slices.Equal(started, want) {
		t.Fatalf("ran %v, want %v: a goroutine takes the waiting loops in the order they entered", started, want)
	}
	held[1]()
	if want := []int{0, 2, 3, 4, 1}; !slices.Equal(started, want) {
		t.Fatalf("ran %v, want %v", started, want)
	}
	if g.free != 2 {
		t.Errorf("%d places free after every loop ran, want 2", g.free)
	}
	g.enter(func() { started = append(started, 5) })
	if len(held) != 3 {
		t.Errorf("a free place did not start a goroutine for the next loop")
	}
}

// TestGateReusesGoroutines: a burst runs on the goroutines of its first
// loops, not on one new goroutine per loop, and every loop runs once.
func TestGateReusesGoroutines(t *testing.T) {
	g := newGate(4)
	n := 0
	var queued []func()
	// Four loops hold the places while the burst queues behind them.
	g.spawn = func(f func()) { queued = append(queued, f) }
	for range 3000 {
		g.enter(func() { n++ })
	}
	for _, f := range queued {
		f()
	}
	if n != 3000 {
		t.Fatalf("%d of 3000 loops ran", n)
	}
	if len(queued) != 4 {
		t.Errorf("%d goroutines ran a burst of 3000 loops with 4 places, want 4", len(queued))
	}
	if g.free != 4 || g.queue != nil {
		t.Errorf("after every loop ran: free %d, queue of %d (capacity %d), want 4 free and no queue", g.free, len(g.queue), cap(g.queue))
	}
}

// TestGateNestedEnter: a loop that runs on a free place at once (here on
// the caller's goroutine) may make another loop due; it waits its turn.
func TestGateNestedEnter(t *testing.T) {
	g, spawned := syncGate(1)
	var order []string
	g.enter(func() {
		order = append(order, "a")
		g.enter(func() { order = append(order, "b") })
		order = append(order, "a done")
	})
	if want := []string{"a", "a done", "b"}; !slices.Equal(order, want) {
		t.Errorf("ran %v, want %v", order, want)
	}
	if *spawned != 1 || g.free != 1 {
		t.Errorf("%d goroutines, %d free, want 1 and 1", *spawned, g.free)
	}
}

// TestGateLeaveAndBack: a wake that leaves hands its place to the oldest
// loop waiting, and coming back it queues behind the loops already
// waiting; the place is handed to it when one frees.
func TestGateLeaveAndBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(1)
		var started []int
		var spawned []func()
		g.spawn = func(f func()) { spawned = append(spawned, f) }
		g.enter(func() {}) // holds the only place
		g.enter(func() { started = append(started, 1) })
		g.leave()
		if len(spawned) != 2 {
			t.Fatalf("%d goroutines started, want one for the loop the place went to", len(spawned))
		}
		g.enter(func() { started = append(started, 2) })
		back := make(chan struct{})
		go func() {
			g.back(t.Context())
			close(back)
		}()
		// The wake coming back is queued behind loop 2.
		synctest.Wait()
		if len(g.queue) != 2 {
			t.Fatalf("%d loops waiting, want loop 2 and the wake coming back", len(g.queue))
		}
		spawned[1]() // runs loop 1, then loop 2, then hands the place on
		<-back
		if want := []int{1, 2}; !slices.Equal(started, want) {
			t.Fatalf("ran %v, want %v before the wake came back", started, want)
		}
		if g.free != 0 || len(g.queue) != 0 {
			t.Fatalf("free %d, queue %d after the wake came back; want its place held", g.free, len(g.queue))
		}
	})
}
