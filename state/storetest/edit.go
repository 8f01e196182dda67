package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/airi-go/airi/state"
)

func testEditMessage(t *testing.T, s state.Store) {
	ctx := context.Background()
	unread := ingest(t, s, msg("c1", "p1", 1))
	shown := ingest(t, s, msg("c1", "p2", 2))
	if err := s.MarkRead(ctx, []int64{shown.ID}); err != nil {
		t.Fatal(err)
	}

	t.Run("unread takes the new text", func(t *testing.T) {
		before, after, changed, err := s.EditMessage(ctx, state.Edit{ChannelID: "c1", PlatformID: "p1", Content: "fixed", Mentioned: true, Time: at(5)})
		if err != nil || !changed {
			t.Fatalf("edit: changed=%v err=%v", changed, err)
		}
		equal(t, "before", before.Content, unread.Content)
		if after.Content != "fixed" || after.Previous != unread.Content || !after.Edited || !after.Mentioned || after.ID != unread.ID || !after.Changed.Equal(at(5)) {
			t.Errorf("after = %+v", after)
		}
		got, err := s.Unread(ctx, "c1", 0)
		if err != nil || len(got) != 1 {
			t.Fatalf("unread = %v, %v", got, err)
		}
		if got[0].Content != "fixed" || !got[0].Edited || got[0].Previous != unread.Content || !got[0].Mentioned || !got[0].Changed.Equal(at(5)) {
			t.Errorf("unread message = %+v", got[0])
		}
	})
	t.Run("same text is idempotent", func(t *testing.T) {
		_, _, changed, err := s.EditMessage(ctx, state.Edit{ChannelID: "c1", PlatformID: "p1", Content: "fixed", Mentioned: true})
		if err != nil || changed {
			t.Fatalf("repeated edit: changed=%v err=%v", changed, err)
		}
		got, _ := s.Unread(ctx, "c1", 0)
		if len(got) != 1 || got[0].Previous != unread.Content {
			t.Errorf("a repeated edit changed the message: %+v", got)
		}
	})
	t.Run("history shows the newest text", func(t *testing.T) {
		before, _, changed, err := s.EditMessage(ctx, state.Edit{ChannelID: "c1", PlatformID: "p2", Content: "second take"})
		if err != nil || !changed || !before.Read {
			t.Fatalf("edit shown: before=%+v changed=%v err=%v", before, changed, err)
		}
		hist, total, err := s.History(ctx, "c1", 0)
		if err != nil || len(hist) != 1 || total != 1 {
			t.Fatalf("history = %v (%d), %v", hist, total, err)
		}
		if hist[0].Content != "second take" || !hist[0].Edited || hist[0].Previous != shown.Content {
			t.Errorf("history message = %+v", hist[0])
		}
	})
	t.Run("unknown", func(t *testing.T) {
		_, _, _, err := s.EditMessage(ctx, state.Edit{ChannelID: "c1", PlatformID: "nope", Content: "x"})
		if !errors.Is(err, state.ErrNotFound) {
			t.Errorf("edit of an unknown message: %v, want ErrNotFound", err)
		}
	})
	t.Run("invalid", func(t *testing.T) {
		if _, _, _, err := s.EditMessage(ctx, state.Edit{ChannelID: "c1", Content: "x"}); err == nil {
			t.Error("an edit without a platform id was accepted")
		}
	})
}

func testDeleteMessage(t *testing.T, s state.Store) {
	ctx := context.Background()
	ingest(t, s, msg("c1", "p1", 1))
	shown := ingest(t, s, msg("c1", "p2", 2))
	kept := ingest(t, s, msg("c1", "p3", 3))
	ingest(t, s, msg("c1", "p4", 4))
	if err := s.MarkRead(ctx, []int64{shown.ID, kept.ID}); err != nil {
		t.Fatal(err)
	}
	// Read both ways first, so that an engine keeping them in memory has them.
	if _, err := s.Unread(ctx, "c1", 0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.History(ctx, "c1", 0); err != nil {
		t.Fatal(err)
	}

	before, changed, err := s.DeleteMessage(ctx, "c1", "p1", at(10))
	if err != nil || !changed || before.Read {
		t.Fatalf("delete unread: before=%+v changed=%v err=%v", before, changed, err)
	}
	if _, changed, err := s.DeleteMessage(ctx, "c1", "p1", at(10)); err != nil || changed {
		t.Errorf("repeated delete: changed=%v err=%v", changed, err)
	}
	before, changed, err = s.DeleteMessage(ctx, "c1", "p2", at(11))
	if err != nil || !changed || !before.Read {
		t.Fatalf("delete shown: before=%+v changed=%v err=%v", before, changed, err)
	}
	if _, _, err := s.DeleteMessage(ctx, "c1", "nope", at(12)); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("delete of an unknown message: %v, want ErrNotFound", err)
	}

	unread, err := s.Unread(ctx, "c1", 0)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "unread", pids(unread), []string{"p4"})
	n, err := s.CountUnreadAfter(ctx, "c1", 0)
	equal(t, "unread count", n, 1)
	if err != nil {
		t.Fatal(err)
	}
	counts, err := s.UnreadCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "unread counts", counts, map[string]int{"c1": 1})
	hist, total, err := s.History(ctx, "c1", 0)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "history", pids(hist), []string{"p3"})
	equal(t, "history total", total, 1)
	if _, _, changed, err := s.EditMessage(ctx, state.Edit{ChannelID: "c1", PlatformID: "p2", Content: "back"}); err != nil || changed {
		t.Errorf("edit of a deleted message: changed=%v err=%v", changed, err)
	}

	events, err := s.Events(ctx, state.TickFilter{ChannelID: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	deleted := map[string]bool{}
	for _, e := range events {
		deleted[e.PlatformID] = e.Deleted
		if e.PlatformID == "p2" && !e.Changed.Equal(at(11)) {
			t.Errorf("deleted message changed at %v, want %v", e.Changed, at(11))
		}
	}
	equal(t, "deleted marks in events", deleted, map[string]bool{"p1": true, "p2": true, "p3": false, "p4": false})
}

func pids(msgs []state.Message) []string {
	out := make([]string, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, m.PlatformID)
	}
	return out
}
