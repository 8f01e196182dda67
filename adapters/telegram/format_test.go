package telegram

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mymmrac/telego"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
)

func TestMarkdownToHTML(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "hello world", "hello world"},
		{"escapes", `a < b && c > d "q"`, `a &lt; b &amp;&amp; c &gt; d "q"`},
		{"html stays text", "<b>not bold</b>", "&lt;b&gt;not bold&lt;/b&gt;"},
		{"entity stays text", "&amp; &lt;", "&amp;amp; &amp;lt;"},
		{"bold", "a **b** c", "a <b>b</b> c"},
		{"bold underscores", "__b__", "<b>b</b>"},
		{"single star is bold", "*it*", "<b>it</b>"},
		{"italic underscore", "an _it_ word", "an <i>it</i> word"},
		{"snake case", "call my_func_name now", "call my_func_name now"},
		{"nested", "**bold _and it_**", "<b>bold </b><b><i>and it</i></b>"},
		{"bold inside italic", "_it *both*_", "<i>it </i><b><i>both</i></b>"},
		{"bare url", "see https://x.y/_a_/*b* now", "see https://x.y/_a_/*b* now"},
		{"url after word", "xhttps://a _i_", "xhttps://a <i>i</i>"},
		{"strike spoiler", "~~old~~ ||secret||", "<s>old</s> <tg-spoiler>secret</tg-spoiler>"},
		{"inline code", "run `a<b && c`", "run <code>a&lt;b &amp;&amp; c</code>"},
		{"code keeps marks", "`**x**`", "<code>**x**</code>"},
		{"double backticks", "``a ` b``", "<code>a ` b</code>"},
		{"fence", "see:\n```go\nif a < b {\n}\n```\ndone", "see:\n<pre><code class=\"language-go\">if a &lt; b {\n}</code></pre>\ndone"},
		{"fence without language", "```\nx\n```", "<pre>x</pre>"},
		{"unclosed fence", "```\nx & y", "<pre>x &amp; y</pre>"},
		{"link", "[docs](https://example.com/a?b=1&c=2)", `<a href="https://example.com/a?b=1&amp;c=2">docs</a>`},
		{"quote in url", `[x](https://e.com/"a")`, `[x](https://e.com/"a")`},
		{"bold link text", "[**go**](https://go.dev)", `<a href="https://go.dev"><b>go</b></a>`},
		{"bad link scheme", "[x](javascript:alert(1))", "[x](javascript:alert(1))"},
		{"heading", "## Title\ntext", "<b>Title</b>\ntext"},
		{"bullets", "- one\n* two\n  + three", "• one\n• two\n  • three"},
		{"lone star", "2 * 3 = 6", "2 * 3 = 6"},
		{"snake case stars", "a*b*c", "a<b>b</b>c"},
		{"unclosed bold", "**open", "**open"},
		{"space after mark", "** x**", "** x**"},
		{"escaped mark", `\*not italic\*`, "*not italic*"},
		{"emoji", "😀 **ok**", "😀 <b>ok</b>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := parseMarkdown(tt.in)
			got := f.HTML()
			if got != tt.want {
				t.Fatalf("HTML(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			visible, err := telegramtest.ParseHTML(got)
			if err != nil {
				t.Fatalf("Telegram would refuse %q: %v", got, err)
			}
			if visible != f.Plain() {
				t.Fatalf("visible %q, plain %q", visible, f.Plain())
			}
		})
	}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		limit int
		want  []string // visible text of each part
	}{
		{"fits", "short text", 20, []string{"short text"}},
		{"paragraphs", "first para.\n\nsecond para.", 20, []string{"first para.\n\n", "second para."}},
		{"line", "first line\nsecond line", 15, []string{"first line\n", "second line"}},
		{"sentence", "One two. Three four five.", 20, []string{"One two. ", "Three four five."}},
		{"words", "alpha beta gamma delta", 12, []string{"alpha beta ", "gamma delta"}},
		{"long word", "abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"surrogates", "😀😀😀", 4, []string{"😀😀", "😀"}},
		{"cjk sentence", "今天很好。明天也好。", 7, []string{"今天很好。", "明天也好。"}},
		{"early paragraph ignored", "a\n\nbcd efg hij klm", 12, []string{"a\n\nbcd efg ", "hij klm"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts := parseMarkdown(tt.in).Split(tt.limit)
			var got []string
			for _, p := range parts {
				got = append(got, p.Plain())
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("parts %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSplitKeepsMarkupBalanced(t *testing.T) {
	in := "**" + strings.TrimSpace(strings.Repeat("bold words ", 10)) + "**\n```\n" + strings.Repeat("code line\n", 10) + "```"
	parts := parseMarkdown(in).Split(40)
	if len(parts) < 4 {
		t.Fatalf("%d parts", len(parts))
	}
	for _, p := range parts {
		h := p.HTML()
		if _, err := telegramtest.ParseHTML(h); err != nil {
			t.Fatalf("part %q: %v", h, err)
		}
		if strings.Contains(p.Plain(), "bold") && !strings.HasPrefix(h, "<b>") {
			t.Fatalf("bold part lost its style: %q", h)
		}
	}
	if last := parts[len(parts)-1].HTML(); !strings.HasPrefix(last, "<pre>") {
		t.Fatalf("code part lost its block: %q", last)
	}
}

func TestCutContent(t *testing.T) {
	long := strings.Repeat("é", 10)
	got := cutContent(long, 12+len(cutMarker))
	if !strings.HasSuffix(got, cutMarker) || !utf8.ValidString(got) || len(got) > 12+len(cutMarker) {
		t.Fatalf("cut %q", got)
	}
}

// FuzzFormatSplit checks the properties a send depends on, for any model
// output and limit: Telegram accepts every part's HTML, its visible text is
// the part's text, no part is over the limit, the parts add up to the
// whole text, and a part ends inside a word only when it holds no space
// at all (a single word longer than the limit).
func FuzzFormatSplit(f *testing.F) {
	for _, s := range []string{
		"hello **world**", "a < b & c", "```go\nx := 1\n```", "[a](https://x.y) _i_ ~~s~~ ||sp||",
		"para one.\n\npara two. More words here!", "😀 emoji 😀 text", "`code` and \\*esc\\*",
		"# head\n- item\n- item two", "__*nested*__", "日本語の文。次の文。",
	} {
		f.Add(s, 7)
		f.Add(s, 30)
	}
	f.Fuzz(func(t *testing.T, in string, limit int) {
		if !utf8.ValidString(in) || limit < 2 || limit > 5000 {
			t.Skip()
		}
		doc := parseMarkdown(in)
		whole := doc.Plain()
		parts := doc.Split(limit)
		var joined strings.Builder
		for i, p := range parts {
			h := p.HTML()
			visible, err := telegramtest.ParseHTML(h)
			if err != nil {
				t.Fatalf("part %d %q refused: %v", i, h, err)
			}
			text := p.Plain()
			if visible != text {
				t.Fatalf("part %d: visible %q, text %q", i, visible, text)
			}
			if n := utf16Len(text); n > limit {
				t.Fatalf("part %d has %d units, limit %d", i, n, limit)
			}
			if text == "" {
				t.Fatalf("part %d is empty", i)
			}
			if i+1 < len(parts) {
				last, _ := utf8.DecodeLastRuneInString(text)
				next, _ := utf8.DecodeRuneInString(parts[i+1].Plain())
				if !unicode.IsSpace(last) && !unicode.IsSpace(next) && strings.IndexFunc(text, unicode.IsSpace) >= 0 &&
					!strings.ContainsAny(text, "。！？") {
					t.Fatalf("part %d %q cut inside a word before %q", i, text, parts[i+1].Plain())
				}
			}
			joined.WriteString(text)
		}
		if joined.String() != whole {
			t.Fatalf("parts add up to %q, want %q", joined.String(), whole)
		}
	})
}

func BenchmarkFormatAndSplit(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 12000 {
		sb.WriteString("Some **bold** text, a [link](https://example.com) and `code` & <angles>. ")
		sb.WriteString("Another sentence follows here!\n\n")
	}
	in := sb.String()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range parseMarkdown(in).Split(MaxMessageUTF16) {
			_ = p.HTML()
		}
	}
}

// FuzzAddressed feeds arbitrary text and entity offsets (Telegram input)
// to mention detection and content conversion: they must not panic, and
// an entity-free text mentions the bot exactly when it holds its
// @username as a word.
func FuzzAddressed(f *testing.F) {
	f.Add("hi @airi_bot", 3, 9, "mention")
	f.Add("/start@airi_bot", 0, 15, "bot_command")
	f.Add("😀 @airi_bot", 3, 9, "mention")
	f.Add("x", 5, -2, "mention")
	f.Fuzz(func(t *testing.T, text string, off, length int, typ string) {
		m := &telego.Message{Text: text, Entities: []telego.MessageEntity{{Type: typ, Offset: off, Length: length}}}
		addressed(m, 42, "airi_bot")
		_ = messageContent(m, false)
		plain := &telego.Message{Text: text}
		want := containsMention(strings.ToLower(text), "@airi_bot")
		if got := addressed(plain, 42, "airi_bot"); got != want {
			t.Fatalf("addressed(%q) = %v", text, got)
		}
	})
}
