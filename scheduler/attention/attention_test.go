package attention_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func group(sender, text string, at time.Duration) attention.Message {
	return attention.Message{SenderID: sender, Content: text, Time: t0.Add(at), Group: true}
}

func TestDecide(t *testing.T) {
	def := attention.Defaults()
	def.Names = []string{"juni", "juni_bot"}
	def.Aliases = []string{"bot", "hey robot"}
	tests := []struct {
		name string
		set  func(*attention.Settings)
		msg  attention.Message
		want attention.Decision
	}{
		{"direct chat wakes", nil, attention.Message{SenderID: "a", Content: "hi", Time: t0}, attention.Decision{Wake: true, Reason: attention.ReasonDirect}},
		{"mention", nil, attention.Message{SenderID: "a", Content: "@juni_bot hi", Mentioned: true, Group: true, Time: t0}, attention.Decision{Wake: true, Reason: attention.ReasonMention}},
		{"reply to the bot", nil, attention.Message{SenderID: "a", Content: "yes", Mentioned: true, ReplyToSelf: true, Group: true, Time: t0}, attention.Decision{Wake: true, Reason: attention.ReasonReply}},
		{"display name any case", nil, group("a", "what do you think, JUNI?", 0), attention.Decision{Wake: true, Reason: attention.ReasonMention}},
		{"name inside a word", nil, group("a", "junior devs", 0), attention.Decision{Reason: attention.SkipUnaddressed}},
		{"alias whole word", nil, group("a", "the Bot knows", 0), attention.Decision{Wake: true, Reason: attention.ReasonAlias}},
		{"alias of two words", nil, group("a", "hey robot!", 0), attention.Decision{Wake: true, Reason: attention.ReasonAlias}},
		{"alias inside a word", nil, group("a", "robots and bots", 0), attention.Decision{Reason: attention.SkipUnaddressed}},
		{"unaddressed", nil, group("a", "lunch?", 0), attention.Decision{Reason: attention.SkipUnaddressed}},
		{"mode all wakes on chatter", func(s *attention.Settings) { s.Mode = attention.ModeAll }, group("a", "lunch?", 0), attention.Decision{Wake: true, Reason: attention.ReasonMessage}},
		{"mode addressed", func(s *attention.Settings) { s.Mode = attention.ModeAddressed; s.AmbientEvery = 1 }, group("a", "lunch?", 0), attention.Decision{Reason: attention.SkipUnaddressed}},
		{"ambient after one message", func(s *attention.Settings) { s.AmbientEvery = 1 }, group("a", "lunch?", 0), attention.Decision{Wake: true, Reason: attention.ReasonAmbient}},
		{"bots ignored", nil, attention.Message{SenderID: "b", Content: "@juni_bot", Mentioned: true, Group: true, FromBot: true, Time: t0}, attention.Decision{Reason: attention.SkipBot}},
		{"bots allowed", func(s *attention.Settings) { s.IgnoreBots = false }, attention.Message{SenderID: "b", Mentioned: true, Group: true, FromBot: true, Time: t0}, attention.Decision{Wake: true, Reason: attention.ReasonMention}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := def
			if tt.set != nil {
				tt.set(&s)
			}
			var c attention.Channel
			if got := c.Decide(&s, tt.msg); got != tt.want {
				t.Errorf("Decide = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestAmbientEveryAndGap(t *testing.T) {
	s := attention.Defaults()
	s.AmbientEvery, s.AmbientMinGap = 3, 10*time.Minute
	var c attention.Channel
	c.Called(t0)
	var wakes []int
	for i := 1; i <= 12; i++ {
		// One message a minute: the 3rd comes too soon after the call at
		// t0; the 10th is the first past the gap.
		if d := c.Decide(&s, group("a", "chat", time.Duration(i)*time.Minute)); d.Wake {
			wakes = append(wakes, i)
			c.Called(t0.Add(time.Duration(i) * time.Minute))
		}
	}
	if fmt.Sprint(wakes) != "[10]" {
		t.Errorf("ambient wakes at messages %v, want [10]", wakes)
	}
	for i := 13; i <= 14; i++ {
		c.Decide(&s, group("a", "chat", time.Duration(i)*time.Minute))
	}
	if c.AmbientDue(&s, t0.Add(15*time.Minute)) {
		t.Error("ambient due 5m after the previous call")
	}
	c.Decide(&s, group("a", "chat", 15*time.Minute))
	if !c.AmbientDue(&s, t0.Add(20*time.Minute)) {
		t.Error("ambient not due once three messages waited past the gap")
	}
}

func TestCooldown(t *testing.T) {
	s := attention.Defaults()
	s.Mode, s.Cooldown = attention.ModeAll, time.Minute
	var c attention.Channel
	c.Spoke(t0)
	if d := c.Decide(&s, group("a", "chat", 30*time.Second)); d.Wake || d.Reason != attention.SkipCooldown {
		t.Errorf("chatter in the cooldown: %+v, want a cooldown skip", d)
	}
	m := group("a", "@bot", 31*time.Second)
	m.Mentioned = true
	if d := c.Decide(&s, m); !d.Wake {
		t.Errorf("a mention in the cooldown: %+v, want a wake", d)
	}
	if d := c.Decide(&s, group("a", "chat", 61*time.Second)); !d.Wake {
		t.Errorf("chatter after the cooldown: %+v, want a wake", d)
	}
}

func TestSenderRate(t *testing.T) {
	s := attention.Defaults()
	s.SenderRate = attention.Rate{N: 20, Per: time.Minute}
	var c attention.Channel
	woke, limited := 0, 0
	for i := range 200 {
		m := attention.Message{SenderID: "flood", Content: "@bot", Mentioned: true, Group: true, Time: t0.Add(time.Duration(i) * 300 * time.Millisecond)}
		switch d := c.Decide(&s, m); {
		case d.Wake:
			woke++
		case d.Reason == attention.SkipSenderRate:
			limited++
		}
	}
	// 200 messages over 60s: only 20 fit the first minute.
	if woke != 20 || limited != 180 {
		t.Errorf("woke %d, limited %d; want 20 and 180", woke, limited)
	}
	if d := c.Decide(&s, attention.Message{SenderID: "other", Mentioned: true, Group: true, Time: t0.Add(time.Minute)}); !d.Wake {
		t.Errorf("another sender is limited too: %+v", d)
	}
	if d := c.Decide(&s, attention.Message{SenderID: "flood", Mentioned: true, Group: true, Time: t0.Add(2 * time.Minute)}); !d.Wake {
		t.Errorf("the flooder is still limited a period later: %+v", d)
	}
	if d := c.Decide(&s, attention.Message{SenderID: "flood", Time: t0.Add(2 * time.Minute)}); !d.Wake {
		t.Errorf("a direct chat is rate limited: %+v", d)
	}
}

func TestBotReplies(t *testing.T) {
	s := attention.Defaults()
	s.IgnoreBots, s.BotReplies = false, 3
	var c attention.Channel
	botMsg := attention.Message{SenderID: "other-bot", Mentioned: true, Group: true, FromBot: true, Time: t0}
	replies := 0
	for range 10 {
		if c.Decide(&s, botMsg).Wake {
			c.Spoke(t0)
			replies++
		}
	}
	if replies != 3 {
		t.Errorf("replied %d times in a row to a bot, want 3", replies)
	}
	human := attention.Message{SenderID: "ann", Mentioned: true, Group: true, Time: t0}
	if !c.Decide(&s, human).Wake {
		t.Error("a human's mention does not wake")
	}
	c.Spoke(t0)
	if !c.Decide(&s, botMsg).Wake {
		t.Error("after a human spoke, the other bot does not wake the bot again")
	}
}

func TestParseRate(t *testing.T) {
	tests := []struct {
		in      string
		want    attention.Rate
		wantErr bool
	}{
		{"20/1m", attention.Rate{N: 20, Per: time.Minute}, false},
		{" 5 / 10s ", attention.Rate{N: 5, Per: 10 * time.Second}, false},
		{"off", attention.Rate{}, false},
		{"20", attention.Rate{}, true},
		{"0/1m", attention.Rate{}, true},
		{"20/soon", attention.Rate{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := attention.ParseRate(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("ParseRate(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	s := attention.Defaults()
	if err := s.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	s.Mode, s.AmbientEvery = "loud", 0
	if err := s.Validate(); err == nil {
		t.Error("an unknown mode and ambient every 0 pass")
	}
}

// BenchmarkDecide measures the decision for one group message that names
// nobody, with aliases configured: the common case in a busy group.
// Compare with BenchmarkIngest (one stored message).
func BenchmarkDecide(b *testing.B) {
	s := attention.Defaults()
	s.Names = []string{"juni", "juni_bot"}
	s.Aliases = []string{"bot", "assistant"}
	var c attention.Channel
	msgs := make([]attention.Message, 64)
	for i := range msgs {
		msgs[i] = group(fmt.Sprint("user", i%6), fmt.Sprintf("Message number %d about the Weather and lunch plans", i), time.Duration(i)*time.Second)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		m := msgs[i%len(msgs)]
		m.Time = t0.Add(time.Duration(i) * time.Second)
		c.Decide(&s, m)
		i++
	}
}

// BenchmarkIngest stores one message in SQLite, the baseline the
// decision is compared with.
func BenchmarkIngest(b *testing.B) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "bench.db"), zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		m := state.Message{ChannelID: "c", PlatformID: fmt.Sprint(i), SenderName: "Ann", Content: "Message about the Weather and lunch plans", Time: t0}
		if _, _, err := st.Ingest(ctx, m); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
