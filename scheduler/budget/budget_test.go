package budget_test

import (
	"context"
	"path/filepath"
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
		release, ok, err := tr.Admit(ctx, "c1", now)
		if err != nil || !ok {
			t.Fatalf("step %d: Admit = %v, %v; want admitted", i, ok, err)
		}
		release(s.tokens)
		if lvl, err := tr.Level(ctx, "c1", now); err != nil || lvl != s.want {
			t.Errorf("step %d: Level = %v, %v; want %v", i, lvl, err, s.want)
		}
	}
	if _, ok, _ := tr.Admit(ctx, "c1", now); ok {
		t.Error("a call is admitted past the channel budget")
	}
	if _, ok, _ := tr.Admit(ctx, "c2", now); !ok {
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

func TestGlobalBudgetAdmitsOneCallAtATimeNearItsLimit(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "b.db"), zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tr := budget.New(budget.Config{Daily: 100}, st, zaptest.NewLogger(t), nil)
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	release, _, _ := tr.Admit(ctx, "a", now)
	release(85)
	first, ok, err := tr.Admit(ctx, "a", now)
	if !ok || err != nil {
		t.Fatalf("Admit at 85%% = %v, %v", ok, err)
	}
	// The second call waits for the first; a cancelled wait gives up.
	waitCtx, cancel := context.WithCancel(ctx)
	cancel()
	if _, ok, err := tr.Admit(waitCtx, "b", now); ok || err == nil {
		t.Errorf("a second call was admitted while one is in flight near the limit: %v, %v", ok, err)
	}
	first(20)
	if _, ok, _ := tr.Admit(ctx, "b", now); ok {
		t.Error("admitted past the global budget")
	}
}
