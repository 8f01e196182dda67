package attention

import (
	"fmt"
	"testing"
	"time"
)

// TestQuietSendersAreForgotten has a hundred people speak once in a
// group, then, two periods later, one more: only the senders of the last
// period are still tracked, and a sender forgotten is within the rate
// again as one remembered would be.
func TestQuietSendersAreForgotten(t *testing.T) {
	r := Rate{N: 3, Per: time.Minute}
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	var c Channel
	for i := range 100 {
		if !c.allowSender(r, fmt.Sprint("u", i), t0.Add(time.Duration(i)*time.Millisecond)) {
			t.Fatalf("sender u%d's first message is over the rate", i)
		}
	}
	if len(c.senders) != 100 {
		t.Fatalf("%d senders tracked within one period, want 100", len(c.senders))
	}
	later := t0.Add(2 * time.Minute)
	if !c.allowSender(r, "late", later) {
		t.Fatal("a new sender's first message is over the rate")
	}
	if len(c.senders) != 1 {
		t.Errorf("%d senders tracked two periods after the others spoke, want 1", len(c.senders))
	}
	// A flood from one sender is held to the rate, and its window holds
	// no more times than the rate counts.
	allowed := 0
	for i := range 10 {
		if c.allowSender(r, "late", later.Add(time.Duration(i)*time.Second)) {
			allowed++
		}
	}
	if allowed != r.N-1 {
		t.Errorf("%d more messages allowed within the period, want %d", allowed, r.N-1)
	}
	if w := c.senders["late"]; len(w.times) != r.N || cap(w.times) != r.N {
		t.Errorf("window of %d times (capacity %d), want %d", len(w.times), cap(w.times), r.N)
	}
	if !c.allowSender(r, "late", later.Add(time.Minute+time.Second)) {
		t.Error("a period later the sender is still over the rate")
	}
}
