package tokens

import (
	"strings"
	"testing"

	"github.com/airi-go/airi/state"
)

func TestCount(t *testing.T) {
	c := New()
	for _, tc := range []struct {
		name string
		in   string
		want int
	}{
		{"empty", "", 0},
		{"one word", "hello", 1},
		{"sentence", "hello world, how are you?", 7},
		{"invalid UTF-8 still counts", "\xff\xfe", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.Count(tc.in); got != tc.want {
				t.Errorf("Count(%q) = %d, want %d", tc.in, got, tc.want)
			}
		})
	}
}

func TestRequest(t *testing.T) {
	c := New()
	msgs := []state.ChatMessage{{Role: "system", Content: "hello"}, {Role: "user", Content: strings.Repeat("a b ", 10)}}
	want := PerRequest + c.Count("hello") + PerMessage + c.Count(msgs[1].Content) + PerMessage
	if got := c.Request(msgs); got != want {
		t.Errorf("Request = %d, want %d", got, want)
	}
}

func BenchmarkCount(b *testing.B) {
	c := New()
	s := strings.Repeat("Hello there, how are you doing today? 你好世界 ", 100)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		c.Count(s)
	}
}

func TestFit(t *testing.T) {
	c := New()
	cut := func(s string, n int) string { return string([]rune(s)[:n]) + "…" }
	long := strings.Repeat("word ", 1000)
	for _, tc := range []struct {
		name  string
		in    string
		limit int
	}{
		{"fits", "a few words", 10},
		{"cut", long, 100},
		{"cut CJK", strings.Repeat("漢字の文章", 500), 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := c.Fit(tc.in, tc.limit, cut)
			if n := c.Count(got); n > tc.limit {
				t.Errorf("Fit gave %d tokens, want at most %d", n, tc.limit)
			}
			if c.Count(tc.in) <= tc.limit {
				if got != tc.in {
					t.Errorf("Fit changed text that fits: %q", got)
				}
				return
			}
			if n := c.Count(got); n < tc.limit-3 {
				t.Errorf("Fit gave %d tokens of %d allowed: cut too much", n, tc.limit)
			}
		})
	}
}
