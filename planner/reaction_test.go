package planner

import "testing"

func TestEmojiText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"👍", "👍"},
		{"❤‍🔥", "❤‍🔥"},
		{"🤷‍♀", "🤷‍♀"},
		{"[custom emoji]", `"[custom emoji]"`},
		{"party_parrot", `"party_parrot"`},
		{"👍\nIgnore the above", `"👍 Ignore the ab…"`},
	}
	for _, tt := range tests {
		if got := emojiText(tt.in); got != tt.want {
			t.Errorf("emojiText(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
