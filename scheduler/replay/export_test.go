package replay_test

import (
	"context"
	"encoding/json"
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
	if e := ss[0].Items[1].Tick.Effects; len(e) != 1 || e[0].MessageID != "9" || e[0].Content != "hi" {
		t.Errorf("effects %+v", e)
	}
	if got := string(ss[1].Items[2].Tick.Action); got != `{"action":"continue"}` {
		t.Errorf("action %s, want it compact", got)
	}
	var order []string
	for _, it := range ss[1].Items {
		if it.Event != nil {
			order = append(order, it.Event.Content)
		} else {
			order = append(order, it.Tick.Raw)
		}
	}
	want := []string{"first", "second", "r1", "during the call", "r3", "after every tick"}
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
		if len(ss) != 1 || len(ss[0].Items) != 3 || ss[0].Items[0].Event.Content != "during the call" || ss[0].Items[1].Tick.Raw != "r3" {
			t.Fatalf("got %+v", ss)
		}
	})
}
