package storetest

import (
	"context"
	"testing"

	"github.com/airi-go/airi/state"
)

func testCursor(t *testing.T, s state.Store) {
	ctx := context.Background()
	steps := []struct {
		set, key, value string // set: key to set to value before reading key
		want            string
	}{
		{"", "satori", "", ""},
		{"satori", "satori", "41", "41"},
		{"satori", "satori", "42", "42"},
		{"telegram", "telegram", "1000001", "1000001"},
		{"", "satori", "", "42"},
		{"telegram", "telegram", "", ""},
	}
	for i, st := range steps {
		if st.set != "" {
			if err := s.SetCursor(ctx, st.set, st.value); err != nil {
				t.Fatalf("step %d: SetCursor: %v", i, err)
			}
		}
		got, err := s.Cursor(ctx, st.key)
		if err != nil || got != st.want {
			t.Errorf("step %d: Cursor(%q) = %q, %v; want %q", i, st.key, got, err, st.want)
		}
	}
}
