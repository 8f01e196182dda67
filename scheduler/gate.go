package scheduler

import "sync"

// gate bounds the loops whose goroutine runs at once. A loop past the
// bound waits in a queue as a function to call, not as a goroutine: a
// burst of a thousand chats holds a thousand queue entries, not a
// thousand goroutine stacks each with a request built long before a
// model slot frees for it. Loops run in the order they fell due.
//
// A goroutine that ends a run takes the oldest waiting one itself: its
// stack has grown for the store and the prompt build once, and the
// loops of a burst run on the goroutines of the first few instead of
// each growing a new one.
type gate struct {
	mu   sync.Mutex
	free int
	// queue are the loops waiting, oldest first.
	queue []func()
	// spawn starts a goroutine (go f()); tests count them.
	spawn func(f func())
}

func newGate(n int) *gate {
	return &gate{free: n, spawn: func(f func()) { go f() }}
}

// enter runs run on a goroutine of its own when a place is free, else
// on the goroutine of the run that frees one.
func (g *gate) enter(run func()) {
	g.mu.Lock()
	if g.free > 0 {
		g.free--
		g.mu.Unlock()
		g.spawn(func() { g.serve(run) })
		return
	}
	g.queue = append(g.queue, run)
	g.mu.Unlock()
}

// serve runs run, then each run waiting when it ends, until none waits.
func (g *gate) serve(run func()) {
	for run != nil {
		run()
		run = g.next()
	}
}

// next takes the oldest run waiting, or frees the caller's place when
// none waits (and returns nil).
func (g *gate) next() func() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.queue) == 0 {
		g.free++
		return nil
	}
	run := g.queue[0]
	g.queue[0] = nil
	g.queue = g.queue[1:]
	if len(g.queue) == 0 {
		g.queue = nil // the array of a burst goes with it
	}
	return run
}
