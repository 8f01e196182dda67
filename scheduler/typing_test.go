package scheduler_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/state"
)

// TestTypingIndicator shows the typing indicator only while a model call
// takes a while, and never after the reply: the reply waits for the
// indicator's request, however slow the platform is to answer it.
func TestTypingIndicator(t *testing.T) {
	tests := []struct {
		name    string
		latency time.Duration
		want    int64
	}{
		{"a model that answers at once", 0, 0},
		{"a slow model", 3 * time.Second, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m := newModel(func(ctx context.Context, n int, req planner.Request) (string, error) {
					select {
					case <-time.After(tt.latency):
					case <-ctx.Done():
						return "", ctx.Err()
					}
					return echo(ctx, n, req)
				})
				h := newHarness(t, scheduler.Config{Debounce: 10 * time.Millisecond}, m)
				var shown atomic.Int64
				h.typing = func(ctx context.Context, id string) {
					// A platform slower to answer than the model.
					select {
					case <-time.After(5 * time.Second):
					case <-ctx.Done():
					}
					if id == "c1" {
						shown.Add(1)
					}
				}
				h.start()
				h.say("ping 1")
				h.waitSent(1)
				if got := shown.Load(); got != tt.want {
					t.Errorf("%d typing indicators before the reply, want %d", got, tt.want)
				}
				h.waitIdle()
				if got := shown.Load(); got != tt.want {
					t.Errorf("%d typing indicators in all, want %d", got, tt.want)
				}
			})
		})
	}
}

// TestTypingGivesTheSlotBack: with one model slot, a platform slow to
// answer the typing indicator does not hold the slot: the next chat's
// call starts when the model has answered, not when the indicator's
// request returns (on the bubble's virtual clock).
func TestTypingGivesTheSlotBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var starts []time.Time
		m := newModel(func(ctx context.Context, n int, req planner.Request) (string, error) {
			starts = append(starts, time.Now())
			select {
			case <-time.After(time.Second):
			case <-ctx.Done():
				return "", ctx.Err()
			}
			return fmt.Sprintf(`{"action":"send_message","channelId":%q,"content":"pong"}`, req.ChannelID), nil
		})
		h := newHarness(t, scheduler.Config{Debounce: 10 * time.Millisecond, Concurrency: 1}, m)
		h.typing = func(ctx context.Context, id string) {
			select {
			case <-time.After(5 * time.Second):
			case <-ctx.Done():
			}
		}
		h.start()
		h.say("ping 1")
		ch := state.Channel{ID: "c2", Platform: "console", Title: "other"}
		if err := h.sched.Deliver(context.Background(), ch, state.Message{ChannelID: "c2", PlatformID: "o1", SenderName: "bo", Content: "ping 2", Time: time.Now().UTC()}); err != nil {
			t.Fatal(err)
		}
		h.waitSent(2)
		h.waitIdle()
		if len(starts) < 2 {
			t.Fatalf("%d model calls, want 2", len(starts))
		}
		if gap := starts[1].Sub(starts[0]); gap > 2*time.Second {
			t.Errorf("the second chat's call started %v after the first, want about the model's 1s: the slot waited for the indicator", gap)
		}
	})
}
