package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/airi-go/airi/state"
)

// testIngestIn records a channel and its message together: the channel
// is known, the message stored once, and a duplicate is reported as not
// new; an invalid message stores neither.
func testIngestIn(t *testing.T, s state.Store) {
	ctx := context.Background()
	ch := state.Channel{ID: "g1", Platform: "telegram", NativeID: "g1", Group: true, Title: "Book club"}
	m := msg("g1", "p1", 1)
	got, isNew, err := s.IngestIn(ctx, ch, m)
	if err != nil || !isNew || got.ID == 0 {
		t.Fatalf("IngestIn = %+v, %v, %v; want a new stored message", got, isNew, err)
	}
	stored, err := s.Channel(ctx, "g1")
	if err != nil || stored.Title != "Book club" || !stored.Group {
		t.Errorf("Channel after IngestIn = %+v, %v", stored, err)
	}
	again, isNew, err := s.IngestIn(ctx, ch, m)
	if err != nil || isNew || again.ID != got.ID {
		t.Errorf("IngestIn of a duplicate = id %d, new %v, %v; want id %d, not new", again.ID, isNew, err, got.ID)
	}
	if _, _, err := s.IngestIn(ctx, state.Channel{ID: "g2", Platform: "telegram", NativeID: "g2"}, state.Message{ChannelID: "g2"}); err == nil {
		t.Error("IngestIn of an invalid message: no error")
	}
	if _, err := s.Channel(ctx, "g2"); err == nil {
		t.Error("IngestIn of an invalid message recorded its channel")
	}
	unread, err := s.Unread(ctx, "g1", 0)
	if err != nil || len(unread) != 1 {
		t.Errorf("Unread after IngestIn = %d messages, %v; want 1", len(unread), err)
	}
}

