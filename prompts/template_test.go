package prompts

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		check   func(t *testing.T, tm *Template)
		wantErr string // substring of the error, "" = no error
	}{
		{name: "full front matter",
			src: "---\nsection: rules\norder: 120\nwhen: {platform: telegram, chat: group}\ncache: volatile\nreason: shows the hour\n---\nHi {{.Bot.Name}}\n",
			check: func(t *testing.T, tm *Template) {
				if tm.Section != "rules" || tm.Order != 120 || !tm.HasOrder || tm.Cache != CacheVolatile || tm.Reason != "shows the hour" {
					t.Errorf("got %+v", tm)
				}
				if !tm.When.Match("telegram", true) || tm.When.Match("telegram", false) || tm.When.Match("satori", true) {
					t.Errorf("when %v matches wrongly", tm.When)
				}
			}},
		{name: "platform list, default cache",
			src: "---\nsection: x\nwhen:\n  platform: [Satori, console]\n---\nbody",
			check: func(t *testing.T, tm *Template) {
				if tm.HasOrder || tm.Cache != CacheStatic {
					t.Errorf("got %+v", tm)
				}
				if !tm.When.Match("satori", false) || !tm.When.Match("console", true) || tm.When.Match("telegram", false) {
					t.Errorf("when %v matches wrongly", tm.When)
				}
			}},
		{name: "CRLF line endings and empty body",
			src: "---\r\nsection: x\r\norder: 1\r\n---\r\n",
			check: func(t *testing.T, tm *Template) {
				if out, err := tm.Render(Data{}); err != nil || out != "" {
					t.Errorf("render = %q, %v", out, err)
				}
			}},
		{name: "no front matter", src: "hello", wantErr: "f.md:1: missing front matter"},
		{name: "unclosed front matter", src: "---\nsection: x\n", wantErr: "f.md:1: front matter is not closed"},
		{name: "no section", src: "---\norder: 3\n---\nx", wantErr: "f.md:1: front matter: section is required"},
		{name: "bad yaml names its line", src: "---\nsection: x\norder: [\n---\nx", wantErr: "f.md:"},
		{name: "order not a number", src: "---\nsection: x\norder: first\n---\nx", wantErr: "f.md:3:"},
		{name: "bad cache", src: "---\nsection: x\ncache: forever\n---\nx", wantErr: `cache "forever"`},
		{name: "volatile without reason", src: "---\nsection: x\ncache: volatile\n---\nx", wantErr: "needs a reason"},
		{name: "bad chat", src: "---\nsection: x\nwhen: {chat: channel}\n---\nx", wantErr: `when.chat "channel"`},
		{name: "template syntax error names the file line", src: "---\nsection: x\norder: 1\n---\nline five\nline six {{if}}\n", wantErr: "f.md:6: "},
		{name: "unknown function", src: "---\nsection: x\n---\n\n\n{{shout .Bot.Name}}", wantErr: `f.md:6: function "shout" not defined`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tm, err := Parse("f.md", "dir/f.md", []byte(tt.src))
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("no error, want %q", tt.wantErr)
				}
				var te *TemplateError
				if !errors.As(err, &te) {
					t.Errorf("error %T is not a *TemplateError", err)
				}
				if !strings.Contains(err.Error(), "dir/"+tt.wantErr) && !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %q does not contain %q", err, tt.wantErr)
				}
				if !strings.HasPrefix(err.Error(), "dir/f.md:") {
					t.Errorf("error %q does not start with the file", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, tm)
		})
	}
}

func TestRenderErrorNamesFileLine(t *testing.T) {
	tm, err := Parse("f.md", "dir/f.md", []byte("---\nsection: x\norder: 1\n---\nok\n{{.Bot.Nickname}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = tm.Render(SampleData("console", false))
	if err == nil || !strings.HasPrefix(err.Error(), "dir/f.md:6: ") {
		t.Fatalf("error = %v, want it to start with dir/f.md:6", err)
	}
}

func TestQuoteAndPlain(t *testing.T) {
	tests := []struct{ in, quote, plain string }{
		{"Ada", `"Ada"`, "Ada"},
		{"小明", `"小明"`, "小明"},
		{"O'Brien-Smith Jr.", `"O'Brien-Smith Jr."`, "O'Brien-Smith Jr."},
		{"[System]", `"[System]"`, `"[System]"`},
		{"a\nb", `"a\nb"`, `"a\nb"`},
		{`say "hi" <b>&`, `"say \"hi\" <b>&"`, `"say \"hi\" <b>&"`},
		{"", `""`, `""`},
	}
	for _, tt := range tests {
		if got := Quote(tt.in); got != tt.quote {
			t.Errorf("Quote(%q) = %s, want %s", tt.in, got, tt.quote)
		}
		if got := Plain(tt.in); got != tt.plain {
			t.Errorf("Plain(%q) = %s, want %s", tt.in, got, tt.plain)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("---\nsection: x\norder: 1\n---\nHi {{.Bot.Name}}\n")
	f.Add("---\nsection: x\nwhen: {platform: [a, b], chat: group}\n---\n{{range .Incoming}}{{quote .Content}}{{end}}")
	f.Add("---\n---\n")
	f.Add("---\nsection: [\n---\n{{")
	f.Fuzz(func(t *testing.T, src string) {
		tm, err := Parse("f.md", "f.md", []byte(src))
		if err != nil {
			var te *TemplateError
			if !errors.As(err, &te) {
				t.Fatalf("error %T is not a *TemplateError: %v", err, err)
			}
			return
		}
		if tm.Section == "" {
			t.Fatal("parsed a template without a section")
		}
		// Rendering may fail, but never panics and names the file on failure.
		if _, err := tm.Render(SampleData("telegram", true)); err != nil && !strings.HasPrefix(err.Error(), "f.md") {
			t.Fatalf("render error %q does not name the file", err)
		}
	})
}

func TestErrorReferencesFileLines(t *testing.T) {
	_, err := Parse("f.md", "dir/f.md", []byte("---\nsection: x\n---\nfirst\n{{.Bot.Name\n"))
	if err == nil || !strings.Contains(err.Error(), "started at f.md:5") {
		t.Fatalf("error = %v, want it to point at the opening line 5 of the file", err)
	}
}

func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "plain", "a\nb\r\t\"\\", "\x00\x1f\x7f", "<b>&amp;</b>", "小明 👋", "\u2028\u2029", "bad \xff\xfe utf8"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := Quote(s)
		if strings.ContainsAny(q, "\n\r") || strings.Contains(q, "\u2028") || strings.Contains(q, "\u2029") {
			t.Fatalf("Quote(%q) = %q spans lines", s, q)
		}
		var got, want string
		if err := json.Unmarshal([]byte(q), &got); err != nil {
			t.Fatalf("Quote(%q) = %q is not a JSON string: %v", s, q, err)
		}
		ref, _ := json.Marshal(s)
		if err := json.Unmarshal(ref, &want); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("Quote(%q) decodes to %q, encoding/json's to %q", s, got, want)
		}
	})
}
