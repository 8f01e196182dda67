package planner

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/state"
)

var update = flag.Bool("update", false, "rewrite golden files")

var testNow = time.Date(2026, 3, 14, 21, 40, 0, 0, time.UTC)

// newTestBuilder returns a builder over the embedded templates (and dir's
// overrides when dir is not empty) and the built-in actions.
func newTestBuilder(t testing.TB, dir string, opts BuilderOptions) *Builder {
	t.Helper()
	src, err := prompts.Load(dir, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := actions.NewBuiltinRegistry(actions.Handlers{})
	if err != nil {
		t.Fatal(err)
	}
	return NewBuilder(src, reg, opts)
}

var chatLines = []struct {
	sender string
	text   string
}{
	{"Ada", "anyone up for the meteor shower tonight?"},
	{"Bo", "if the clouds behave"},
	{"Juni", "they won't. they never do. bring a thermos anyway"},
	{"Cyril", "what time does it peak?"},
	{"Ada", "around 2am I think"},
	{"Bo", "ugh, work tomorrow"},
	{"Juni", "sleep is a social construct"},
	{"Cyril", "my boss disagrees"},
	{"Ada", "we could go to the old pier, less light there"},
	{"Bo", "the pier with the seagulls from hell?"},
	{"Juni", "the seagulls sleep. mostly. I've checked"},
	{"Cyril", "I'll bring the folding chairs"},
	{"Ada", "I have a red torch somewhere"},
	{"Bo", "is red light actually better or is that a myth"},
	{"Juni", "real. your eyes stay dark-adapted. white light resets you for twenty minutes"},
	{"Cyril", "TIL"},
	{"Ada", "ok so pier at 1:30?"},
	{"Bo", "fine. but someone brings snacks"},
	{"Cyril", "I'll do snacks if someone else does coffee"},
	{"Juni", "coffee's mine. tea for me, obviously"},
}

// fixture is a group or direct chat with a full 20-message window, two new
// messages, an earlier wake's records and another channel with unread
// messages.
func fixture(platform string, group bool) Input {
	ch := state.Channel{ID: "-1001234567890", Platform: platform, Group: true, Title: "Harbour Lights", Members: []string{"Cyril", "Ada", "Bo", "Juni"}}
	if !group {
		ch = state.Channel{ID: "42", Platform: platform, Title: "Ada"}
	}
	in := Input{
		Platform: platform,
		Channel:  ch,
		Now:      testNow,
		Wake:     7,
		Channels: []state.Channel{ch, {ID: "-1009876543210", Platform: platform, Group: true, Title: "Night Sky Club"}},
		Unread:   map[string]int{"-1009876543210": 3},
	}
	for i, l := range chatLines {
		sender := l.sender
		if !group && sender != "Juni" {
			sender = "Ada"
		}
		in.History = append(in.History, state.Message{
			ID: int64(100 + i), ChannelID: ch.ID, PlatformID: fmt.Sprint(5000 + i), SenderName: sender,
			Self: sender == "Juni", Content: l.text, Time: testNow.Add(time.Duration(i-40) * time.Minute), Read: true,
		})
	}
	in.HistoryTotal = len(in.History)
	in.Incoming = []state.Message{
		{ID: 120, ChannelID: ch.ID, PlatformID: "5020", SenderName: "Ada", Content: "@Juni which direction do we look?", Mentioned: true, Time: testNow.Add(-time.Minute)},
		{ID: 121, ChannelID: ch.ID, PlatformID: "5021", SenderName: "Bo", Content: "and do we need binoculars", Time: testNow},
	}
	if !group {
		in.Incoming[1].SenderName = "Ada"
	}
	in.Actions = []state.ActionRecord{
		{ChannelID: ch.ID, Wake: 6, Name: "send_message", OK: true, Result: "sent", Action: json.RawMessage(`{"action":"send_message","channelId":"` + ch.ID + `","content":"coffee's mine. tea for me, obviously"}`)},
		{ChannelID: ch.ID, Wake: 6, Name: "continue", OK: true, Result: "waiting for new messages", Action: json.RawMessage(`{"action":"continue"}`)},
	}
	return in
}

func TestGolden(t *testing.T) {
	for _, platform := range []string{"telegram", "satori", "console"} {
		for _, group := range []bool{false, true} {
			kind := "direct"
			if group {
				kind = "group"
			}
			t.Run(platform+"_"+kind, func(t *testing.T) {
				b := newTestBuilder(t, "", BuilderOptions{})
				p, err := b.Build(context.Background(), fixture(platform, group))
				if err != nil {
					t.Fatal(err)
				}
				var got bytes.Buffer
				if err := p.WriteText(&got); err != nil {
					t.Fatal(err)
				}
				golden := filepath.Join("testdata", "render_"+platform+"_"+kind+".golden")
				if *update {
					if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if !bytes.Equal(got.Bytes(), want) {
					t.Errorf("render differs from %s (run with -update after checking):\n%s", golden, got.String())
				}
			})
		}
	}
}

func TestPlatformsDiffer(t *testing.T) {
	b := newTestBuilder(t, "", BuilderOptions{})
	systems := map[string]string{}
	for _, platform := range []string{"telegram", "satori", "console"} {
		p, err := b.Build(context.Background(), fixture(platform, true))
		if err != nil {
			t.Fatal(err)
		}
		systems[platform] = p.Messages[0].Content
	}
	if systems["telegram"] == systems["satori"] {
		t.Fatal("telegram and satori system messages are identical")
	}
	if !strings.Contains(systems["telegram"], "# Telegram") || strings.Contains(systems["telegram"], "Satori") {
		t.Errorf("telegram system message has the wrong platform rules:\n%s", systems["telegram"])
	}
	if !strings.Contains(systems["satori"], "no markdown") {
		t.Errorf("satori system message lacks its rules:\n%s", systems["satori"])
	}
}

func TestCatalogNamesEveryAction(t *testing.T) {
	specs := append(actions.BuiltinSpecs(actions.Handlers{}), actions.Spec{
		Name: "pin", Description: "Pin a message.",
		Params: struct {
			MessageID string `json:"messageId" jsonschema:"description=Id of the message to pin."`
			Emoji     string `json:"emoji"`
		}{},
	})
	reg, err := actions.NewRegistry(specs...)
	if err != nil {
		t.Fatal(err)
	}
	src, err := prompts.Load("", zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewBuilder(src, reg, BuilderOptions{}).Build(context.Background(), fixture("console", false))
	if err != nil {
		t.Fatal(err)
	}
	var catalog string
	for _, s := range p.Sections {
		if s.Name == SectionCatalog {
			catalog = s.Text(p.Messages)
		}
	}
	for _, name := range reg.Names() {
		if !strings.Contains(catalog, "- "+name) {
			t.Errorf("catalog does not describe %s:\n%s", name, catalog)
		}
	}
	if !strings.Contains(catalog, "messageId (string): Id of the message to pin.") {
		t.Errorf("catalog lacks the parameter description:\n%s", catalog)
	}
	if !strings.Contains(catalog, "replyTo?") {
		t.Errorf("catalog does not mark optional parameters:\n%s", catalog)
	}
}

func TestSystemStableAcrossTicks(t *testing.T) {
	for _, group := range []bool{false, true} {
		t.Run(fmt.Sprint("group=", group), func(t *testing.T) {
			b := newTestBuilder(t, "", BuilderOptions{})
			in := fixture("telegram", group)
			first, err := b.Build(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			// Next tick: the incoming messages are now history, the bot sent
			// a reply, new messages came in, the clock and unread moved.
			next := in
			next.History = append(append([]state.Message(nil), in.History...), in.Incoming...)
			next.History = append(next.History, state.Message{ID: 122, ChannelID: in.Channel.ID, SenderName: "Juni", Self: true, Content: "east, after midnight", Time: testNow.Add(time.Minute)})
			next.History = next.History[len(next.History)-20:]
			next.HistoryTotal = in.HistoryTotal + 3
			next.Incoming = []state.Message{{ID: 123, ChannelID: in.Channel.ID, SenderName: "Cyril", Content: "thanks!", Time: testNow.Add(2 * time.Minute)}}
			next.Actions = append(append([]state.ActionRecord(nil), in.Actions...), state.ActionRecord{Wake: 7, Name: "send_message", OK: true, Result: "sent", Action: json.RawMessage(`{"action":"send_message","channelId":"x","content":"east, after midnight"}`)})
			next.Now = testNow.Add(3 * time.Minute)
			next.Unread = map[string]int{"-1009876543210": 5, in.Channel.ID: 1}
			second, err := b.Build(context.Background(), next)
			if err != nil {
				t.Fatal(err)
			}
			if !first.Messages[0].Equal(second.Messages[0]) {
				t.Fatalf("system message changed between ticks:\n--- first\n%s\n--- second\n%s", first.Messages[0].Content, second.Messages[0].Content)
			}
			if first.Messages[len(first.Messages)-1].Equal(second.Messages[len(second.Messages)-1]) {
				t.Fatal("state message did not change between ticks")
			}
			// A fresh builder (a restart) renders the same bytes too.
			third, err := newTestBuilder(t, "", BuilderOptions{}).Build(context.Background(), next)
			if err != nil {
				t.Fatal(err)
			}
			if !third.Messages[0].Equal(first.Messages[0]) {
				t.Fatal("system message differs after a restart")
			}
			// A change of the channel's facts does change it.
			next.Channel.Title = "Harbour Lights (pier crew)"
			next.Channel.Members = append(next.Channel.Members, "Dee")
			fourth, err := b.Build(context.Background(), next)
			if err != nil {
				t.Fatal(err)
			}
			if group && fourth.Messages[0].Equal(first.Messages[0]) {
				t.Fatal("system message did not follow the channel's new title")
			}
		})
	}
}

func TestSectionsOrderAndWhen(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Same order as the protocol: sorted by name after it ("protocol" < "rules").
	write("rules.md", "---\nsection: rules\norder: 100\n---\nHOUSE RULES for {{.Channel.Title}}\n")
	// Before the persona.
	write("intro.md", "---\nsection: aa-intro\norder: 5\n---\nINTRO\n")
	// Only in Telegram groups.
	write("tg-group.md", "---\nsection: tg-group\norder: 330\nwhen: {platform: telegram, chat: group}\n---\nTG GROUP ONLY\n")
	// Only on satori or console, direct chats.
	write("quiet.md", "---\nsection: quiet\norder: 331\nwhen:\n  platform: [satori, console]\n  chat: direct\n---\nQUIET DIRECT\n")
	// Empty sections are skipped.
	write("empty.md", "---\nsection: empty\norder: 200\n---\n{{if .Channel.Group}}{{end}}\n")
	// The persona replaced by section name from another file keeps order 10.
	write("my-character.md", "---\nsection: persona\n---\nYou are Pell, a lighthouse cat.\n")

	b := newTestBuilder(t, dir, BuilderOptions{})
	tests := []struct {
		platform string
		group    bool
		want     []string
		absent   []string
	}{
		{"telegram", true, []string{"aa-intro", "persona", "protocol", "rules", "catalog", "runtime", "group", "language", "platform-telegram", "tg-group", "context"}, []string{"quiet", "empty", "direct"}},
		{"telegram", false, []string{"aa-intro", "persona", "protocol", "rules", "catalog", "runtime", "direct", "language", "platform-telegram", "context"}, []string{"tg-group", "quiet", "group"}},
		{"satori", false, []string{"aa-intro", "persona", "protocol", "rules", "catalog", "runtime", "direct", "language", "platform-satori", "quiet", "context"}, []string{"tg-group"}},
		{"satori", true, []string{"aa-intro", "persona", "protocol", "rules", "catalog", "runtime", "group", "language", "platform-satori", "context"}, []string{"tg-group", "quiet"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s group=%v", tt.platform, tt.group), func(t *testing.T) {
			p, err := b.Build(context.Background(), fixture(tt.platform, tt.group))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range p.Sections {
				if s.Message == 0 {
					got = append(got, s.Name)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("sections = %v\nwant       %v", got, tt.want)
			}
			sys := p.Messages[0].Content
			for _, a := range tt.absent {
				for _, g := range got {
					if g == a {
						t.Errorf("section %s should not apply", a)
					}
				}
			}
			if !strings.Contains(sys, "You are Pell, a lighthouse cat.") || strings.Contains(sys, "night-ferry") {
				t.Errorf("persona not replaced:\n%s", sys)
			}
			if strings.Contains(sys, "\n\n\n") {
				t.Errorf("sections not joined by exactly one blank line:\n%q", sys)
			}
			for _, s := range p.Sections {
				if s.Name == "persona" && s.Order != 10 {
					t.Errorf("persona override order = %d, want the inherited 10", s.Order)
				}
				if s.Message == 0 && s.Start > 0 && sys[s.Start-2:s.Start] != "\n\n" {
					t.Errorf("section %s does not start after a blank line", s.Name)
				}
			}
		})
	}
}

func BenchmarkBuild(b *testing.B) {
	bl := newTestBuilder(b, "", BuilderOptions{})
	in := fixture("telegram", true)
	ctx := context.Background()
	if _, err := bl.Build(ctx, in); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bl.Build(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildCold renders the system message every time, as after a
// template change, for comparison with the cached path.
func BenchmarkBuildCold(b *testing.B) {
	bl := newTestBuilder(b, "", BuilderOptions{})
	in := fixture("telegram", true)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		bl.mu.Lock()
		bl.chats.update(in.Channel.ID, func(e *chatCache) { e.sys = nil })
		clear(bl.rendered)
		clear(bl.layouts)
		bl.mu.Unlock()
		if _, err := bl.Build(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildFirstTick builds the first request of a new private chat,
// one message and no history, as each chat of a burst of new chats asks
// for: the channel's system message is not cached yet, while the
// template set and other channels' sections are.
func BenchmarkBuildFirstTick(b *testing.B) {
	bl := newTestBuilder(b, "", BuilderOptions{Notes: &noteBook{}})
	// Twice as many channels as the builder caches: each comes back
	// only after its cache has gone.
	ids := make([]string, 2*DefaultCachedChannels)
	titles := make([]string, len(ids))
	for i := range ids {
		ids[i] = strconv.Itoa(1000 + i)
		titles[i] = chatLines[i%len(chatLines)].sender + " " + strconv.Itoa(i%7)
	}
	in := fixture("telegram", false)
	in.History, in.HistoryTotal, in.Actions, in.Unread = nil, 0, nil, nil
	in.Incoming = in.Incoming[:1]
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		in.Channel.ID, in.Channel.Title = ids[i%len(ids)], titles[i%len(ids)]
		in.Incoming[0].ChannelID = in.Channel.ID
		i++
		if _, err := bl.Build(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}

// TestStaticFieldsCoverStaticData: the system message's cache key covers
// staticFields only, so staticData (and the memory notes) must fill no
// other part of prompts.Data; a part filled beside them would change
// what the system sections see without changing the key.
func TestStaticFieldsCoverStaticData(t *testing.T) {
	b := newTestBuilder(t, "", BuilderOptions{BotName: "airi"})
	msg := state.Message{ID: 1, ChannelID: "c", SenderID: "u", SenderName: "Ann", Content: "hi", Time: testNow}
	in := Input{
		Platform: "telegram", BotName: "Bot", Language: "en", Attention: "mentions",
		Channel: state.Channel{ID: "c", Platform: "telegram", NativeID: "c", Title: "Chat", Group: true, Members: []string{"Ann"}},
		History: []state.Message{msg}, HistoryTotal: 1, Incoming: []state.Message{msg}, Remaining: 1,
		Actions: []state.ActionRecord{{ChannelID: "c", Name: "continue"}}, Wake: 2,
		Unread: map[string]int{"d": 1}, Channels: []state.Channel{{ID: "d", Title: "Other"}}, Now: testNow,
	}
	d := b.staticData(b.src.Current(), in)
	d.Memory = []prompts.Note{{ID: "1", Scope: "global", Text: "a note"}}
	var zero prompts.Data
	others := prompts.FieldAll &^ staticFields
	if got, want := d.AppendKey(nil, others), zero.AppendKey(nil, others); !bytes.Equal(got, want) {
		t.Errorf("staticData fills parts the system message's cache key leaves out: %q, empty %q", got, want)
	}
	if bytes.Equal(d.AppendKey(nil, staticFields), zero.AppendKey(nil, staticFields)) {
		t.Error("the static parts read as empty: the check above proves nothing")
	}
}
