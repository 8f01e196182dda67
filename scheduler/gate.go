package scheduler

import "sync"

// gate bounds the loops whose goroutine runs at once. A loop past the
// bound waits in a queue as a function to call, not as a goroutine: a
// burst of a thousand chats holds a thousand queue entries, not a
// thousand goroutine stacks each with a request built long before a
// model slot frees for it. Loops enter in the order they fell due.
type gate struct {
	mu   sync.Mutex
	free int
	// queue are the loops waiting, oldest first.
	queue []func()
}

func newGate(n int) *gate { return &gate{free: n} }

// enter calls start now when a place is free, else once one is. start
// runs in the goroutine that frees the place (or the caller) and must not
// block: it starts the loop's goroutine.
func (g *gate) enter(start func()) {
	g.mu.Lock()
	if g.free > 0 {
		g.free--
		g.mu.Unlock()
		start()
		return
	}
	g.queue = append(g.queue, start)
	g.mu.Unlock()
}

// leave frees the caller's place, handing it to the oldest loop waiting.
func (g *gate) leave() {
	g.mu.Lock()
	if len(g.queue) == 0 {
		g.free++
		g.mu.Unlock()
		return
	}
	start := g.queue[0]
	g.queue[0] = nil
	g.queue = g.queue[1:]
	if len(g.queue) == 0 {
		g.queue = nil // the array of a burst goes with it
	}
	g.mu.Unlock()
	start()
}
