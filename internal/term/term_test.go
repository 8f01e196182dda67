package term

import (
	"testing"
	"unicode"
)

func TestPrintable(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"plain text", "héllo\tworld\nbye", "héllo\tworld\nbye"},
		{"colour", "\x1b[31mred\x1b[0m", "red"},
		{"window title", "\x1b]0;owned\atext", "text"},
		{"8-bit CSI", "\u009b1;2mx", "x"},
		{"carriage return", "a\rb\r\nc", "a\nb\nc"},
		{"bell and backspace", "a\a\bb", "ab"},
		{"invalid UTF-8", "a\xffb", "a\uFFFDb"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Printable(tt.in); got != tt.want {
				t.Errorf("Printable(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzPrintable(f *testing.F) {
	for _, s := range []string{"\x1b[31mx", "\x1b]0;t\a", "a\rb", "\u009b1;2m", "ok"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Printable(s)
		for _, r := range got {
			if r != '\n' && r != '\t' && unicode.IsControl(r) {
				t.Fatalf("Printable(%q) = %q keeps control %U", s, got, r)
			}
		}
	})
}
