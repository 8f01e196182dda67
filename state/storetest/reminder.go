package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/airi-go/airi/state"
)

func addReminder(t *testing.T, s state.Store, r state.Reminder) state.Reminder {
	t.Helper()
	if r.Zone == "" {
		r.Zone = "UTC"
	}
	got, err := s.AddReminder(context.Background(), r, state.ReminderLimits{})
	if err != nil {
		t.Fatalf("AddReminder: %v", err)
	}
	return got
}

func testReminders(t *testing.T, s state.Store) {
	ctx := context.Background()
	if _, err := s.AddReminder(ctx, state.Reminder{ChannelID: "a", Zone: "UTC", Due: at(1)}, state.ReminderLimits{}); err == nil {
		t.Fatal("AddReminder without content: want an error")
	}
	r1 := addReminder(t, s, state.Reminder{ChannelID: "a", CreatedBy: "u1", Content: "call the vet", Due: at(60), Every: "daily", Zone: "Europe/Berlin"})
	r2 := addReminder(t, s, state.Reminder{ChannelID: "b", Content: "water", Due: at(30)})
	r3 := addReminder(t, s, state.Reminder{ChannelID: "a", Content: "early", Due: at(10), Compose: true})
	if r1.ID == 0 || r2.ID <= r1.ID || r3.ID <= r2.ID {
		t.Fatalf("ids %d, %d, %d: want increasing", r1.ID, r2.ID, r3.ID)
	}
	got, err := s.Reminder(ctx, r1.ID)
	if err != nil {
		t.Fatalf("Reminder: %v", err)
	}
	if got.Content != "call the vet" || !got.Due.Equal(at(60)) || !got.First.Equal(at(60)) || got.Every != "daily" ||
		got.Zone != "Europe/Berlin" || got.State != state.ReminderPending || got.CreatedBy != "u1" || got.Count != 0 {
		t.Fatalf("Reminder = %+v", got)
	}
	if _, err := s.Reminder(ctx, 9999); !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("Reminder(unknown) error = %v, want ErrNotFound", err)
	}
	list, err := s.ListReminders(ctx, state.ReminderFilter{ChannelID: "a"})
	if err != nil {
		t.Fatalf("ListReminders: %v", err)
	}
	if len(list) != 2 || list[0].ID != r3.ID || list[1].ID != r1.ID || !list[0].Compose {
		t.Fatalf("ListReminders(a) = %+v, want r3 then r1", list)
	}
	// Another chat's id is not found, and changes nothing.
	if err := s.CancelReminder(ctx, r1.ID, "b"); !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("CancelReminder from another channel error = %v, want ErrNotFound", err)
	}
	if err := s.CancelReminder(ctx, r1.ID, "a"); err != nil {
		t.Fatalf("CancelReminder: %v", err)
	}
	if err := s.CancelReminder(ctx, r1.ID, ""); !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("CancelReminder twice error = %v, want ErrNotFound", err)
	}
	pending, err := s.ListReminders(ctx, state.ReminderFilter{Pending: true})
	if err != nil {
		t.Fatalf("ListReminders: %v", err)
	}
	if len(pending) != 2 || pending[0].ID != r3.ID || pending[1].ID != r2.ID {
		t.Fatalf("pending = %+v, want r3, r2", pending)
	}
	all, err := s.ListReminders(ctx, state.ReminderFilter{})
	if err != nil || len(all) != 3 {
		t.Fatalf("ListReminders(all) = %d, %v; want 3", len(all), err)
	}
	due, err := s.DueReminders(ctx, at(30), 0)
	if err != nil {
		t.Fatalf("DueReminders: %v", err)
	}
	if len(due) != 2 || due[0].ID != r3.ID || due[1].ID != r2.ID {
		t.Fatalf("DueReminders(at 30) = %+v, want r3, r2", due)
	}
	if due, _ := s.DueReminders(ctx, at(30), 1); len(due) != 1 {
		t.Fatalf("DueReminders limit 1 = %d reminders", len(due))
	}
	if due, _ := s.DueReminders(ctx, at(9), 0); len(due) != 0 {
		t.Fatalf("DueReminders before any = %+v", due)
	}
}

