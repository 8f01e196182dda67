package satori

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/airi-go/airi/state"
)

func TestParseContent(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		text     string
		quote    string
		mentions []string
		media    []state.Media
	}{
		{name: "plain", in: "hello world", text: "hello world"},
		{name: "entities", in: "a &lt;b&gt; &amp; &quot;c&quot; &#39;d&#39; &#x4F60;&#22909;", text: `a <b> & "c" 'd' 你好`},
		{name: "unknown entity kept", in: "AT&T &bogus; &", text: "AT&T &bogus; &"},
		{name: "at with name", in: `<at id="42" name="Alice"/> hi`, text: "@Alice hi", mentions: []string{"42"}},
		{name: "at id only", in: `hi <at id="42"/>`, text: "hi @42", mentions: []string{"42"}},
		{name: "at all", in: `<at type="all"/> listen`, text: "@all listen"},
		{name: "at with children", in: `<at id="7">ignored</at>!`, text: "@7!", mentions: []string{"7"}},
		{name: "at single quotes unquoted", in: `<at id='1' name=Bob/>x`, text: "@Bobx", mentions: []string{"1"}},
		{name: "quote self closing", in: `<quote id="m9"/>reply`, text: "reply", quote: "m9"},
		{name: "quote with content", in: `<quote id="m9"><author id="u"/>old text</quote>new`, text: "new", quote: "m9"},
		{name: "media", in: `look <img src="a.png"/><audio src="x"/><video src="y"/><file src="z"/><face id="1"/>`, text: "look [face]",
			media: []state.Media{{Kind: state.MediaPhoto, FileID: "a.png", UniqueID: "a.png"}, {Kind: state.MediaAudio, FileID: "x", UniqueID: "x"},
				{Kind: state.MediaVideo, FileID: "y", UniqueID: "y"}, {Kind: state.MediaDocument, FileID: "z", UniqueID: "z"}}},
		{name: "html style img", in: `<img src="a.png">after`, text: "after",
			media: []state.Media{{Kind: state.MediaPhoto, FileID: "a.png", UniqueID: "a.png"}}},
		{name: "media attributes", in: `<image src="https://h/c.png" width="640" height="480"/><file src="https://h/r.pdf" title="report.pdf"/>` +
			`<audio src="s" name="song.mp3" duration="61"/><video src="v" poster="p.jpg" duration="-3"/> see`, text: "see",
			media: []state.Media{{Kind: state.MediaPhoto, FileID: "https://h/c.png", UniqueID: "https://h/c.png", Width: 640, Height: 480},
				{Kind: state.MediaDocument, FileID: "https://h/r.pdf", UniqueID: "https://h/r.pdf", Name: "report.pdf"},
				{Kind: state.MediaAudio, FileID: "s", UniqueID: "s", Name: "song.mp3", Duration: 61},
				{Kind: state.MediaVideo, FileID: "v", UniqueID: "v", Thumb: "p.jpg", ThumbUnique: "p.jpg"}}},
		{name: "media without src", in: `<img/>hi <file src=" "/>`, text: "[image]hi [file]"},
		{name: "src too long", in: `<img src="data:image/png;base64,` + strings.Repeat("A", maxSrcBytes) + `"/>x`, text: "[image]x"},
		{name: "media in a quote", in: `<quote id="q"><img src="old.png"/></quote>new`, text: "new", quote: "q"},
		{name: "too many media", in: strings.Repeat(`<img src="i"/>`, state.MaxMediaPerMessage+1), text: "[image]",
			media: slices.Repeat([]state.Media{{Kind: state.MediaPhoto, FileID: "i", UniqueID: "i"}}, state.MaxMediaPerMessage)},
		{name: "br and p", in: `<p>one</p><p>two</p>three<br/>four`, text: "one\ntwo\nthree\nfour"},
		{name: "unknown element keeps text", in: `<b>bold</b> <i>it</i> <custom x="1">c</custom>`, text: "bold it c"},
		{name: "sharp", in: `see <sharp id="c1" name="general"/>`, text: "see #general"},
		{name: "link", in: `<a href="https://x.y">site</a> <a href="https://z"/>`, text: "site https://z"},
		{name: "stray lt", in: `1 < 2 and 3 <= 4`, text: "1 < 2 and 3 <= 4"},
		{name: "unclosed tag", in: `hi <at id="1`, text: `hi <at id="1`},
		{name: "unmatched end", in: `a</b>c`, text: "ac"},
		{name: "unterminated element", in: `<b>bold forever`, text: "bold forever"},
		{name: "attribute entities", in: `<at id="1" name="A&amp;B"/>`, text: "@A&B", mentions: []string{"1"}},
		{name: "uppercase tags", in: `<AT ID="3" NAME="Z"/><BR/>x`, text: "@Z\nx", mentions: []string{"3"}},
		{name: "empty", in: "", text: ""},
		{name: "lone amp and lt", in: "&<", text: "&<"},
		{name: "message element", in: `<message>a</message><message>b</message>`, text: "a\nb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseContent(tt.in)
			if got.Text != tt.text {
				t.Errorf("text = %q, want %q", got.Text, tt.text)
			}
			if got.QuoteID != tt.quote {
				t.Errorf("quote = %q, want %q", got.QuoteID, tt.quote)
			}
			if !slices.Equal(got.MentionIDs, tt.mentions) {
				t.Errorf("mentions = %q, want %q", got.MentionIDs, tt.mentions)
			}
			if !reflect.DeepEqual(got.Media, tt.media) {
				t.Errorf("media = %+v, want %+v", got.Media, tt.media)
			}
		})
	}
}

