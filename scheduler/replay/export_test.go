package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/airi-go/airi/scheduler/replay"
	"github.com/airi-go/airi/state"
)

// memSource is a store holding a few records, filtered as the store contract says.
type memSource struct {
	channels map[string]state.Channel
	ticks    []state.Tick
	events   []state.Message
	sends    []state.Message // the reminder loop's
	reacts   []state.Reaction
}

func (m *memSource) Channel(_ context.Context, id string) (state.Channel, error) {
	ch, ok := m.channels[id]
	if !ok {
		return ch, state.ErrNotFound
	}
	return ch, nil
}

func (m *memSource) Ticks(_ context.Context, f state.TickFilter) ([]state.Tick, error) {
	var out []state.Tick
	for _, t := range m.ticks {
		if (f.ChannelID == "" || t.ChannelID == f.ChannelID) && !t.Now.Before(f.Since) {
			out = append(out, t)
		}
	}
	return out, nil
}

func (m *memSource) Events(_ context.Context, f state.TickFilter) ([]state.Message, error) {
	var out []state.Message
	for _, e := range m.events {
		if (f.ChannelID == "" || e.ChannelID == f.ChannelID) && !e.Time.Before(f.Since) {
			out = append(out, e)
		}
	}
	return out, nil
}

func (m *memSource) ReminderSends(_ context.Context, f state.TickFilter) ([]state.Message, error) {
	var out []state.Message
	for _, e := range m.sends {
		if (f.ChannelID == "" || e.ChannelID == f.ChannelID) && !e.Time.Before(f.Since) {
			out = append(out, e)
		}
	}
	return out, nil
}

func (m *memSource) ReactionEvents(_ context.Context, f state.TickFilter) ([]state.Reaction, error) {
	var out []state.Reaction
	for _, r := range m.reacts {
		if (f.ChannelID == "" || r.ChannelID == f.ChannelID) && !r.Time.Before(f.Since) {
			out = append(out, r)
		}
	}
	return out, nil
}

// TestExportReactions: a reaction to the bot's message is an event line
// of its own at its time, before the tick whose request showed it, and
// reads back as the same reaction.
func TestExportReactions(t *testing.T) {
	t0 := time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)
	src := &memSource{
		channels: map[string]state.Channel{"c": {ID: "c", Platform: "telegram"}},
		events:   []state.Message{{ChannelID: "c", PlatformID: "1", SenderID: "7", SenderName: "Ada", Content: "hi", Time: t0}},
		reacts: []state.Reaction{
			{ID: 1, ChannelID: "c", MessageID: "9", SenderID: "7", SenderName: "Ada", Emoji: "🔥", Time: t0.Add(3 * time.Second)},
			{ID: 2, ChannelID: "c", MessageID: "9", SenderID: "7", SenderName: "Ada", Emoji: "🔥", Removed: true, Time: t0.Add(4 * time.Second)},
			{ID: 3, ChannelID: "other", MessageID: "9", SenderName: "Bo", Emoji: "👍", Time: t0},
		},
		ticks: []state.Tick{
			{ID: 1, ChannelID: "c", Wake: 1, Trigger: "message", Now: t0.Add(time.Second), Raw: "r1"},
			{ID: 2, ChannelID: "c", Wake: 2, Trigger: "message", Now: t0.Add(5 * time.Second), Raw: "r2"},
		},
	}
	ss, err := replay.Export(context.Background(), src, replay.ExportOptions{})
	if err != nil || len(ss) != 1 {
		t.Fatalf("export: %d sessions, %v", len(ss), err)
	}
	var buf bytes.Buffer
	if err := replay.Write(&buf, ss[0]); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{
		`{"type":"event","time":"2026-02-01T10:00:03Z","platformId":"9","senderId":"7","sender":"Ada","content":"","reaction":"🔥"}`,
		`{"type":"event","time":"2026-02-01T10:00:04Z","platformId":"9","senderId":"7","sender":"Ada","content":"","reaction":"🔥","removed":true}`,
	}
	if len(lines) != 6 || lines[3] != want[0] || lines[4] != want[1] || !strings.Contains(lines[5], `"raw":"r2"`) {
		t.Fatalf("wrote:\n%s\nwant the message, tick 1, the two reactions, then tick 2:\n%s", buf.String(), strings.Join(want, "\n"))
	}
	back, err := replay.Read(&buf)
	if err != nil || len(back) != 1 {
		t.Fatalf("read back: %v", err)
	}
	got := back[0].Items[2].Event.ReactionOf("c")
	if !back[0].Items[2].Event.IsReaction() || got.MessageID != "9" || got.Emoji != "🔥" || got.SenderName != "Ada" || !got.Time.Equal(t0.Add(3*time.Second)) || got.Removed {
		t.Errorf("reaction read back as %+v", got)
	}
	if back[0].Items[0].Event.IsReaction() {
		t.Error("a message read back as a reaction")
	}
}

