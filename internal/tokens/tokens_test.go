package tokens

import (
	"fmt"
	"os"
	"runtime"
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

func TestCountAllocatesNothing(t *testing.T) {
	c := New()
	text := "Hey Juni, it's 23:40 — you on shift tonight? 你好世界 Привет 😀\r\n  done.\n"
	if n := testing.AllocsPerRun(100, func() { c.Count(text) }); n != 0 {
		t.Errorf("Count allocates %v times, want 0", n)
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
	for _, bc := range []struct{ name, text string }{
		{"long", strings.Repeat("Hello there, how are you doing today? 你好世界 ", 100)},
		{"short", "hey juni, you on shift tonight?"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			b.ReportAllocs()
			for b.Loop() {
				c.Count(bc.text)
			}
		})
	}
}

// BenchmarkNew reports what a counter costs once created and used: the
// heap it keeps and the resident memory it adds. The first counter of a
// process is the one that costs, so run it alone and once:
//
//	go test -run '^$' -bench '^BenchmarkNew$' -benchtime 1x ./internal/tokens
func BenchmarkNew(b *testing.B) {
	heap0, rss0 := memoryInUse(b)
	var c *Counter
	for b.Loop() {
		c = New()
	}
	for _, s := range tricky {
		c.Count(s)
	}
	heap1, rss1 := memoryInUse(b)
	runtime.KeepAlive(c)
	b.ReportMetric(float64(heap1-heap0)/(1<<20), "heap-MB")
	b.ReportMetric(float64(rss1-rss0)/(1<<20), "rss-MB")
}

// memoryInUse returns the live heap after a collection and the resident
// set size of the process, in bytes.
func memoryInUse(b *testing.B) (heap, rss int64) {
	b.Helper()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	statm, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		b.Skipf("resident set size unknown here: %v", err)
	}
	var size, resident int64
	if _, err := fmt.Sscan(string(statm), &size, &resident); err != nil {
		b.Fatalf("read /proc/self/statm: %v", err)
	}
	return int64(ms.HeapAlloc), resident * int64(os.Getpagesize())
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
