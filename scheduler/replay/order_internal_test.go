package replay

import (
	"testing"
	"time"

	"github.com/airi-go/airi/state"
)

// TestLateOrder places a message stored only after a tick's request was
// built after that tick, and leaves every other message where it is.
func TestLateOrder(t *testing.T) {
	now := time.Date(2026, 4, 2, 21, 0, 0, 0, time.UTC)
	event := func(text string, before time.Duration) Item {
		return Item{Event: &Event{Type: "event", Time: now.Add(-before), Sender: "you", Content: text}}
	}
	tick := func(stateText string) Item {
		tk := &Tick{Type: "tick"}
		tk.Now = now
		tk.Request = []state.ChatMessage{{Role: "system", Content: "persona"}, {Role: "user", Content: stateText}}
		return Item{Tick: tk}
	}
	order := func(items []Item) string {
		s := ""
		for _, it := range items {
			if it.Tick != nil {
				s += "T"
			} else {
				s += it.Event.Content
			}
		}
		return s
	}
	tests := []struct {
		name  string
		items []Item
		want  string
	}{
		{"stored after the request", []Item{event("a", time.Second), event("b", 100*time.Millisecond), tick("New messages:\n- \"a\"\nUnread: none.")}, "aTb"},
		{"two stored after the request", []Item{event("a", time.Second), event("b", 200*time.Millisecond), event("c", 100*time.Millisecond), tick("New messages:\n- \"a\"\nUnread: none.")}, "aTbc"},
		{"shown quoted", []Item{event(`say "hi"`, 100*time.Millisecond), tick(`New messages:\n- "say \"hi\""\nUnread: none.`)}, `say "hi"T`},
		{"held back by the budget", []Item{event("a", time.Second), event("b", 100*time.Millisecond), tick("New messages:\n- \"a\"\n1 more unread here: read them before replying.")}, "abT"},
		{"long before the tick", []Item{event("a", time.Minute), tick("No new messages here.\nUnread: none.")}, "aT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := order(lateOrder(tt.items)); got != tt.want {
				t.Errorf("order %q, want %q", got, tt.want)
			}
		})
	}
}