func TestExport(t *testing.T) {
	t0 := time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	src := &memSource{
		channels: map[string]state.Channel{
			"b": {ID: "b", Platform: "telegram", Title: "B"},
			"a": {ID: "a", Platform: "telegram", Group: true, Title: "A"},
		},
		events: []state.Message{
			{ChannelID: "b", PlatformID: "1", SenderName: "x", Content: "first", Time: at(0)},
			{ChannelID: "a", PlatformID: "2", SenderName: "y", Content: "in a", Time: at(1)},
			// Same instant as b's first tick: it was part of that request.
			{ChannelID: "b", PlatformID: "3", SenderName: "x", Content: "second", Time: at(2)},
			{ChannelID: "b", PlatformID: "4", SenderName: "x", Content: "during the call", Time: at(3)},
			{ChannelID: "b", PlatformID: "5", SenderName: "x", Content: "after every tick", Time: at(9)},
		},
		// A reminder sent between the ticks, and one at the instant of an
		// event (after it).
		sends: []state.Message{
			{ChannelID: "b", PlatformID: "70", SenderID: state.ReminderSenderID, Self: true, Content: "stretch", Time: at(4)},
			{ChannelID: "b", PlatformID: "71", SenderID: state.ReminderSenderID, Self: true, Content: "water", Time: at(9)},
		},
		ticks: []state.Tick{
			{ID: 1, ChannelID: "b", Wake: 1, Trigger: "message", Now: at(2), Raw: "r1", Action: json.RawMessage(`{ "action" : "continue" }`)},
			{ID: 2, ChannelID: "a", Wake: 2, Trigger: "message", Now: at(2), Raw: "r2",
				Effects: json.RawMessage(`[{"kind":"send","channelId":"a","content":"hi","messageId":"9"}]`)},
			{ID: 3, ChannelID: "b", Wake: 1, Trigger: "message", Now: at(5), Raw: "r3"},
		},
	}
	opt := replay.ExportOptions{Bot: "Juni", Settings: replay.Settings{History: 20}}
	ss, err := replay.Export(context.Background(), src, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 2 || ss[0].Header.Channel.ID != "a" || ss[1].Header.Channel.ID != "b" {
		t.Fatalf("want one session per channel in id order, got %d", len(ss))
	}
	if h := ss[0].Header; h.Bot != "Juni" || h.Platform != "telegram" || h.Settings.History != 20 || h.Session != replay.Version {
		t.Errorf("header %+v", h)
	}
	if e := ss[0].Items[1].Tick.EffectList(); len(e) != 1 || e[0].MessageID != "9" || e[0].Content != "hi" {
		t.Errorf("effects %+v", e)
	}
	if got := string(ss[1].Items[2].Tick.Action); got != `{"action":"continue"}` {
		t.Errorf("action %s, want it compact", got)
	}
	var order []string
	for _, it := range ss[1].Items {
		switch {
		case it.Event != nil:
			order = append(order, it.Event.Content)
		case it.Reminder != nil:
			order = append(order, "reminder "+it.Reminder.Content+" "+it.Reminder.MessageID)
		default:
			order = append(order, it.Tick.Raw)
		}
	}
	want := []string{"first", "second", "r1", "during the call", "reminder stretch 70", "r3", "after every tick", "reminder water 71"}
	if len(order) != len(want) {
		t.Fatalf("order %q, want %q", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("order %q, want %q", order, want)
		}
	}

	t.Run("one channel since a time", func(t *testing.T) {
		o := opt
		o.Filter = state.TickFilter{ChannelID: "b", Since: at(3)}
		ss, err := replay.Export(context.Background(), src, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(ss) != 1 || len(ss[0].Items) != 5 || ss[0].Items[0].Event.Content != "during the call" || ss[0].Items[1].Reminder == nil || ss[0].Items[2].Tick.Raw != "r3" {
			t.Fatalf("got %+v", ss)
		}
	})
}

// TestExportDecisions: a session whose header names the group mode writes
// each message's attention decision (and the flags the policy read) on its
// event line; a session under "all" writes the lines sessions recorded
// before decisions had, byte for byte.
func TestExportDecisions(t *testing.T) {
	t0 := time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)
	src := &memSource{
		channels: map[string]state.Channel{"g": {ID: "g", Platform: "telegram", Group: true, Title: "G"}},
		events: []state.Message{
			{ChannelID: "g", PlatformID: "1", SenderName: "x", Content: "talk", Time: t0, Decision: "unaddressed"},
			{ChannelID: "g", PlatformID: "2", SenderName: "b", Content: "@juni hi", Time: t0.Add(time.Second),
				Mentioned: true, FromBot: true, Decision: "bot"},
			{ChannelID: "g", PlatformID: "3", SenderName: "y", Content: "yes juni", Time: t0.Add(2 * time.Second),
				ReplyToSelf: true, Decision: "addressed:reply"},
		},
		ticks: []state.Tick{{ID: 1, ChannelID: "g", Wake: 1, Trigger: "addressed:reply", Now: t0.Add(3 * time.Second), Raw: "r"}},
	}
	tests := []struct {
		mode string
		want []string
	}{
		{"ambient", []string{
			`{"type":"event","time":"2026-02-01T10:00:00Z","platformId":"1","sender":"x","content":"talk","decision":"unaddressed"}`,
			`{"type":"event","time":"2026-02-01T10:00:01Z","platformId":"2","sender":"b","content":"@juni hi","mentioned":true,"fromBot":true,"decision":"bot"}`,
			`{"type":"event","time":"2026-02-01T10:00:02Z","platformId":"3","sender":"y","content":"yes juni","replyToSelf":true,"decision":"addressed:reply"}`,
		}},
		{"all", []string{
			`{"type":"event","time":"2026-02-01T10:00:00Z","platformId":"1","sender":"x","content":"talk"}`,
			`{"type":"event","time":"2026-02-01T10:00:01Z","platformId":"2","sender":"b","content":"@juni hi","mentioned":true,"fromBot":true}`,
			`{"type":"event","time":"2026-02-01T10:00:02Z","platformId":"3","sender":"y","content":"yes juni","replyToSelf":true}`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			ss, err := replay.Export(context.Background(), src, replay.ExportOptions{
				Attention: func(string) string { return tt.mode }})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := replay.Write(&buf, ss[0]); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
			if len(lines) != 5 {
				t.Fatalf("wrote %d lines, want a header, 3 events and a tick:\n%s", len(lines), buf.String())
			}
			for i, want := range tt.want {
				if lines[i+1] != want {
					t.Errorf("event %d:\n got %s\nwant %s", i+1, lines[i+1], want)
				}
			}
			// What was written reads back the same.
			back, err := replay.Read(&buf)
			if err != nil || len(back) != 1 || back[0].Items[1].Event.FromBot != true || back[0].Items[1].Event.Decision != ss[0].Items[1].Event.Decision {
				t.Errorf("read back %+v, %v", back, err)
			}
		})
	}
}

func TestReadRefusesBadReaction(t *testing.T) {
	head := `{"airi_session":1,"channel":{"id":"c","platform":"console"}}` + "\n"
	for _, line := range []string{
		`{"type":"event","time":"2026-06-01T09:00:00Z","sender":"Ada","content":"","reaction":"👍"}`,
		`{"type":"event","time":"2026-06-01T09:00:00Z","platformId":"7","sender":"Ada","content":"hi","reaction":"👍"}`,
		`{"type":"event","time":"2026-06-01T09:00:00Z","platformId":"7","sender":"Ada","content":"","reaction":"👍","change":"deleted"}`,
		`{"type":"event","time":"2026-06-01T09:00:00Z","platformId":"7","sender":"Ada","content":"hi","removed":true}`,
	} {
		if _, err := replay.Read(strings.NewReader(head + line + "\n")); err == nil || !strings.Contains(err.Error(), "reaction") {
			t.Errorf("read %s: %v, want an error about the reaction", line, err)
		}
	}
}
