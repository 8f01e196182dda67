package openai

import (
	"strings"
	"testing"
)

func TestSplitThink(t *testing.T) {
	tests := []struct {
		name, in        string
		reasoning, rest string
		open            bool
	}{
		{"plain", `{"action":"continue"}`, "", `{"action":"continue"}`, false},
		{"closed block", "<think>\nhm\n</think>\n{}", "hm", "\n{}", false},
		{"two blocks", "<think>a</think>x<think>b</think>y", "a\n\nb", "xy", false},
		{"thinking tag", "<thinking>deep</thinking>{}", "deep", "{}", false},
		{"upper case", "<THINK>loud</Think>{}", "loud", "{}", false},
		{"left open", "{} <think>and then", "and then", "{} ", true},
		{"only a block", "<think>x</think>", "x", "", false},
		{"closing tag only", "reasoned silently</think>\n{}", "reasoned silently", "\n{}", false},
		{"not a tag", "a < b and <thinker>", "", "a < b and <thinker>", false},
		{"empty block", "<think></think>{}", "", "{}", false},
		{"lt at end", "x <", "", "x <", false},
		{"tag at end", "x <think", "", "x <think", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, rest, open := splitThink(tt.in)
			if r != tt.reasoning || rest != tt.rest || open != tt.open {
				t.Errorf("splitThink(%q) = %q, %q, %v; want %q, %q, %v", tt.in, r, rest, open, tt.reasoning, tt.rest, tt.open)
			}
		})
	}
}

func FuzzSplitThink(f *testing.F) {
	for _, s := range []string{"", "<think>a</think>b", "<think>", "</think>", "<thinking>x</THINKING>y", "a<b<think>c</thinkingx>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, rest, _ := splitThink(s)
		// Nothing is invented: the rest is made of the input's bytes and
		// never longer than it.
		if len(rest) > len(s) {
			t.Fatalf("rest %q longer than input %q", rest, s)
		}
		if !strings.Contains(s, "<") && (rest != s || r != "") {
			t.Fatalf("text without tags changed: %q -> %q, %q", s, rest, r)
		}
		// Tags and white space are dropped, nothing is added.
		if len(r)+len(rest) > len(s) {
			t.Fatalf("split of %q gives %d+%d bytes", s, len(r), len(rest))
		}
		if strings.HasPrefix(s, "<think>") && strings.Count(s, "</think>") == 1 && strings.HasSuffix(s, "</think>") && rest != "" {
			t.Fatalf("a single block %q left rest %q", s, rest)
		}
	})
}

func BenchmarkSplitThink(b *testing.B) {
	answer := "<think>" + strings.Repeat("The user said hello, so I should greet them back. ", 40) + "</think>\n" +
		`{"action":"send_message","channelId":"console","content":"` + strings.Repeat("hi ", 100) + `"}`
	b.SetBytes(int64(len(answer)))
	for b.Loop() {
		splitThink(answer)
	}
}
