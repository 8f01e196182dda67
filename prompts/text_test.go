package prompts

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	tests := []struct {
		name string
		in   string
		n    int
		want string
	}{
		{"short", "Ada", 48, "Ada"},
		{"folded", " Ada \n\t Lovelace ", 48, "Ada Lovelace"},
		{"cut", "abcdefgh", 4, "abc…"},
		{"cut runes", "дамы и господа", 5, "дамы…"},
		{"exact", "abcd", 4, "abcd"},
		{"no bound", "abcdefgh", 0, "abcdefgh"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Clip(tt.in, tt.n); got != tt.want {
				t.Errorf("Clip(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
		})
	}
	long := Clip(strings.Repeat("名", 10<<10), MaxNameRunes)
	if utf8.RuneCountInString(long) != MaxNameRunes {
		t.Errorf("a 10 KB name clips to %d runes, want %d", utf8.RuneCountInString(long), MaxNameRunes)
	}
}

func TestCut(t *testing.T) {
	tests := []struct {
		name string
		in   string
		n    int
		want string
	}{
		{"whole", "hello", 5, "hello"},
		{"cut", "hello world", 5, "hello [… 6 more characters cut]"},
		{"cut runes", "привет мир", 6, "привет [… 4 more characters cut]"},
		{"empty kept", "hello", 0, " [… 5 more characters cut]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Cut(tt.in, tt.n); got != tt.want {
				t.Errorf("Cut(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
		})
	}
}
