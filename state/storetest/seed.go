package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"testing"

	"github.com/airi-go/airi/state"
)

// Seeded is what Seed wrote, for Check to find again (after a restart, a
// copy, a migration).
type Seeded struct {
	Channels []state.Channel
	Unread   []state.Message
	History  []state.Message
	Actions  []state.ActionRecord
	Pending  []state.OutboxEntry
	Ticks    []state.Tick
	Cursors  map[string]string
	Notes    []state.Note
}

// Seed writes one of everything to an empty store: channels, read, unread
// and own messages, action history, outbox entries in every state, ticks
// cursors and notes.
func Seed(t *testing.T, s state.Store) Seeded {
	t.Helper()
	ctx := context.Background()
	var sd Seeded
	sd.Channels = []state.Channel{
		{ID: "console", Platform: "console", Title: "Console"},
		{ID: "telegram:-5", Platform: "telegram", NativeID: "-5", Group: true, Title: "Team", Members: []string{"Ann", "Bob"}},
	}
	for _, ch := range sd.Channels {
		if err := s.UpsertChannel(ctx, ch); err != nil {
			t.Fatalf("seed channel: %v", err)
		}
	}
	var toRead []int64
	for i := range 6 {
		m := msg("telegram:-5", fmt.Sprint("m", i), i)
		switch i {
		case 3:
			m.Self, m.SenderName = true, "airi"
		case 1, 5:
			// A bot's message, read and unread: after a reopen it must
			// not pass for a human's.
			m.FromBot = true
			m.Decision = "bot"
		case 4:
			m.ReplyToSelf = true
		}
		got := ingest(t, s, m)
		if i == 4 {
			if err := s.SetDecision(ctx, []int64{got.ID}, "addressed:reply"); err != nil {
				t.Fatalf("seed decision: %v", err)
			}
			got.Decision = "addressed:reply"
		}
		if i < 3 {
			toRead = append(toRead, got.ID)
			got.Read = true
		}
		if got.Read || got.Self {
			sd.History = append(sd.History, normMsg(got))
		} else {
			sd.Unread = append(sd.Unread, normMsg(got))
		}
	}
	if err := s.MarkRead(ctx, toRead); err != nil {
		t.Fatalf("seed mark read: %v", err)
	}
	for i, name := range []string{"read_unread_messages", "send_message", "continue"} {
		sd.Actions = append(sd.Actions, appendAction(t, s, state.ActionRecord{
			ChannelID: "telegram:-5", Wake: 1, Name: name, Action: json.RawMessage(`{"action":"` + name + `"}`),
			OK: true, Result: "ok " + name, Time: at(10 + i),
		}))
	}
	for i, st := range []state.OutboxState{state.OutboxPending, state.OutboxDone} {
		e := state.OutboxEntry{ChannelID: "telegram:-5", Content: fmt.Sprint("out ", i), State: state.OutboxPending,
			Created: at(20 + i), Updated: at(20 + i)}
		id, err := s.AddOutbox(ctx, e)
		if err != nil {
			t.Fatalf("seed outbox: %v", err)
		}
		e.ID = id
		if st == state.OutboxPending {
			sd.Pending = append(sd.Pending, e)
		} else if err := s.SetOutboxState(ctx, id, st, "m-9", ""); err != nil {
			t.Fatalf("seed outbox state: %v", err)
		}
	}
	for i := range 2 {
		tk := sampleTick("telegram:-5", 30+i)
		id, err := s.AddTick(ctx, tk)
		if err != nil {
			t.Fatalf("seed tick: %v", err)
		}
		tk.ID = id
		sd.Ticks = append(sd.Ticks, tk)
	}
	sd.Cursors = map[string]string{"satori": "17", "telegram": "99"}
	for k, v := range sd.Cursors {
		if err := s.SetCursor(ctx, k, v); err != nil {
			t.Fatalf("seed cursor: %v", err)
		}
	}
	sd.Notes = seedNotes(t, s)
	return sd
}

// Check verifies that s holds exactly what Seed wrote.
func (sd Seeded) Check(t *testing.T, s state.Store) {
	t.Helper()
	ctx := context.Background()
	chs, err := s.Channels(ctx)
	if err != nil {
		t.Fatalf("check channels: %v", err)
	}
	want := append([]state.Channel(nil), sd.Channels...)
	sort.Slice(want, func(i, j int) bool { return want[i].ID < want[j].ID })
	equal(t, "channels", chs, want)

	u, err := s.Unread(ctx, "telegram:-5", 0)
	if err != nil {
		t.Fatalf("check unread: %v", err)
	}
	equal(t, "unread", normMsgs(u), sd.Unread)
	h, total, err := s.History(ctx, "telegram:-5", 0)
	if err != nil {
		t.Fatalf("check history: %v", err)
	}
	equal(t, "history", normMsgs(h), sd.History)
	if total != len(sd.History) {
		t.Errorf("history total %d, want %d", total, len(sd.History))
	}
	counts, err := s.UnreadCounts(ctx)
	if err != nil {
		t.Fatalf("check unread counts: %v", err)
	}
	equal(t, "unread counts", counts, map[string]int{"telegram:-5": len(sd.Unread)})

	acts, err := s.Actions(ctx, "telegram:-5", 0)
	if err != nil {
		t.Fatalf("check actions: %v", err)
	}
	equal(t, "actions", normActions(acts), normActions(sd.Actions))

	p, err := s.PendingOutbox(ctx)
	if err != nil {
		t.Fatalf("check outbox: %v", err)
	}
	equal(t, "pending outbox", normOutbox(p), normOutbox(sd.Pending))

	ts, err := s.Ticks(ctx, state.TickFilter{})
	if err != nil {
		t.Fatalf("check ticks: %v", err)
	}
	equal(t, "ticks", normTicks(ts), normTicks(sd.Ticks))

	for k, v := range sd.Cursors {
		if got, err := s.Cursor(ctx, k); err != nil || got != v {
			t.Errorf("cursor %q = %q, %v; want %q", k, got, err, v)
		}
	}
	checkNotes(t, s, sd.Notes)
	// Ids keep increasing after whatever happened in between.
	last := sd.Unread[len(sd.Unread)-1].ID
	m := ingest(t, s, msg("telegram:-5", "after", 50))
	if m.ID <= last {
		t.Errorf("new message id %d not after %d", m.ID, last)
	}
}
