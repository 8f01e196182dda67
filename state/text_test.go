package state

import (
	"strings"
	"testing"
	"unicode/utf8"
)

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

func TestTickCleanCutsAHugeAnswer(t *testing.T) {
	huge := strings.Repeat("é", MaxRawBytes) // twice the bound in bytes
	tk := Tick{Raw: huge, Reasoning: "short"}.Clean()
	if len(tk.Raw) > MaxRawBytes || !strings.HasSuffix(tk.Raw, "[cut: 131072 bytes in all]") || !utf8.ValidString(tk.Raw) {
		t.Errorf("kept %d bytes ending %q; want at most %d, valid UTF-8, with the whole length", len(tk.Raw), tk.Raw[len(tk.Raw)-30:], MaxRawBytes)
	}
	if !strings.HasPrefix(huge, strings.TrimSuffix(tk.Raw, "\n[cut: 131072 bytes in all]")) {
		t.Error("what is kept is not the start of the answer")
	}
	if tk.Reasoning != "short" {
		t.Errorf("a short reasoning became %q", tk.Reasoning)
	}
}
