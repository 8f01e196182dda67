package state

import "testing"

func TestCleanText(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"clean text is kept", "héllo 👋", "héllo 👋"},
		{"NUL bytes are removed", "a\x00b\x00", "ab"},
		{"invalid UTF-8 is replaced", "a\xff\xfeb", "a\uFFFDb"},
		{"both", "\x00\xff", "\uFFFD"},
		{"empty", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := CleanText(tt.in); got != tt.want {
				t.Errorf("CleanText(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}
