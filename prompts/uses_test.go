package prompts

import (
	"testing"
	"time"

	"go.uber.org/zap/zaptest"
)

func TestUses(t *testing.T) {
	channel := FieldChannelID | FieldChannelTitle | FieldChannelGroup | FieldChannelMembers
	tests := []struct {
		name, body string
		want       Fields
	}{
		{"text only", "# Rules\nBe kind.", 0},
		{"field", "You are {{.Bot.Name}}.", FieldBotName},
		{"condition", `{{if eq .Attention "ambient"}}a{{else if .Channel.Group}}b{{end}}`, FieldAttention | FieldChannelGroup},
		{"function argument", "{{quote .Channel.Title}} {{len .Channel.Members}}", FieldChannelTitle | FieldChannelMembers},
		{"range body reads the element", "{{range .Memory}}{{.Text}}{{end}}", FieldMemory},
		{"range body reads the data", "{{range .Memory}}{{$.Platform}}{{end}}", FieldMemory | FieldPlatform},
		{"range else sees the data", "{{range .Incoming}}{{.Content}}{{else}}{{.Notice}}{{end}}", FieldIncoming | FieldNotice},
		{"with a whole struct", "{{with .Channel}}{{.Title}}{{else}}{{.Language}}{{end}}", channel | FieldLanguage},
		{"variables", "{{range $i, $c := .Unread.Channels}}{{$i}}{{$c.ID}}{{end}}", FieldUnread},
		{"method of a field", "{{.Now.Hour}}", FieldNow},
		{"parenthesized", "{{(index .Channel.Members 0)}}", FieldChannelMembers},
		{"whole data printed", "{{.}}", FieldAll},
		{"whole data passed", `{{printf "%v" $}}`, FieldAll},
		{"another template", `{{define "x"}}{{.Bot.Name}}{{end}}{{template "x" .}}`, FieldAll},
		{"unknown field", "{{.Bot.Nickname}}", FieldAll},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tm, err := Parse("x.md", "x.md", []byte("---\nsection: x\norder: 1\n---\n"+tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if got := tm.Uses(); got != tt.want {
				t.Errorf("Uses() = %b, want %b", got, tt.want)
			}
		})
	}
}

// TestUsesDecidesRendering renders every default template with data that
// differs only outside the fields it reads and checks the texts are equal,
// and with data that differs in every field and checks the keys differ.
func TestUsesDecidesRendering(t *testing.T) {
	s, err := Load("", zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	set := s.Current()
	base := SampleData("telegram", true)
	other := Data{
		Bot:       Bot{Name: "Pell"},
		Language:  "French",
		Platform:  "satori",
		Channel:   Channel{ID: "7", Title: "other", Members: []string{"Cyril"}},
		Attention: "ambient",
		Notice:    "budget nearly used",
		Memory:    []Note{{ID: "9", Scope: "channel", Text: "quiet on Sundays"}},
		Now:       base.Now.Add(time.Hour),
		Incoming:  []Message{{ID: "m9", Sender: "Cyril", Content: "hey", Time: base.Now}},
		Remaining: 4,
		Actions:   []Action{{Name: "continue", Action: `{"action":"continue"}`, OK: true, Result: "ok"}},
		Earlier:   []Action{},
		Unread:    Unread{Total: 1, Channels: []UnreadChannel{{ID: "7", Count: 1, Current: true}}},
		Reactions: []Reaction{{Sender: "Cyril", Emoji: "👍", MessageID: "m1"}},
	}
	for _, tm := range append(append([]*Template(nil), set.Sections...), set.State) {
		t.Run(tm.Section, func(t *testing.T) {
			uses := tm.Uses()
			if uses == FieldAll {
				t.Fatalf("Uses() = FieldAll: the default template should be analysed")
			}
			// mixed has other's value for every field the template does
			// not read, base's for those it reads.
			mixed := other
			for bit := Fields(1); bit <= FieldTools; bit <<= 1 {
				if uses&bit != 0 {
					copyField(&mixed, &base, bit)
				}
			}
			want, err := tm.Render(base)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tm.Render(mixed)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("renders differ although the fields read (%b) are equal:\n%s\n---\n%s", uses, want, got)
			}
			if string(base.AppendKey(nil, uses)) != string(mixed.AppendKey(nil, uses)) {
				t.Error("keys differ although the fields read are equal")
			}
			if uses != 0 && string(base.AppendKey(nil, uses)) == string(other.AppendKey(nil, uses)) {
				t.Error("keys equal although every field differs")
			}
		})
	}
}

// copyField sets the field bit of dst to src's.
func copyField(dst, src *Data, bit Fields) {
	switch bit {
	case FieldBotName:
		dst.Bot.Name = src.Bot.Name
	case FieldLanguage:
		dst.Language = src.Language
	case FieldPlatform:
		dst.Platform = src.Platform
	case FieldChannelID:
		dst.Channel.ID = src.Channel.ID
	case FieldChannelTitle:
		dst.Channel.Title = src.Channel.Title
	case FieldChannelGroup:
		dst.Channel.Group = src.Channel.Group
	case FieldChannelMembers:
		dst.Channel.Members = src.Channel.Members
	case FieldAttention:
		dst.Attention = src.Attention
	case FieldNotice:
		dst.Notice = src.Notice
	case FieldMemory:
		dst.Memory = src.Memory
	case FieldNow:
		dst.Now = src.Now
	case FieldIncoming:
		dst.Incoming = src.Incoming
	case FieldRemaining:
		dst.Remaining = src.Remaining
	case FieldActions:
		dst.Actions = src.Actions
	case FieldEarlier:
		dst.Earlier = src.Earlier
	case FieldUnread:
		dst.Unread = src.Unread
	case FieldReactions:
		dst.Reactions = src.Reactions
	case FieldTools:
		dst.Tools = src.Tools
	}
}

func TestAppendKeyDelimits(t *testing.T) {
	now := time.Now()
	tests := []struct {
		name string
		a, b Data
		f    Fields
	}{
		{"members split differently",
			Data{Channel: Channel{Members: []string{"ab", "c"}}}, Data{Channel: Channel{Members: []string{"a", "bc"}}}, FieldChannelMembers},
		{"text moved between fields",
			Data{Bot: Bot{Name: "ab"}, Language: "c"}, Data{Bot: Bot{Name: "a"}, Language: "bc"}, FieldBotName | FieldLanguage},
		{"same instant, other zone",
			Data{Now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}, Data{Now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC).In(time.FixedZone("X", 3600))}, FieldNow},
		{"monotonic reading", Data{Now: now}, Data{Now: now.Round(0)}, FieldNow},
		{"note shareable",
			Data{Memory: []Note{{ID: "1", Shareable: true}}}, Data{Memory: []Note{{ID: "1"}}}, FieldMemory},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if string(tt.a.AppendKey(nil, tt.f)) == string(tt.b.AppendKey(nil, tt.f)) {
				t.Errorf("equal keys %q for different data", tt.a.AppendKey(nil, tt.f))
			}
		})
	}
}
