package budget_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/scheduler/budget"
	"github.com/airi-go/airi/state/sqlite"
)

func TestTrackerLevelsAdmitAndRestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "b.db")
	st, err := sqlite.Open(ctx, path, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	tz, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	cfg := budget.Config{ChannelDaily: 1000, Daily: 10000, Location: tz}
	used := map[string]int64{}
	tr := budget.New(cfg, st, zaptest.NewLogger(t), func(scope string, u, _ int64) { used[scope] = u })
	// 23:00 in Tokyo; the day rolls over at 15:00 UTC.
	now := time.Date(2026, 3, 14, 14, 0, 0, 0, time.UTC)

	steps := []struct {
		tokens int64
		want   budget.Level // after the call
	}{
		{500, budget.Normal},
		{300, budget.Fallback},
		{150, budget.Fallback},
		{400, budget.Exhausted}, // admitted at 950 of 1000: one call past the budget
	}
	for i, s := range steps {
		release, ok, err := tr.Admit(ctx, "c1", now, 0)
		if err != nil || !ok {
			t.Fatalf("step %d: Admit = %v, %v; want admitted", i, ok, err)
		}
		release(s.tokens)
		if lvl, err := tr.Level(ctx, "c1", now); err != nil || lvl != s.want {
			t.Errorf("step %d: Level = %v, %v; want %v", i, lvl, err, s.want)
		}
	}
	if _, ok, _ := tr.Admit(ctx, "c1", now, 0); ok {
		t.Error("a call is admitted past the channel budget")
	}
	if _, ok, _ := tr.Admit(ctx, "c2", now, 0); !ok {
		t.Error("another channel is refused")
	}
	if used["c1"] != 1350 || used[budget.Global] != 1350 {
		t.Errorf("use reported: %v", used)
	}

	// A restart keeps the day's count.
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = sqlite.Open(ctx, path, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tr = budget.New(cfg, st, zaptest.NewLogger(t), nil)
	if lvl, _ := tr.Level(ctx, "c1", now); lvl != budget.Exhausted {
		t.Errorf("after a restart: level %v, want exhausted", lvl)
	}
	// The next day in Tokyo starts at 15:00 UTC.
	if lvl, _ := tr.Level(ctx, "c1", now.Add(59*time.Minute)); lvl != budget.Exhausted {
		t.Errorf("before midnight in Tokyo: level %v, want exhausted", lvl)
	}
	if lvl, _ := tr.Level(ctx, "c1", now.Add(61*time.Minute)); lvl != budget.Normal {
		t.Errorf("after midnight in Tokyo: level %v, want normal", lvl)
	}
}

// TestAdmitReservesTheEstimate checks that a call's estimate is counted
// from admission on: a second call while the first is in flight sees
// it, at most one call's reservation goes past the budget, and release
// settles the count to what the call cost.
func TestAdmitReservesTheEstimate(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "b.db"), zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tr := budget.New(budget.Config{Daily: 100}, st, zaptest.NewLogger(t), nil)
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	day := tr.Day(now)
	release, _, _ := tr.Admit(ctx, "a", now, 0)
	release(85)
	first, ok, err := tr.Admit(ctx, "a", now, 20)
	if !ok || err != nil {
		t.Fatalf("Admit at 85 of 100 = %v, %v", ok, err)
	}
	if n, _ := st.Tokens(ctx, day, budget.Global); n != 105 {
		t.Errorf("count while the call runs = %d; want 105 (85 and the reservation)", n)
	}
	if _, ok, err := tr.Admit(ctx, "b", now, 20); ok || err != nil {
		t.Errorf("a second call was admitted past the budget while the first runs: %v, %v", ok, err)
	}
	if n, _ := st.Tokens(ctx, day, budget.Global); n != 105 {
		t.Errorf("count after a refusal = %d; want the refused reservation given back (105)", n)
	}
	first(12)
	if n, _ := st.Tokens(ctx, day, budget.Global); n != 97 {
		t.Errorf("count after release = %d; want 97 (the call cost 12)", n)
	}
	if _, ok, _ := tr.Admit(ctx, "b", now, 20); !ok {
		t.Error("a call under the budget after the settle is refused")
	}
}

// TestConcurrentCallsOfReplicasStayWithinOneCall races calls of two
// trackers on one database, as two replicas do: what they reserve and
// spend stays within the budget plus one call.
func TestConcurrentCallsOfReplicasStayWithinOneCall(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "b.db")
	st, err := sqlite.Open(ctx, path, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const limit, each = 8000, 700
	cfg := budget.Config{Daily: limit}
	replicas := []*budget.Tracker{budget.New(cfg, st, zaptest.NewLogger(t), nil), budget.New(cfg, st, zaptest.NewLogger(t), nil)}
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	var (
		mu       sync.Mutex
		admitted int
		wg       sync.WaitGroup
	)
	for i := range 40 {
		wg.Go(func() {
			release, ok, err := replicas[i%2].Admit(ctx, fmt.Sprint("c", i%20), now, each)
			if err != nil {
				t.Error(err)
				return
			}
			if ok {
				mu.Lock()
				admitted++
				mu.Unlock()
				release(each)
			}
		})
	}
	wg.Wait()
	if admitted*each > limit+each {
		t.Errorf("%d calls of %d tokens admitted against a budget of %d: more than one past it", admitted, each, limit)
	}
	if admitted*each < limit {
		t.Errorf("only %d calls of %d admitted against a budget of %d", admitted, each, limit)
	}
	if n, _ := st.Tokens(ctx, replicas[0].Day(now), budget.Global); n != int64(admitted*each) {
		t.Errorf("count %d; want what the admitted calls spent, %d", n, admitted*each)
	}
}