func TestEncodeOutgoing(t *testing.T) {
	tests := []struct {
		name, text, reply, want string
	}{
		{"plain", "hi", "", "hi"},
		{"escaped", `a<b>&"c"`, "", "a&lt;b&gt;&amp;&quot;c&quot;"},
		{"markup is data", `<at type="all"/>`, "", "&lt;at type=&quot;all&quot;/&gt;"},
		{"reply", "ok", "m1", `<quote id="m1"/>ok`},
		{"reply id escaped", "ok", `x"y`, `<quote id="x&quot;y"/>ok`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EncodeOutgoing(tt.text, tt.reply); got != tt.want {
				t.Errorf("EncodeOutgoing(%q, %q) = %q, want %q", tt.text, tt.reply, got, tt.want)
			}
		})
	}
}

// An escaped text reads back as itself.
func TestEscapeRoundTrip(t *testing.T) {
	for _, s := range []string{"plain", `a<b>&"c"'`, "<at id=\"1\"/>", "&amp; stays", "x\ny"} {
		if got := ParseContent(Escape(s)).Text; got != s {
			t.Errorf("round trip of %q = %q", s, got)
		}
	}
}

func FuzzParseContent(f *testing.F) {
	for _, s := range []string{
		"hello", `<at id="1" name="A"/>x`, `<quote id="q"><b>t</b></quote>y`,
		`<img src="a">`, "&#x1F600;&#0;&#99999999;", `<p><p></b>`, `<a href='x`, "<", "</", "<a/", `<x y=>`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := ParseContent(s)
		if utf8.ValidString(s) && !utf8.ValidString(c.Text) {
			t.Fatalf("valid input %q gave invalid text %q", s, c.Text)
		}
		if !strings.ContainsAny(s, "<&") && c.Text != strings.TrimRight(s, "\n") {
			t.Fatalf("text without markup changed: %q -> %q", s, c.Text)
		}
		if got := ParseContent(Escape(s)).Text; got != strings.TrimRight(s, "\n") {
			t.Fatalf("escaped %q reads back as %q", s, got)
		}
	})
}

func BenchmarkParseContent(b *testing.B) {
	in := strings.Repeat(`<at id="42" name="Alice"/> hello &amp; welcome <img src="https://x/y.png"/> to the <b>group</b><br/>`, 20)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		ParseContent(in)
	}
}

// Hostile markup (deep unclosed nesting, unmatched end tags, runs of '&')
// must parse in time linear in its size.
func BenchmarkParseContentHostile(b *testing.B) {
	for name, in := range map[string]string{
		"unclosed-at": strings.Repeat(`<at id="1">`, 5000),
		"unmatched":   strings.Repeat("<b>", 5000) + strings.Repeat("</c>", 5000),
		"ampersands":  strings.Repeat("&", 50000),
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				ParseContent(in)
			}
		})
	}
}
