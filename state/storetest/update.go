package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/airi-go/airi/state"
)

func testUpdates(t *testing.T, s state.Store) {
	ctx := context.Background()
	steps := []struct {
		mark string // key to mark before the lookup
		key  string
		want bool
	}{
		{"", "telegram:1:10", false},
		{"telegram:1:10", "telegram:1:10", true},
		{"", "telegram:1:11", false},
		{"", "telegram:2:10", false},
		{"telegram:1:10", "telegram:1:10", true}, // marking twice is harmless
	}
	for i, st := range steps {
		if st.mark != "" {
			if err := s.MarkUpdate(ctx, st.mark); err != nil {
				t.Fatalf("step %d: MarkUpdate: %v", i, err)
			}
		}
		got, err := s.UpdateSeen(ctx, st.key)
		if err != nil || got != st.want {
			t.Errorf("step %d: UpdateSeen(%q) = %v, %v; want %v", i, st.key, got, err, st.want)
		}
	}
	if err := s.MarkUpdate(ctx, ""); err == nil {
		t.Error("MarkUpdate with an empty key: no error")
	}
}

// RunUpdateRetention checks that a handled update is forgotten after
// state.UpdateRetention; setNow moves the store's clock.
func RunUpdateRetention(t *testing.T, s state.Store, setNow func(time.Time)) {
	t.Helper()
	ctx := context.Background()
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	setNow(start)
	if err := s.MarkUpdate(ctx, "old"); err != nil {
		t.Fatal(err)
	}
	setNow(start.Add(state.UpdateRetention - time.Minute))
	if seen, err := s.UpdateSeen(ctx, "old"); err != nil || !seen {
		t.Errorf("within the retention: UpdateSeen = %v, %v; want true", seen, err)
	}
	setNow(start.Add(state.UpdateRetention + time.Minute))
	if seen, err := s.UpdateSeen(ctx, "old"); err != nil || seen {
		t.Errorf("past the retention: UpdateSeen = %v, %v; want false", seen, err)
	}
	// Marking another update drops the old record; marking the old key
	// again records it anew.
	if err := s.MarkUpdate(ctx, "new"); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkUpdate(ctx, "old"); err != nil {
		t.Fatal(err)
	}
	if seen, err := s.UpdateSeen(ctx, "old"); err != nil || !seen {
		t.Errorf("marked again: UpdateSeen = %v, %v; want true", seen, err)
	}
}
