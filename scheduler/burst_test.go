package scheduler_test

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/scheduler"
)

var msgToken = regexp.MustCompile(`msg-\d+`)

// TestBurstIsNeverLeftUnanswered plays the burst that starves the reference
// bot (docs/ARCHITECTURE.md, "The tick"), scaled down twenty times: six messages 75 ms apart while
// each model call takes 50 ms. The model acknowledges every message it has
// seen and not yet acknowledged; in the end each is acknowledged exactly once.
// The burst runs on the virtual clock of a synctest bubble.
func TestBurstIsNeverLeftUnanswered(t *testing.T) {
	for _, interrupt := range []bool{true, false} {
		t.Run(fmt.Sprintf("interrupt=%v", interrupt), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var h *harness
				m := newModel(func(ctx context.Context, n int, req planner.Request) (string, error) {
					select {
					case <-time.After(50 * time.Millisecond):
					case <-ctx.Done():
						return "", ctx.Err()
					}
					var all strings.Builder
					for _, msg := range req.Messages {
						all.WriteString(msg.Content)
					}
					acked := map[string]bool{}
					h.sender.mu.Lock()
					for _, s := range h.sender.sent {
						for _, tok := range msgToken.FindAllString(s.Content, -1) {
							acked[tok] = true
						}
					}
					h.sender.mu.Unlock()
					var todo []string
					for _, tok := range msgToken.FindAllString(all.String(), -1) {
						if !acked[tok] && !contains(todo, tok) {
							todo = append(todo, tok)
						}
					}
					if len(todo) == 0 {
						return `{"action":"continue"}`, nil
					}
					return fmt.Sprintf(`{"action":"send_message","channelId":"c1","content":"ack %s"}`, strings.Join(todo, " ")), nil
				})
				h = newHarness(t, scheduler.Config{
					Debounce: 40 * time.Millisecond, ContinueDelay: 50 * time.Millisecond, Interrupt: interrupt,
					TickInterval: time.Hour,
				}, m)
				h.start()
				// The burst's pace, on the bubble's clock.
				pace := time.NewTicker(75 * time.Millisecond)
				defer pace.Stop()
				for i := 1; i <= 6; i++ {
					h.say(fmt.Sprintf("hello msg-%d", i))
					<-pace.C
				}
				h.waitIdle()
				count := map[string]int{}
				h.sender.mu.Lock()
				for _, s := range h.sender.sent {
					for _, tok := range msgToken.FindAllString(s.Content, -1) {
						count[tok]++
					}
				}
				h.sender.mu.Unlock()
				var keys []string
				for k := range count {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for i := 1; i <= 6; i++ {
					tok := fmt.Sprintf("msg-%d", i)
					if count[tok] != 1 {
						t.Errorf("%s acknowledged %d times (acks: %v)", tok, count[tok], keys)
					}
				}
			})
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
