package tokens

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
	"github.com/tiktoken-go/tokenizer/codec"
)

// reference is the counter Count must agree with: tiktoken-go's o200k,
// with invalid UTF-8 replaced.
func reference(t testing.TB) func(string) int {
	t.Helper()
	c := codec.NewO200kBase()
	c.SetErrorMode(tokenizer.ErrorModeReplace)
	return func(s string) int {
		n, err := c.Count(s)
		if err != nil {
			t.Fatalf("reference Count(%q): %v", s, err)
		}
		return n
	}
}

// tricky are texts on the edges of the pre-tokenizer pattern and of
// byte-pair merging.
var tricky = []string{
	"", " ", "  ", "\t", "\n", "\r\n", "\r\n\r\n", "\n\n\n", " \n", "\n ", "a\n\n b",
	"  \n  \n  x", " \t\n\t x", "x  \t ", "x\t\t", "word   ", "   word", "\t word", " \t word",
	"hello", " hello", "Hello", "HELLO", "HELLO world", "helloWORLD", "HelloWorld", "hELLO",
	"it's", "IT'S", "it'S", "we're", "WE'RE", "they've", "I'm", "you'll", "YOU'LL", "you'Ll", "he'd",
	"'s", "'t", "'re", "' s", "x'", "x''s", "dog'ſ", "dog'ſtar", "don't'll", "rock'n'roll", "'ll'",
	"1", "12", "123", "1234", "12345", "123456", "1234567", "3.14159", "1,000,000", "v2.0.1", "١٢٣٤", "²³⁴",
	"Ⅻ", "½ cup", "a1b2c3", "x²", "2nd", "100%", "$5", "-12",
	"你好世界", "你好，世界！", "日本語のテキスト", "한국어 텍스트", "ภาษาไทย", "עברית", "العربية", "Привет, мир!",
	"ПРИВЕТ мир", "Ǆemal ǅemal ǆemal", "ŉ", "ǈ", "ʰʲ", "Ⓐ", "ﬁ",
	"e\u0301", "E\u0301", "\u0301", "\u0301a", " \u0301a", "a\u0301\u0301b", "Ａ\u0308", "नमस्ते", "क्षि",
	"😀", "😀😀😀", "👨‍👩‍👧‍👦", "🇫🇷", "a😀b", " 😀", "\u200d", "\ufeffhi", "\u00a0x", "x\u00a0", "\u3000x", "\u2028", "\u0085x",
	"!!!", " !!!", "...", "?!\n", "a/b", "--\n//\n", "a\u00adb", "<|endoftext|>", "<|endofprompt|>",
	"http://example.com/a/b?c=d&e=f", "C:\\Users\\x", "foo_bar_baz", "#include <stdio.h>", "{\"a\": [1, 2]}",
	"\x7f", "a\x7fb", "!!\x7f!!", " \x7fx", "\x00", "\x01\x02", "\x1c\x1d",
	"\xff", "\xff\xfe", "\xe4\xbd", "a\xe4\xbdb", "\xed\xa0\x80", "\xf0\x9f\x98", "\xc0\xaf", "\xef\xbf\xbd",
	strings.Repeat(" ", 200), strings.Repeat("=", 300), strings.Repeat("ab", 100), strings.Repeat("\n", 50),
	strings.Repeat("😀", 60), strings.Repeat("a ", 500), strings.Repeat("x", 129), strings.Repeat("xy", 64),
	strings.Repeat("A\u0301", 40), strings.Repeat("  \n", 20), strings.Repeat("9", 20),
}

func TestCountMatchesReference(t *testing.T) {
	ref, c := reference(t), New()
	for _, s := range tricky {
		if got, want := c.Count(s), ref(s); got != want {
			t.Errorf("Count(%q) = %d, want %d", s, got, want)
		}
	}
}

