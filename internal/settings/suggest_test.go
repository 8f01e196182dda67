package settings

import "testing"

func TestClosest(t *testing.T) {
	names := []string{"AIRI_HISTORY", "AIRI_HISTORY_X", "LLM_MODEL", "status", "channels", "channel", "chat"}
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"AIRI_HISTROY", "AIRI_HISTORY", true},
		{"airi_history", "AIRI_HISTORY", true},
		{"LLM_MODLE", "LLM_MODEL", true},
		{"stauts", "status", true},
		{"chanels", "channels", true},
		{"chta", "chat", true},
		{"xyzzy", "", false},
		{"AIRI_SOMETHING_ELSE", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := Closest(tt.in, names)
			if ok != tt.ok || (ok && got != tt.want) {
				t.Errorf("Closest(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"ab", "ba", 1}, {"HISTROY", "HISTORY", 1}} {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
