package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/airi-go/airi/planner"
)

// TestBenchSampleCountsFreeSlots pins what a sample counts: the slots in
// use, and as many more as there are channels past their debounce with no
// call in flight, up to the free slots (where the count stops).
func TestBenchSampleCountsFreeSlots(t *testing.T) {
	now := time.Now()
	r := newRecorder(time.Second, 4)
	for i := range 6 {
		r.stored(fmt.Sprint("due", i), "m", now.Add(-2*time.Second))
	}
	r.stored("fresh", "m", now)                       // still within its debounce
	r.callStarted(planner.Request{ChannelID: "due0"}) // in flight, its message not shown
	r.sample(now)
	if r.busy != 1 || r.offered != 4 {
		t.Errorf("five channels due and one call for four slots: busy %d, offered %d; want 1 and 4", r.busy, r.offered)
	}
	r2 := newRecorder(time.Second, 4)
	r2.stored("fresh", "m", now)
	r2.stored("due", "m", now.Add(-2*time.Second))
	r2.sample(now)
	if r2.busy != 0 || r2.offered != 1 {
		t.Errorf("one channel due, one within its debounce: busy %d, offered %d; want 0 and 1", r2.busy, r2.offered)
	}
}
