package scheduler_test

import (
	"context"
	"testing"
	"time"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/scheduler"
)

// stepClock is a clock that moves only when told.
type stepClock struct{ now time.Time }

func (c *stepClock) Now() time.Time { return c.now }

// TestStepOnOwnClock drives the loop with NextDue and RunDue on a clock
// that never moves by itself: the debounce of a burst, a sleep and
// a message ending that sleep all fall due on that clock.
func TestStepOnOwnClock(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	clock := &stepClock{now: t0}
	m := newModel(func(_ context.Context, n int, _ planner.Request) (string, error) {
		if n == 1 {
			return `{"action":"sleep","duration":300000}`, nil
		}
		return `{"action":"send_message","channelId":"c1","content":"hi"}`, nil
	})
	h := newHarness(t, scheduler.Config{Debounce: 2 * time.Second, Now: clock.Now}, m)
	ctx := context.Background()

	if _, _, _, ok := h.sched.NextDue(); ok {
		t.Fatal("a wake is due before any message")
	}
	h.say("one")
	clock.now = t0.Add(1500 * time.Millisecond)
	h.say("two")
	// The wake is due a debounce after the first message of the burst.
	if id, at, trig, ok := h.sched.NextDue(); !ok || id != "c1" || !at.Equal(t0.Add(2*time.Second)) || trig != "message" {
		t.Fatalf("next due %q at %v (%s, %v), want c1 at %v (message)", id, at, trig, ok, t0.Add(2*time.Second))
	}
	clock.now = t0.Add(2 * time.Second)
	rep, ok := h.sched.RunDue(ctx, "c1")
	if !ok || rep.Sleep != 5*time.Minute || len(m.requests()) != 1 {
		t.Fatalf("first wake: %+v, ran %v, %d calls; want a 5m sleep after one call", rep, ok, len(m.requests()))
	}
	id, at, trig, ok := h.sched.NextDue()
	if !ok || id != "c1" || !at.Equal(clock.now.Add(5*time.Minute)) || trig != "sleep" {
		t.Fatalf("after the sleep action: next due %q at %v (%s, %v), want c1 at %v (sleep)", id, at, trig, ok, clock.now.Add(5*time.Minute))
	}
	// A message ends the sleep: the wake is due a debounce after it.
	clock.now = t0.Add(time.Minute)
	h.say("three")
	if _, at, trig, _ := h.sched.NextDue(); !at.Equal(clock.now.Add(2*time.Second)) || trig != "message" {
		t.Fatalf("after a message during the sleep: due at %v (%s), want %v (message)", at, trig, clock.now.Add(2*time.Second))
	}
	clock.now = clock.now.Add(2 * time.Second)
	if rep, _ := h.sched.RunDue(ctx, "c1"); rep.Iterations != 1 || len(h.sender.sent) != 1 {
		t.Fatalf("second wake: %+v, %d sends; want one call and one send", rep, len(h.sender.sent))
	}
	if _, _, _, ok := h.sched.NextDue(); ok {
		t.Fatal("a wake is still due after everything was answered")
	}
	if _, ok := h.sched.RunDue(ctx, "c1"); ok {
		t.Fatal("RunDue ran a wake nothing scheduled")
	}
}
