package scheduler

import (
	"slices"
	"testing"
)

func TestGateStartsInTurn(t *testing.T) {
	g := newGate(2)
	var started []int
	for i := range 5 {
		g.enter(func() { started = append(started, i) })
	}
	if want := []int{0, 1}; !slices.Equal(started, want) {
		t.Fatalf("started %v before any left, want %v", started, want)
	}
	for range 3 {
		g.leave()
	}
	if want := []int{0, 1, 2, 3, 4}; !slices.Equal(started, want) {
		t.Fatalf("started %v, want %v in the order they entered", started, want)
	}
	// Both places are held; one leaves and frees its place.
	g.leave()
	g.enter(func() { started = append(started, 5) })
	if started[len(started)-1] != 5 {
		t.Errorf("a free place did not start the next entry: %v", started)
	}
	g.enter(func() { started = append(started, 6) })
	if started[len(started)-1] == 6 {
		t.Errorf("an entry started with no place free: %v", started)
	}
}

// TestGateReleasesItsQueue: once the waiting loops have all entered, the
// gate lets go of its queue's array, however large a burst made it.
func TestGateReleasesItsQueue(t *testing.T) {
	g := newGate(1)
	n := 0
	for range 3000 {
		g.enter(func() { n++ })
	}
	for range 3000 {
		g.leave()
	}
	if n != 3000 {
		t.Fatalf("%d of 3000 entries started", n)
	}
	if g.free != 1 || g.queue != nil {
		t.Errorf("after everyone left: free %d, queue of %d (capacity %d), want 1 free and no queue", g.free, len(g.queue), cap(g.queue))
	}
}
