package scheduler_test

import (
	"context"
	"testing"
	"time"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/state"
)

func TestPausedChannelMakesNoModelCall(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	m := newModel(func(context.Context, int, planner.Request) (string, error) { return `{"action":"continue"}`, nil })
	h := newHarness(t, scheduler.Config{Now: clock, NoDebounce: true}, m)
	ctx := context.Background()
	until := now.Add(time.Minute)
	if err := h.store.SetChannelControl(ctx, state.ChannelControl{ChannelID: "c1", Paused: true, PausedUntil: until}); err != nil {
		t.Fatal(err)
	}
	h.say("hello")
	rep := h.sched.Wake(ctx, "c1", "message")
	if !rep.Skipped || !rep.PausedUntil.Equal(until) || len(m.requests()) != 0 {
		t.Fatalf("wake while paused: %+v, %d model calls", rep, len(m.requests()))
	}
	skipped, err := h.store.SkippedWakes(ctx, state.TickFilter{ChannelID: "c1"})
	if err != nil || len(skipped) != 1 || skipped[0].Reason != "paused" {
		t.Errorf("recorded skipped wakes: %+v %v, want one paused", skipped, err)
	}
	counts, err := h.store.UnreadCounts(ctx)
	if err != nil || counts["c1"] != 1 {
		t.Fatalf("the message is not kept unread while paused: %v %v", counts, err)
	}
	now = until // the pause ends
	rep = h.sched.Wake(ctx, "c1", "unread")
	if rep.Skipped || len(m.requests()) != 1 {
		t.Fatalf("wake after the pause: %+v, %d model calls", rep, len(m.requests()))
	}
}
