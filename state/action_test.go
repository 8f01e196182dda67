package state

import "testing"

func TestTrimStart(t *testing.T) {
	heads := func(names ...string) []ActionHead {
		out := make([]ActionHead, len(names))
		for i, n := range names {
			out[i] = ActionHead{ID: int64(10 + i), Name: n}
		}
		return out
	}
	tests := []struct {
		name string
		kept []ActionHead
		want int64
	}{
		{"nothing kept", nil, 0},
		{"starts with an action", heads("send_message", "continue"), 10},
		{"starts with the end of a wake", heads("continue", "read_unread_messages", "continue"), 11},
		{"starts with several ends", heads("continue", "continue", "sleep"), 12},
		{"only ends", heads("continue", "continue"), 12},
	}
	for _, tt := range tests {
		if got := TrimStart(tt.kept); got != tt.want {
			t.Errorf("%s: TrimStart = %d, want %d", tt.name, got, tt.want)
		}
	}
}
