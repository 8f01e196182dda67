package scheduler_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/scheduler"
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
