package replay_test

import (
	"strings"
	"testing"

	"github.com/airi-go/airi/scheduler/replay"
	"github.com/airi-go/airi/state"
)

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func TestUnified(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{name: "equal", a: "a\nb", b: "a\nb", want: ""},
		{name: "both empty", want: ""},
		{
			name: "one line changed", a: "a\nb\nc\nd\ne\nf\ng\nh", b: "a\nb\nc\nd\nE\nf\ng\nh",
			want: "--- old\n+++ new\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n",
		},
		{
			name: "appended", a: "a\nb", b: "a\nb\nc",
			want: "--- old\n+++ new\n@@ -1,2 +1,3 @@\n a\n b\n+c\n",
		},
		{
			name: "from nothing", a: "", b: "x",
			want: "--- old\n+++ new\n@@ -0,0 +1 @@\n+x\n",
		},
		{
			name: "two hunks", a: "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12", b: "one\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\ntwelve",
			want: "--- old\n+++ new\n@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+twelve\n",
		},
		{
			name: "close changes share a hunk", a: "1\n2\n3\n4\n5\n6", b: "1\nB\n3\n4\nE\n6",
			want: "--- old\n+++ new\n@@ -1,6 +1,6 @@\n 1\n-2\n+B\n 3\n 4\n-5\n+E\n 6\n",
		},
		{
			name: "deleted and inserted", a: "keep\nold one\nold two\nkeep too", b: "keep\nnew\nkeep too",
			want: "--- old\n+++ new\n@@ -1,4 +1,3 @@\n keep\n-old one\n-old two\n+new\n keep too\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := replay.Unified(lines(tc.a), lines(tc.b), "old", "new", 3); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func BenchmarkUnified(b *testing.B) {
	// A request of a few hundred lines with one line changed near the top:
	// a persona edit, the common case of airi replay --prompts.
	var a []string
	for i := 0; i < 400; i++ {
		a = append(a, strings.Repeat("line of a prompt ", 5)+string(rune('a'+i%26)))
	}
	c := append([]string(nil), a...)
	c[3] = "changed"
	c[390] = "changed too"
	b.ReportAllocs()
	for b.Loop() {
		if replay.Unified(a, c, "old", "new", 3) == "" {
			b.Fatal("no diff")
		}
	}
}

func TestRequestDiff(t *testing.T) {
	a := []state.ChatMessage{{Role: "system", Content: "persona"}, {Role: "user", Content: "state 1"}}
	b := []state.ChatMessage{{Role: "system", Content: "persona"}, {Role: "user", Content: "state 2"}}
	tests := []struct {
		name string
		a, b []state.ChatMessage
		want string
	}{
		{"equal", a, a, ""},
		{"state changed", a, b, "--- tick 1\n+++ tick 2\n@@ -1,4 +1,4 @@\n === message 1 (system)\n persona\n === message 2 (user)\n-state 1\n+state 2\n"},
		{"message added", a[:1], a, "--- tick 1\n+++ tick 2\n@@ -1,2 +1,4 @@\n === message 1 (system)\n persona\n+=== message 2 (user)\n+state 1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := replay.RequestDiff(tt.a, tt.b, "tick 1", "tick 2"); got != tt.want {
				t.Errorf("RequestDiff:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}