func testReminderLimits(t *testing.T, s state.Store) {
	ctx := context.Background()
	lim := state.ReminderLimits{PerChannel: 2, PerPerson: 3}
	add := func(ch, by string) error {
		_, err := s.AddReminder(ctx, state.Reminder{ChannelID: ch, CreatedBy: by, Content: "x", Due: at(5), Zone: "UTC"}, lim)
		return err
	}
	for _, c := range []struct{ ch, by string }{{"a", "u1"}, {"a", "u2"}, {"b", "u1"}} {
		if err := add(c.ch, c.by); err != nil {
			t.Fatalf("add %v: %v", c, err)
		}
	}
	var le *state.ReminderLimitError
	if err := add("a", "u3"); !errors.As(err, &le) || le.Scope != "channel" || le.Limit != 2 {
		t.Fatalf("third in channel a: error = %v, want a channel limit of 2", err)
	}
	if err := add("c", "u1"); err != nil {
		t.Fatalf("u1's third: %v", err)
	}
	if err := add("d", "u1"); !errors.As(err, &le) || le.Scope != "person" || le.Limit != 3 {
		t.Fatalf("u1's fourth: error = %v, want a person limit of 3", err)
	}
	// A cancelled reminder no longer counts.
	list, _ := s.ListReminders(ctx, state.ReminderFilter{ChannelID: "a"})
	if err := s.CancelReminder(ctx, list[0].ID, "a"); err != nil {
		t.Fatal(err)
	}
	if err := add("a", "u4"); err != nil {
		t.Fatalf("after a cancel: %v", err)
	}
}

