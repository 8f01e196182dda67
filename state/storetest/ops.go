package storetest

import (
	"context"
	"testing"

	"github.com/airi-go/airi/state"
)

func ops(t *testing.T, s state.Store) state.Operations {
	t.Helper()
	return s
}

func testChannelControl(t *testing.T, s state.Store) {
	ctx := context.Background()
	o := ops(t, s)
	c, err := o.ChannelControl(ctx, "c1")
	if err != nil || c.Paused || c.ChannelID != "c1" {
		t.Fatalf("control before any: %+v %v", c, err)
	}
	until := at(100)
	want := state.ChannelControl{ChannelID: "c1", Paused: true, PausedUntil: until, Mode: state.ModeAddressed}
	if err := o.SetChannelControl(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err := o.ChannelControl(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	got.PausedUntil = got.PausedUntil.UTC().Round(0)
	want.PausedUntil = want.PausedUntil.UTC().Round(0)
	equal(t, "control", got, want)
	if !got.PausedAt(at(99)) || got.PausedAt(at(100)) {
		t.Errorf("PausedAt around %v wrong", until)
	}
	if err := o.SetChannelControl(ctx, state.ChannelControl{ChannelID: "c1"}); err != nil {
		t.Fatal(err)
	}
	all, err := o.ChannelControls(ctx)
	if err != nil || len(all) != 1 || all["c1"].Paused || all["c1"].Mode != "" {
		t.Errorf("controls after resume: %+v %v", all, err)
	}
	if err := o.SetChannelControl(ctx, state.ChannelControl{ChannelID: "c1", Mode: "loud"}); err == nil {
		t.Error("unknown mode accepted")
	}
}

func testResetAndForget(t *testing.T, s state.Store) {
	ctx := context.Background()
	o := ops(t, s)
	for _, ch := range []string{"c1", "c2"} {
		if err := s.UpsertChannel(ctx, state.Channel{ID: ch, Platform: "telegram"}); err != nil {
			t.Fatal(err)
		}
	}
	ingest(t, s, msg("c1", "a", 1))
	ingest(t, s, msg("c1", "b", 2))
	ingest(t, s, msg("c2", "a", 3))
	appendAction(t, s, state.ActionRecord{ChannelID: "c1", Name: "continue", Time: at(4)})
	if _, err := s.AddTick(ctx, sampleTick("c1", 5)); err != nil {
		t.Fatal(err)
	}

	n, err := o.ResetChannel(ctx, "c1")
	if err != nil || n != 2 {
		t.Fatalf("reset: %d %v, want 2 unread cleared", n, err)
	}
	if u, _ := s.Unread(ctx, "c1", 0); len(u) != 0 {
		t.Errorf("unread after reset: %d", len(u))
	}
	if acts, _ := s.Actions(ctx, "c1", 0); len(acts) != 0 {
		t.Errorf("actions after reset: %d", len(acts))
	}
	if h, total, _ := s.History(ctx, "c1", 0); len(h) != 2 || total != 2 {
		t.Errorf("history after reset: %d of %d, want the 2 messages kept", len(h), total)
	}

	addReminder(t, s, state.Reminder{ChannelID: "c1", Content: "secret", Due: at(60)})
	kept := addReminder(t, s, state.Reminder{ChannelID: "c2", Content: "other chat", Due: at(60)})
	f, err := o.ForgetChannel(ctx, "c1")
	if err != nil || f.Messages != 2 || f.Ticks != 1 {
		t.Fatalf("forget channel: %+v %v", f, err)
	}
	if rs, _ := s.ListReminders(ctx, state.ReminderFilter{}); len(rs) != 1 || rs[0].ID != kept.ID {
		t.Errorf("reminders after forgetting c1: %+v, want only c2's", rs)
	}
	if ticks, _ := s.Ticks(ctx, state.TickFilter{ChannelID: "c1"}); len(ticks) != 0 {
		t.Errorf("ticks after forget: %d", len(ticks))
	}
	if _, err := s.Channel(ctx, "c1"); err != nil {
		t.Errorf("the channel itself is forgotten: %v", err)
	}
	if h, total, _ := s.History(ctx, "c1", 0); len(h) != 0 || total != 0 {
		t.Errorf("history after forget: %d of %d", len(h), total)
	}
	if h, _, _ := s.History(ctx, "c2", 0); len(h) != 0 {
		t.Errorf("another channel's history changed: %d", len(h))
	}
}

func testRetention(t *testing.T, s state.Store) {
	ctx := context.Background()
	o := ops(t, s)
	for i := range 5 {
		tk := sampleTick("c1", i)
		if i == 4 {
			tk.Action, tk.ParseError = nil, "no action found"
		}
		if _, err := s.AddTick(ctx, tk); err != nil {
			t.Fatal(err)
		}
	}
	act, err := o.Activity(ctx, at(3))
	if err != nil {
		t.Fatal(err)
	}
	a := act["c1"]
	if a.LastTick == nil || a.LastTick.Outcome != "parse error" || a.LastError != "no action found" {
		t.Errorf("activity: %+v", a)
	}
	if want := (1200 + 3 + 30) + (1200 + 4 + 30); a.Tokens != want {
		t.Errorf("tokens since tick 3: %d, want %d", a.Tokens, want)
	}
	m := ingest(t, s, msg("c1", "old", 1))
	ingest(t, s, msg("c1", "unread", 1))
	if err := s.MarkRead(ctx, []int64{m.ID}); err != nil {
		t.Fatal(err)
	}
	n, err := o.PruneTicks(ctx, at(3))
	if err != nil || n != 3 {
		t.Fatalf("pruned %d ticks (%v), want 3", n, err)
	}
	n, err = o.PruneMessages(ctx, at(2))
	if err != nil || n != 1 {
		t.Fatalf("pruned %d messages (%v), want the 1 read one", n, err)
	}
	if err := o.Reclaim(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := o.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Pruned["ticks"] != 3 || st.Pruned["messages"] != 1 || st.LastPrune.IsZero() {
		t.Errorf("pruned counts: %+v at %v", st.Pruned, st.LastPrune)
	}
	rows := map[string]int64{}
	for _, tb := range st.Tables {
		rows[tb.Name] = tb.Rows
		if tb.Name == "ticks" && tb.Bytes <= 0 {
			t.Errorf("ticks table has %d bytes", tb.Bytes)
		}
	}
	if rows["ticks"] != 2 || rows["messages"] != 1 {
		t.Errorf("rows: %v", rows)
	}
}
