package scheduler_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/state"
)

// deliverTo delivers one message to a direct channel of its own.
func deliverTo(t *testing.T, h *harness, id string) {
	t.Helper()
	err := h.sched.Deliver(context.Background(), state.Channel{ID: id, Platform: "console", Title: id},
		state.Message{ChannelID: id, PlatformID: "1", SenderName: "ann", Content: "hello", Time: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
}

// readsFirst is a model that reads before it replies: each chat's first
// call is answered with read_unread_messages, the next with a send. It
// logs the calls as "chat#n".
type readsFirst struct {
	mu    sync.Mutex
	order []string
	calls map[string]int
}

func (r *readsFirst) model() *model {
	r.calls = map[string]int{}
	return newModel(func(_ context.Context, _ int, req planner.Request) (string, error) {
		ch := strings.TrimPrefix(req.User, "airi:")
		r.mu.Lock()
		r.calls[ch]++
		n := r.calls[ch]
		r.order = append(r.order, fmt.Sprintf("%s#%d", ch, n))
		r.mu.Unlock()
		if n == 1 {
			return fmt.Sprintf(`{"action":"read_unread_messages","channelId":%q}`, ch), nil
		}
		return `{"action":"send_message","content":"hi"}`, nil
	})
}

// TestContinueDelayHoldsNoSlot runs two chats with one wake slot and one
// model slot and a model that reads before it replies: the second chat's
// first call runs while the first chat waits out its continue delay,
// and both are answered once.
func TestContinueDelayHoldsNoSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var r readsFirst
		h := newHarness(t, scheduler.Config{Concurrency: 1, Wakes: 1, ContinueDelay: time.Second, Debounce: 5 * time.Millisecond, SendUser: true}, r.model())
		h.start()
		deliverTo(t, h, "a")
		deliverTo(t, h, "b")
		h.waitIdle()
		r.mu.Lock()
		defer r.mu.Unlock()
		order := r.order
		if len(order) != 4 {
			t.Fatalf("calls %v, want two per chat", order)
		}
		first, second := order[0][:1], map[string]string{"a": "b", "b": "a"}[order[0][:1]]
		if order[1] != second+"#1" {
			t.Fatalf("calls in the order %v: %s's first call waited for %s's continue delay, want it in that delay", order, second, first)
		}
		if got := h.sender.perChannel(); got["a"] != 1 || got["b"] != 1 {
			t.Fatalf("sends per chat %v, want one each", got)
		}
	})
}

// TestContinueDelayHoldsNoGoroutine: chats whose model reads before it
// replies wait out their continue delay as data, not as parked
// goroutines, and each is answered once when the delay is over.
func TestContinueDelayHoldsNoGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const chats = 20
		var r readsFirst
		h := newHarness(t, scheduler.Config{Concurrency: 4, Wakes: 4, ContinueDelay: time.Second, Debounce: 5 * time.Millisecond, SendUser: true}, r.model())
		h.start()
		for i := range chats {
			deliverTo(t, h, fmt.Sprint("c", i))
		}
		// Past the debounce and every first call, inside the delay.
		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		r.mu.Lock()
		first := len(r.calls)
		r.mu.Unlock()
		if first != chats {
			t.Fatalf("%d chats made their first call, want %d", first, chats)
		}
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		if n := strings.Count(stacks, "scheduler.(*loop)"); n > 0 {
			t.Errorf("%d goroutine frames of channel loops while every wake waits its continue delay, want none:\n%s", n, stacks)
		}
		h.waitIdle()
		if got := h.sender.perChannel(); len(got) != chats {
			t.Fatalf("sends per chat %v, want one in each of %d", got, chats)
		}
		for ch, n := range h.sender.perChannel() {
			if n != 1 {
				t.Errorf("chat %s got %d messages, want 1", ch, n)
			}
		}
	})
}