// testRecordTick stores the end of ticks with and without an action
// record: both are stored, the history is trimmed as TrimActions does.
func testRecordTick(t *testing.T, s state.Store) {
	ctx := context.Background()
	tk := sampleTick("c1", 1)
	actID, tickID, err := s.RecordTick(ctx, nil, 20, 50, tk)
	if err != nil || actID != 0 || tickID == 0 {
		t.Fatalf("RecordTick without action = %d, %d, %v", actID, tickID, err)
	}
	names := []string{"read_unread_messages", "send_message", "continue", "read_unread_messages", "send_message"}
	var lastTick int64
	for i, name := range names {
		act := state.ActionRecord{ChannelID: "c1", Name: name, Result: fmt.Sprint(i), Time: at(i)}
		actID, tickID, err := s.RecordTick(ctx, &act, 2, 3, sampleTick("c1", i+2))
		if err != nil || actID == 0 || tickID <= lastTick {
			t.Fatalf("RecordTick %d = %d, %d, %v", i, actID, tickID, err)
		}
		lastTick = tickID
	}
	acts, err := s.Actions(ctx, "c1", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range acts {
		got = append(got, a.Name)
	}
	// Trimmed to the newest 2 once over 3.
	equal(t, "actions after RecordTick", got, []string{"read_unread_messages", "send_message"})
	ticks, err := s.Ticks(ctx, state.TickFilter{ChannelID: "c1"})
	if err != nil || len(ticks) != 1+len(names) {
		t.Fatalf("Ticks = %d, %v; want %d", len(ticks), err, 1+len(names))
	}
	equal(t, "first recorded tick", normTicks(ticks[:1])[0].Raw, tk.Raw)
	if _, _, err := s.RecordTick(ctx, nil, 20, 50, state.Tick{}); err == nil {
		t.Error("RecordTick without channel: no error")
	}
}

// testRecordSent marks a send done and stores the bot's message in one
// step; an invalid message changes neither.
func testRecordSent(t *testing.T, s state.Store) {
	ctx := context.Background()
	id, err := s.AddOutbox(ctx, state.OutboxEntry{ChannelID: "c1", Content: "hi", Created: at(0), Updated: at(0)})
	if err != nil {
		t.Fatal(err)
	}
	bad := state.Message{ChannelID: "", Self: true, Content: "hi"}
	if err := s.RecordSent(ctx, id, "m-1", "", bad); err == nil {
		t.Error("RecordSent of an invalid message: no error")
	}
	if p, err := s.PendingOutbox(ctx); err != nil || len(p) != 1 {
		t.Errorf("PendingOutbox after a refused RecordSent = %d, %v; want the entry still pending", len(p), err)
	}
	sent := state.Message{ChannelID: "c1", PlatformID: "m-1", SenderName: "Bot", Self: true, Content: "hi", Time: at(1)}
	if err := s.RecordSent(ctx, id, "m-1", "", sent); err != nil {
		t.Fatalf("RecordSent: %v", err)
	}
	if p, err := s.PendingOutbox(ctx); err != nil || len(p) != 0 {
		t.Errorf("PendingOutbox after RecordSent = %v, %v; want none", p, err)
	}
	hist, _, err := s.History(ctx, "c1", 10)
	if err != nil || len(hist) != 1 || !hist[0].Self || hist[0].Content != "hi" {
		t.Errorf("History after RecordSent = %+v, %v; want the sent message", hist, err)
	}
	if n, err := s.UnreadCounts(ctx); err != nil || n["c1"] != 0 {
		t.Errorf("UnreadCounts after RecordSent = %v, %v; the bot's message is never unread", n, err)
	}
}

// testRefusedBytes stores text with a NUL byte and invalid UTF-8, which
// PostgreSQL refuses in text, as every engine does: cleaned, never
// refused, so that one such message cannot hold back the ones after it.
func testRefusedBytes(t *testing.T, s state.Store) {
	ctx := context.Background()
	dirty := "a\x00b\xffc"
	const clean = "ab\uFFFDc"
	ch := state.Channel{ID: "g1", Platform: "telegram", NativeID: "g1", Group: true, Title: "club" + dirty, Members: []string{"Ann" + dirty}}
	m := msg("g1", "p1", 1)
	m.Content, m.SenderName = dirty, "Bo"+dirty
	got, _, err := s.IngestIn(ctx, ch, m)
	if err != nil {
		t.Fatalf("IngestIn of text with a NUL byte: %v", err)
	}
	if got.Content != clean || got.SenderName != "Bo"+clean {
		t.Errorf("stored message = %q from %q; want %q from %q", got.Content, got.SenderName, clean, "Bo"+clean)
	}
	unread, err := s.Unread(ctx, "g1", 0)
	if err != nil || len(unread) != 1 || unread[0].Content != clean {
		t.Errorf("Unread = %+v, %v; want the cleaned text", unread, err)
	}
	stored, err := s.Channel(ctx, "g1")
	if err != nil || stored.Title != "club"+clean || len(stored.Members) != 1 || stored.Members[0] != "Ann"+clean {
		t.Errorf("Channel = %+v, %v; want the cleaned title and member", stored, err)
	}
	if ch.Members[0] != "Ann"+dirty {
		t.Error("cleaning changed the caller's member list")
	}
	tk := sampleTick("g1", 1)
	tk.Raw, tk.Result = dirty, dirty
	act := state.ActionRecord{ChannelID: "g1", Name: "send_message", Result: dirty}
	if _, _, err := s.RecordTick(ctx, &act, 20, 50, tk); err != nil {
		t.Fatalf("RecordTick with a NUL byte: %v", err)
	}
	ticks, err := s.Ticks(ctx, state.TickFilter{ChannelID: "g1"})
	if err != nil || len(ticks) != 1 || ticks[0].Raw != clean || ticks[0].Result != clean {
		t.Errorf("Ticks = %+v, %v; want the cleaned raw answer and result", ticks, err)
	}
	if _, err := s.AddOutbox(ctx, state.OutboxEntry{ChannelID: "g1", Content: dirty}); err != nil {
		t.Errorf("AddOutbox with a NUL byte: %v", err)
	}
	n, _, err := s.SaveNote(ctx, state.Note{Scope: state.ScopeChannel, Subject: "g1", Text: "likes " + dirty}, state.NoteLimits{})
	if err != nil || n.Text != "likes "+clean {
		t.Errorf("SaveNote with a NUL byte = %q, %v; want %q", n.Text, err, "likes "+clean)
	}
}

// testUserIDs finds whom a bare user id may name: the platform-qualified
// senders and note subjects ending in it, and no id that merely ends in
// the same digits.
func testUserIDs(t *testing.T, s state.Store) {
	ctx := context.Background()
	for i, sender := range []string{"telegram:501", "qq:501", "qq:1501", "501"} {
		m := msg("c1", fmt.Sprint("p", i), i)
		m.SenderID = sender
		ingest(t, s, m)
	}
	if _, _, err := s.SaveNote(ctx, state.Note{Scope: state.ScopeUser, Subject: "discord:501", Text: "x"}, state.NoteLimits{}); err != nil {
		t.Fatal(err)
	}
	got, err := s.UserIDs(ctx, "501")
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "UserIDs(501)", got, []string{"501", "discord:501", "qq:501", "telegram:501"})
	got, err = s.UserIDs(ctx, "telegram:501")
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "UserIDs(telegram:501)", got, []string{"telegram:501"})
	if got, err := s.UserIDs(ctx, "999"); err != nil || len(got) != 0 {
		t.Errorf("UserIDs(999) = %v, %v; want none", got, err)
	}
}
