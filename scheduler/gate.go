package scheduler

import (
	"context"
	"sync"
)

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
	// queue are the loops waiting, oldest first: runs to start, and wakes
	// that gave their place back while they waited and want it again.
	queue []entry
	// spawn starts a goroutine (go f()); tests count them.
	spawn func(f func())
}

func newGate(n int) *gate {
	return &gate{free: n, spawn: func(f func()) { go f() }}
}

// entry is one loop waiting for a place: a run to start on the goroutine
// that frees one, or a wake parked on its own goroutine, to which the
// place is handed by closing resume.
type entry struct {
	run    func()
	resume chan struct{}
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
	g.queue = append(g.queue, entry{run: run})
	g.mu.Unlock()
}

// force runs run on a goroutine of its own at once, beyond the bound if
// no place is free: a stopping scheduler never waits for one. The place
// it takes is given back as the run ends, as any other.
func (g *gate) force(run func()) {
	g.mu.Lock()
	g.free--
	g.mu.Unlock()
	g.spawn(func() { g.serve(run) })
}

// leave gives the caller's place to the oldest loop waiting, or frees it:
// a wake about to wait (between its calls, for a retry, for a platform's
// typing request) holds no place meanwhile. The caller keeps its
// goroutine, so a run waiting for the place starts on a new one. Every
// leave is followed by a back.
func (g *gate) leave() {
	e, ok := g.pop()
	switch {
	case !ok:
	case e.resume != nil:
		close(e.resume)
	default:
		g.spawn(func() { g.serve(e.run) })
	}
}

// back takes a place again after leave, queued behind the loops that fell
// due before the caller's wait ended and ahead of those that fall due
// later. It always returns holding a place: when ctx ends first the
// caller takes one beyond the bound, which it gives back as its run ends,
// so that shutdown never waits for a place.
func (g *gate) back(ctx context.Context) {
	g.mu.Lock()
	if g.free > 0 {
		g.free--
		g.mu.Unlock()
		return
	}
	resume := make(chan struct{})
	g.queue = append(g.queue, entry{resume: resume})
	g.mu.Unlock()
	select {
	case <-resume:
		return
	case <-ctx.Done():
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, e := range g.queue {
		if e.resume == resume {
			g.queue = append(g.queue[:i], g.queue[i+1:]...)
			g.free--
			return
		}
	}
	// The place was handed over meanwhile: resume is closed.
}

// serve runs run, then each run waiting when it ends, until none waits.
func (g *gate) serve(run func()) {
	for run != nil {
		run()
		run = g.next()
	}
}

// next takes the oldest run waiting, or frees the caller's place when
// none waits (and returns nil). A parked wake that waits is handed the
// place and resumes on its own goroutine; the caller's goroutine then
// looks no further.
func (g *gate) next() func() {
	e, ok := g.pop()
	switch {
	case !ok:
		return nil
	case e.resume != nil:
		close(e.resume)
		return nil
	}
	return e.run
}

// pop takes the oldest entry waiting, or frees the caller's place when
// none waits (ok is false).
func (g *gate) pop() (e entry, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.queue) == 0 {
		g.free++
		return entry{}, false
	}
	e = g.queue[0]
	g.queue[0] = entry{}
	g.queue = g.queue[1:]
	if len(g.queue) == 0 {
		g.queue = nil // the array of a burst goes with it
	}
	return e, true
}