func testReminderClaim(t *testing.T, s state.Store) {
	ctx := context.Background()
	once := addReminder(t, s, state.Reminder{ChannelID: "a", Content: "once", Due: at(10)})
	claim := state.ReminderClaim{ID: once.ID, Count: 0, Due: once.Due,
		Outbox: &state.OutboxEntry{ChannelID: "a", Content: "once", Created: at(10)}}
	id, err := s.ClaimReminder(ctx, claim)
	if err != nil || id == 0 {
		t.Fatalf("ClaimReminder = %d, %v", id, err)
	}
	// The same occurrence again: refused, and no second outbox entry.
	if _, err := s.ClaimReminder(ctx, claim); !errors.Is(err, state.ErrReminderClaimed) {
		t.Fatalf("second claim error = %v, want ErrReminderClaimed", err)
	}
	pend, err := s.PendingOutbox(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(pend) != 1 || pend[0].ID != id || pend[0].Content != "once" {
		t.Fatalf("pending outbox = %+v, want the one claimed entry", pend)
	}
	got, _ := s.Reminder(ctx, once.ID)
	if got.State != state.ReminderDone || got.Count != 1 || got.Outbox != id {
		t.Fatalf("claimed one-off = %+v, want done, count 1, outbox %d", got, id)
	}
	if due, _ := s.DueReminders(ctx, at(100), 0); len(due) != 0 {
		t.Fatalf("due after claim = %+v", due)
	}

	rep := addReminder(t, s, state.Reminder{ChannelID: "a", Content: "hourly", Due: at(0), Every: "1h"})
	if _, err := s.ClaimReminder(ctx, state.ReminderClaim{ID: rep.ID, Count: 0, Due: rep.Due, Next: at(3600),
		Outbox: &state.OutboxEntry{ChannelID: "a", Content: "hourly"}}); err != nil {
		t.Fatalf("claim recurring: %v", err)
	}
	got, _ = s.Reminder(ctx, rep.ID)
	if got.State != state.ReminderPending || got.Count != 1 || !got.Due.Equal(at(3600)) || !got.First.Equal(at(0)) {
		t.Fatalf("recurring after claim = %+v", got)
	}
	// Skipping two missed occurrences with no send.
	if _, err := s.ClaimReminder(ctx, state.ReminderClaim{ID: rep.ID, Count: 1, Due: got.Due, Next: at(4 * 3600), Skipped: 2}); err != nil {
		t.Fatalf("skip: %v", err)
	}
	got, _ = s.Reminder(ctx, rep.ID)
	if got.Count != 4 || !got.Due.Equal(at(4*3600)) {
		t.Fatalf("after a skip = %+v, want count 4", got)
	}
	// A stale count (another process moved it on) is refused.
	if _, err := s.ClaimReminder(ctx, state.ReminderClaim{ID: rep.ID, Count: 1, Due: at(3600),
		Outbox: &state.OutboxEntry{ChannelID: "a", Content: "hourly"}}); !errors.Is(err, state.ErrReminderClaimed) {
		t.Fatalf("stale claim error = %v", err)
	}
	// A dropped end.
	if _, err := s.ClaimReminder(ctx, state.ReminderClaim{ID: rep.ID, Count: 4, Due: got.Due, End: state.ReminderDropped}); err != nil {
		t.Fatalf("drop: %v", err)
	}
	got, _ = s.Reminder(ctx, rep.ID)
	if got.State != state.ReminderDropped {
		t.Fatalf("dropped = %+v", got)
	}
	pend, _ = s.PendingOutbox(ctx)
	if len(pend) != 2 {
		t.Fatalf("pending outbox = %d entries, want 2 (no entry for a refused claim)", len(pend))
	}
}

// testReminderSends: the reminder loop's own messages are listed by
// channel and time, and neither the bot's other messages nor incoming
// notes from the reminder loop are among them.
func testReminderSends(t *testing.T, s state.Store) {
	ctx := context.Background()
	var c1 []state.Message
	for i := range 6 {
		m := msg(fmt.Sprint("c", i%2+1), fmt.Sprint("p", i), i)
		switch i {
		case 0, 2, 3:
			m.Self, m.SenderID = true, state.ReminderSenderID
		case 4:
			m.Self = true // a reply of the model's
		case 5:
			m.SenderID = state.ReminderSenderID // a composed reminder's note
		}
		got := ingest(t, s, m)
		if m.Self && m.SenderID == state.ReminderSenderID && m.ChannelID == "c1" {
			c1 = append(c1, normMsg(got))
		}
	}
	got, err := s.ReminderSends(ctx, state.TickFilter{ChannelID: "c1"})
	if err != nil {
		t.Fatalf("ReminderSends: %v", err)
	}
	equal(t, "ReminderSends", normMsgs(got), c1)
	all, err := s.ReminderSends(ctx, state.TickFilter{Since: at(1)})
	if err != nil {
		t.Fatalf("ReminderSends since: %v", err)
	}
	if len(all) != 2 || all[0].PlatformID != "p2" || all[1].PlatformID != "p3" {
		t.Errorf("ReminderSends since the second message = %v, want p2 and p3", normMsgs(all))
	}
}

// testReminderRetention: the tick retention deletes the reminders that
// ended before its bound and keeps the pending ones, however old.
func testReminderRetention(t *testing.T, s state.Store) {
	ctx := context.Background()
	o := ops(t, s)
	due := time.Now().Add(time.Hour)
	kept := addReminder(t, s, state.Reminder{ChannelID: "c1", Content: "pending", First: due, Due: due})
	gone := addReminder(t, s, state.Reminder{ChannelID: "c1", Content: "cancelled", First: due, Due: due})
	if err := s.CancelReminder(ctx, gone.ID, "c1"); err != nil {
		t.Fatal(err)
	}
	if _, err := o.PruneTicks(ctx, time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if rs, err := s.ListReminders(ctx, state.ReminderFilter{ChannelID: "c1"}); err != nil || len(rs) != 2 {
		t.Fatalf("a reminder that ended after the bound was deleted: %+v, %v", rs, err)
	}
	if _, err := o.PruneTicks(ctx, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	rs, err := s.ListReminders(ctx, state.ReminderFilter{ChannelID: "c1"})
	if err != nil || len(rs) != 1 || rs[0].ID != kept.ID {
		t.Fatalf("after retention: %+v, %v; want only the pending reminder", rs, err)
	}
	st, err := o.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Pruned["reminders"] != 1 {
		t.Errorf("pruned counts %v, want one reminder", st.Pruned)
	}
}