// TestRetryWaitHoldsNoSlot: a model call that waits to retry (through
// planner.Away, as planner/openai waits out a backoff or a Retry-After)
// gives both slots back; the other chat's call runs and ends that wait.
func TestRetryWaitHoldsNoSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		retried := make(chan struct{})
		var once sync.Once
		m := newModel(func(ctx context.Context, _ int, req planner.Request) (string, error) {
			ch := strings.TrimPrefix(req.User, "airi:")
			if ch == "a" {
				// Only another chat's call ends the wait: were the slots
				// held, neither call could go on.
				if err := planner.Away(ctx, func() error {
					select {
					case <-retried:
						return nil
					case <-ctx.Done():
						return ctx.Err()
					}
				}); err != nil {
					return "", err
				}
			} else {
				once.Do(func() { close(retried) })
			}
			return fmt.Sprintf(`{"action":"send_message","channelId":%q,"content":"hi"}`, ch), nil
		})
		h := newHarness(t, scheduler.Config{Concurrency: 1, Wakes: 1, Debounce: 5 * time.Millisecond, SendUser: true}, m)
		h.start()
		deliverTo(t, h, "a")
		synctest.Wait()
		deliverTo(t, h, "b")
		h.waitIdle()
		if got := h.sender.perChannel(); got["a"] != 1 || got["b"] != 1 {
			t.Fatalf("sends per chat %v, want one each", got)
		}
	})
}

// TestTypingRequestHoldsNoSlot: a typing request still in flight when the
// answer is there is waited for without a slot, so the other chat's wake
// runs meanwhile, and the reply still follows the indicator.
func TestTypingRequestHoldsNoSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bCalled := make(chan struct{})
		var once sync.Once
		m := newModel(func(ctx context.Context, _ int, req planner.Request) (string, error) {
			ch := strings.TrimPrefix(req.User, "airi:")
			if ch == "a" {
				// Long enough for the typing indicator to be sent.
				select {
				case <-time.After(time.Second):
				case <-ctx.Done():
					return "", ctx.Err()
				}
			} else {
				once.Do(func() { close(bCalled) })
			}
			return fmt.Sprintf(`{"action":"send_message","channelId":%q,"content":"hi"}`, ch), nil
		})
		h := newHarness(t, scheduler.Config{Concurrency: 1, Wakes: 1, Debounce: 5 * time.Millisecond, SendUser: true}, m)
		typed := make(chan struct{})
		h.typing = func(ctx context.Context, id string) {
			if id != "a" {
				return
			}
			close(typed)
			// The platform answers the typing request only once the other
			// chat's model call ran.
			select {
			case <-bCalled:
			case <-ctx.Done():
			}
		}
		typeThenOther(t, h, typed)
	})
}

// TestSentTypingRequestKeepsTheSlot: a typing request the platform has
// answered by the end of the model call leaves nothing to wait for, so
// the wake keeps its slot and sends its reply before the chat queued
// behind it makes its call.
func TestSentTypingRequestKeepsTheSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var (
			h         *harness
			sentFirst = -1 // messages sent when b's call began
		)
		m := newModel(func(ctx context.Context, _ int, req planner.Request) (string, error) {
			if strings.TrimPrefix(req.User, "airi:") == "a" {
				// Long enough for the typing indicator to be sent.
				select {
				case <-time.After(time.Second):
				case <-ctx.Done():
					return "", ctx.Err()
				}
			} else {
				h.sender.mu.Lock()
				sentFirst = len(h.sender.sent)
				h.sender.mu.Unlock()
			}
			return `{"action":"send_message","content":"hi"}`, nil
		})
		h = newHarness(t, scheduler.Config{Concurrency: 1, Wakes: 1, Debounce: 5 * time.Millisecond, SendUser: true}, m)
		typed := make(chan struct{})
		h.typing = func(_ context.Context, id string) {
			if id == "a" {
				close(typed) // answered at once
			}
		}
		typeThenOther(t, h, typed)
		if sentFirst != 1 {
			t.Errorf("%d messages sent when b's call began, want a's reply: its typing request was answered, so it kept its slot", sentFirst)
		}
	})
}

// typeThenOther starts h, delivers to chat a, and once a's typing request
// went out delivers to chat b; each must be answered once.
func typeThenOther(t *testing.T, h *harness, typed <-chan struct{}) {
	t.Helper()
	h.start()
	deliverTo(t, h, "a")
	<-typed
	deliverTo(t, h, "b")
	h.waitIdle()
	if got := h.sender.perChannel(); got["a"] != 1 || got["b"] != 1 {
		t.Fatalf("sends per chat %v, want one each", got)
	}
}