// TestCountMatchesReferenceOnCorpus compares counts on the text the
// runtime counts most: the prompt templates and the requests and events
// of the recorded sessions, whole and line by line.
func TestCountMatchesReferenceOnCorpus(t *testing.T) {
	ref, c := reference(t), New()
	var texts []string
	templates, err := filepath.Glob("../../prompts/templates/*.md")
	if err != nil || len(templates) == 0 {
		t.Fatalf("no prompt templates found: %v", err)
	}
	for _, p := range templates {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	sessions, err := filepath.Glob("../../testdata/sessions/*.jsonl")
	if err != nil || len(sessions) == 0 {
		t.Fatalf("no recorded sessions found: %v", err)
	}
	for _, p := range sessions {
		texts = append(texts, sessionTexts(t, p)...)
	}
	n := 0
	for _, text := range texts {
		for _, s := range append(strings.SplitAfter(text, "\n"), text) {
			n++
			if got, want := c.Count(s), ref(s); got != want {
				t.Errorf("Count(%.80q...) = %d, want %d", s, got, want)
			}
		}
	}
	t.Logf("%d texts compared", n)
}

// sessionTexts returns every string of a recorded session file: the file
// itself and the strings inside its JSON lines.
func sessionTexts(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var texts []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		texts = append(texts, sc.Text())
		var v any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		texts = appendStrings(texts, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return texts
}

func appendStrings(texts []string, v any) []string {
	switch v := v.(type) {
	case string:
		return append(texts, v)
	case []any:
		for _, e := range v {
			texts = appendStrings(texts, e)
		}
	case map[string]any:
		for _, e := range v {
			texts = appendStrings(texts, e)
		}
	}
	return texts
}

func FuzzCount(f *testing.F) {
	for _, s := range tricky {
		f.Add(s)
	}
	ref, c := reference(f), New()
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := c.Count(s), ref(s); got != want {
			t.Errorf("Count(%q) = %d, want %d", s, got, want)
		}
	})
}

// TestCountMatchesReferenceOnEveryCharacter puts every character of the
// first two Unicode planes (where nearly all assigned ones are) in the
// places the pattern treats differently (after a capital, before a
// lower-case letter, after a space, next to digits, punctuation and
// spaces) and compares counts block by block. TestClassOf covers the
// other planes.
func TestCountMatchesReferenceOnEveryCharacter(t *testing.T) {
	if testing.Short() {
		t.Skip("compares 130,000 characters")
	}
	ref, c := reference(t), New()
	const block = 512
	var b strings.Builder
	for lo := rune(0); lo < 0x20000; lo += block {
		b.Reset()
		for r := lo; r < lo+block; r++ {
			if !utf8.ValidRune(r) {
				continue
			}
			ch := string(r)
			b.WriteString("A" + ch + "b " + ch + "Ab" + ch + "'s " + ch + ch + "x!" + ch + " 1" + ch + "\t" + ch + "\n" + ch + "  ")
		}
		if s := b.String(); c.Count(s) != ref(s) {
			// Name the characters that differ on their own; a difference
			// only in the company of its neighbours is reported for the
			// block.
			found := false
			for r := lo; r < lo+block; r++ {
				ch := string(r)
				s := "A" + ch + "b " + ch + "Ab" + ch + "'s " + ch + ch + "x!" + ch + " 1" + ch + "\t" + ch + "\n" + ch + "  "
				if got, want := c.Count(s), ref(s); got != want {
					t.Errorf("Count(%q) = %d, want %d (U+%04X)", s, got, want, r)
					found = true
				}
			}
			if !found {
				t.Errorf("block U+%04X–U+%04X: Count %d, want %d", lo, lo+block-1, c.Count(s), ref(s))
			}
		}
	}
}

// TestClassOf checks the class of every character against the pattern's
// classes as the reference engine's generated matcher tests them.
func TestClassOf(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		letter, number := unicode.Is(unicode.L, r), unicode.Is(unicode.N, r)
		want := uint8(0)
		if unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M) {
			want |= cUpper
		}
		if unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M) {
			want |= cLower
		}
		if number {
			want |= cNumber
		}
		if unicode.IsSpace(r) {
			want |= cSpace
		}
		if r != '\r' && r != '\n' && !letter && !number && r != 0x7f {
			want |= cPrefix
		}
		if !unicode.IsSpace(r) && !letter && !number && r != 0x7f {
			want |= cPunct
		}
		if got := classOf(r); got != want {
			t.Fatalf("classOf(U+%04X) = %06b, want %06b", r, got, want)
		}
	}
}
