package storetest

import (
	"context"
	"sync"
	"testing"

	"github.com/airi-go/airi/state"
)

func testTokenUsage(t *testing.T, s state.Store) {
	tc := s
	ctx := context.Background()
	steps := []struct {
		day, scope string
		add        int64
		want       int64
	}{
		{"2026-03-14", "*", 0, 0},
		{"2026-03-14", "*", 1200, 1200},
		{"2026-03-14", "-100", 1200, 1200},
		{"2026-03-14", "*", 300, 1500},
		{"2026-03-15", "*", 0, 0},
		{"2026-03-15", "*", 7, 7},
		{"2026-03-14", "-100", 0, 1200},
	}
	for i, st := range steps {
		if st.add > 0 {
			got, err := tc.AddTokens(ctx, st.day, st.scope, st.add)
			if err != nil || got != st.want {
				t.Errorf("step %d: AddTokens(%s, %q, %d) = %d, %v; want %d", i, st.day, st.scope, st.add, got, err, st.want)
			}
		}
		got, err := tc.Tokens(ctx, st.day, st.scope)
		if err != nil || got != st.want {
			t.Errorf("step %d: Tokens(%s, %q) = %d, %v; want %d", i, st.day, st.scope, got, err, st.want)
		}
	}
}

// testTokenUsageConcurrent adds to one count from many goroutines at once,
// as replicas sharing one budget do: no addition is lost, and each caller
// sees a distinct running total.
func testTokenUsageConcurrent(t *testing.T, s state.Store) {
	tc := s
	ctx := context.Background()
	const workers, each = 8, 10
	totals := make(chan int64, workers*each)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				got, err := tc.AddTokens(ctx, "2026-03-14", "*", 5)
				if err != nil {
					t.Errorf("AddTokens: %v", err)
					return
				}
				totals <- got
			}
		})
	}
	wg.Wait()
	close(totals)
	seen := map[int64]bool{}
	for n := range totals {
		if seen[n] {
			t.Errorf("two additions both returned the total %d", n)
		}
		seen[n] = true
	}
	if got, err := tc.Tokens(ctx, "2026-03-14", "*"); err != nil || got != workers*each*5 {
		t.Errorf("Tokens after %d concurrent additions of 5 = %d, %v; want %d", workers*each, got, err, workers*each*5)
	}
}
