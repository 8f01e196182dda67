package storetest

import (
	"context"
	"testing"

	"github.com/airi-go/airi/state"
)

// tokenCounter is the optional ability of an engine to keep the token
// use of the daily budgets (scheduler/budget's Store).
type tokenCounter interface {
	AddTokens(ctx context.Context, day, scope string, n int64) (int64, error)
	Tokens(ctx context.Context, day, scope string) (int64, error)
}

func testTokenUsage(t *testing.T, s state.Store) {
	tc, ok := s.(tokenCounter)
	if !ok {
		t.Logf("%T keeps no token use: budgets cannot run on it", s)
		return
	}
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
