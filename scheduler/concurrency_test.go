package scheduler_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/state"
)

// TestManyChannelsUnderTheModelLimit runs twenty channels at once: every
// message is answered in its own channel, a channel's ticks never overlap,
// and no more model calls are in flight than the configured limit.
func TestManyChannelsUnderTheModelLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const channels, perChannel, limit = 20, 3, 4
		var (
			inFlight, peak atomic.Int64
			mu             sync.Mutex
			busy           = map[string]bool{}
			overlap        atomic.Bool
		)
		m := newModel(func(ctx context.Context, n int, req planner.Request) (string, error) {
			ch := strings.TrimPrefix(req.User, "airi:")
			mu.Lock()
			if busy[ch] {
				overlap.Store(true)
			}
			busy[ch] = true
			mu.Unlock()
			cur := inFlight.Add(1)
			for {
				p := peak.Load()
				if cur <= p || peak.CompareAndSwap(p, cur) {
					break
				}
			}
			defer func() {
				inFlight.Add(-1)
				mu.Lock()
				busy[ch] = false
				mu.Unlock()
			}()
			select {
			case <-time.After(5 * time.Millisecond):
			case <-ctx.Done():
				return "", ctx.Err()
			}
			st := stateOf(req)
			if i := strings.LastIndex(st, "hello-"); i >= 0 && strings.Contains(st, "New messages") {
				return fmt.Sprintf(`{"action":"send_message","channelId":%q,"content":"ack"}`, ch), nil
			}
			return `{"action":"continue"}`, nil
		})
		h := newHarness(t, scheduler.Config{Concurrency: limit, Debounce: 5 * time.Millisecond, SendUser: true}, m)
		h.start()
		for i := 0; i < perChannel; i++ {
			for c := 0; c < channels; c++ {
				id := fmt.Sprintf("room%02d", c)
				err := h.sched.Deliver(context.Background(), state.Channel{ID: id, Platform: "console", Group: true, Title: id},
					state.Message{ChannelID: id, PlatformID: fmt.Sprint(i), SenderName: "ann", Content: fmt.Sprintf("hello-%d", i), Time: time.Now()})
				if err != nil {
					t.Fatal(err)
				}
			}
		}
		h.waitIdle()
		if overlap.Load() {
			t.Error("two ticks of one channel overlapped")
		}
		t.Logf("peak %d model calls in flight", peak.Load())
		if p := peak.Load(); p > limit {
			t.Errorf("%d model calls in flight, limit %d", p, limit)
		}
		got := h.sender.perChannel()
		if len(got) != channels {
			t.Errorf("answered in %d channels, want %d: %v", len(got), channels, got)
		}
		counts, err := h.store.UnreadCounts(context.Background())
		if err != nil || len(counts) != 0 {
			t.Errorf("unread left: %v, %v", counts, err)
		}
	})
}

// TestWakesBoundRunningLoops lets three wakes run at once with eight model
// slots: no more calls are ever in flight than wakes may run, and the
// channels waiting their turn are all answered.
func TestWakesBoundRunningLoops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const channels, wakes = 12, 3
		var inFlight, peak atomic.Int64
		m := newModel(func(ctx context.Context, n int, req planner.Request) (string, error) {
			cur := inFlight.Add(1)
			defer inFlight.Add(-1)
			for {
				p := peak.Load()
				if cur <= p || peak.CompareAndSwap(p, cur) {
					break
				}
			}
			select {
			case <-time.After(5 * time.Millisecond):
			case <-ctx.Done():
				return "", ctx.Err()
			}
			ch := strings.TrimPrefix(req.User, "airi:")
			return fmt.Sprintf(`{"action":"send_message","channelId":%q,"content":"ack"}`, ch), nil
		})
		h := newHarness(t, scheduler.Config{Concurrency: 8, Wakes: wakes, Debounce: 5 * time.Millisecond, SendUser: true}, m)
		h.start()
		for c := range channels {
			id := fmt.Sprintf("room%02d", c)
			err := h.sched.Deliver(context.Background(), state.Channel{ID: id, Platform: "console", Title: id},
				state.Message{ChannelID: id, PlatformID: "1", SenderName: "ann", Content: "hello", Time: time.Now()})
			if err != nil {
				t.Fatal(err)
			}
		}
		h.waitIdle()
		if p := peak.Load(); p > wakes {
			t.Errorf("%d model calls in flight with at most %d wakes running", p, wakes)
		}
		got := h.sender.perChannel()
		if len(got) != channels {
			t.Errorf("answered in %d channels, want %d: %v", len(got), channels, got)
		}
	})
}
