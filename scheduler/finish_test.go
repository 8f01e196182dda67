package scheduler_test

import (
	"context"
	"testing"
	"time"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/scheduler"
)

// TestFinishReasonReachesParser checks that the scheduler tells the parser
// how the answer ended: an answer missing its closing quote and brace is
// sent when the model stopped by itself, and refused when the provider cut
// it at the length limit.
func TestFinishReasonReachesParser(t *testing.T) {
	raw := `{"action":"send_message","channelId":"c1","content":"see you tomorrow`
	tests := []struct {
		finish string
		sends  int
	}{
		{"stop", 1},
		{"length", 0},
	}
	for _, tt := range tests {
		t.Run(tt.finish, func(t *testing.T) {
			t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
			clock := &stepClock{now: t0}
			m := newModel(func(context.Context, int, planner.Request) (string, error) { return raw, nil })
			m.finish = tt.finish
			h := newHarness(t, scheduler.Config{Debounce: time.Second, MaxIterations: 1, Now: clock.Now}, m)
			h.say("bye")
			clock.now = t0.Add(time.Second)
			if _, ok := h.sched.RunDue(context.Background(), "c1"); !ok {
				t.Fatal("no wake ran")
			}
			if got := len(h.sender.sent); got != tt.sends {
				t.Fatalf("%d sends, want %d", got, tt.sends)
			}
			if tt.sends == 1 && h.sender.sent[0].Content != "see you tomorrow" {
				t.Fatalf("sent %q, want the closed text", h.sender.sent[0].Content)
			}
		})
	}
}
