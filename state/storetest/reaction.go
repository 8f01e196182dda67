package storetest

import (
	"context"
	"testing"

	"github.com/airi-go/airi/state"
)

func testReactions(t *testing.T, s state.Store) {
	ctx := context.Background()
	own := msg("c1", "812", 1)
	own.Self, own.SenderName = true, "airi"
	ingest(t, s, own)
	ingest(t, s, msg("c1", "813", 2)) // someone else's
	ingest(t, s, msg("c2", "812", 3)) // the same id in another chat

	if _, err := s.AddReaction(ctx, state.Reaction{ChannelID: "c1", MessageID: "812", Time: at(4)}); err == nil {
		t.Error("AddReaction without an emoji: no error")
	}
	cases := []struct {
		r    state.Reaction
		want bool
	}{
		{state.Reaction{ChannelID: "c1", MessageID: "812", SenderID: "u1", SenderName: "Ada", Emoji: "👍", Time: at(5)}, true},
		{state.Reaction{ChannelID: "c1", MessageID: "813", SenderID: "u1", SenderName: "Ada", Emoji: "👍", Time: at(6)}, false},
		{state.Reaction{ChannelID: "c2", MessageID: "812", SenderID: "u1", SenderName: "Ada", Emoji: "👍", Time: at(7)}, false},
		{state.Reaction{ChannelID: "c1", MessageID: "999", SenderID: "u1", SenderName: "Ada", Emoji: "👍", Time: at(8)}, false},
		{state.Reaction{ChannelID: "c1", MessageID: "812", SenderID: "b1", SenderName: "Bob", FromBot: true, Emoji: "🔥", Removed: true, Time: at(9)}, true},
		// The first again, as an update received twice.
		{state.Reaction{ChannelID: "c1", MessageID: "812", SenderID: "u1", SenderName: "Ada", Emoji: "👍", Time: at(5)}, false},
	}
	for _, c := range cases {
		got, err := s.AddReaction(ctx, c.r)
		if err != nil {
			t.Fatalf("AddReaction(%s/%s): %v", c.r.ChannelID, c.r.MessageID, err)
		}
		if got != c.want {
			t.Errorf("AddReaction(%s/%s) stored = %v, want %v", c.r.ChannelID, c.r.MessageID, got, c.want)
		}
	}
	got, err := s.NewReactions(ctx, "c1", 0)
	if err != nil {
		t.Fatalf("NewReactions: %v", err)
	}
	if len(got) != 2 {
		t.Fatalf("NewReactions = %d reactions, want 2: %+v", len(got), got)
	}
	first, second := got[0], got[1]
	if first.ID >= second.ID {
		t.Errorf("reaction ids %d, %d not increasing", first.ID, second.ID)
	}
	first.ID, second.ID = 0, 0
	first.Time, second.Time = first.Time.UTC().Round(0), second.Time.UTC().Round(0)
	equal(t, "first reaction", first, cases[0].r)
	equal(t, "second reaction", second, cases[4].r)
	if one, err := s.NewReactions(ctx, "c1", 1); err != nil || len(one) != 1 || one[0].ID != got[0].ID {
		t.Errorf("NewReactions(limit 1) = %+v, %v; want the oldest", one, err)
	}
	if other, err := s.NewReactions(ctx, "c2", 0); err != nil || len(other) != 0 {
		t.Errorf("NewReactions(c2) = %+v, %v; want none", other, err)
	}
	if err := s.MarkReactionsShown(ctx, []int64{got[0].ID, 1 << 40}); err != nil {
		t.Fatalf("MarkReactionsShown: %v", err)
	}
	left, err := s.NewReactions(ctx, "c1", 0)
	if err != nil || len(left) != 1 || left[0].ID != got[1].ID {
		t.Errorf("NewReactions after marking the first shown = %+v, %v; want the second only", left, err)
	}
	if err := s.MarkReactionsShown(ctx, nil); err != nil {
		t.Errorf("MarkReactionsShown(nil): %v", err)
	}

	// Shown or not, every stored reaction is exported, filtered on time.
	all, err := s.ReactionEvents(ctx, state.TickFilter{ChannelID: "c1"})
	if err != nil || len(all) != 2 || all[0].ID != got[0].ID || all[1].ID != got[1].ID {
		t.Errorf("ReactionEvents(c1) = %+v, %v; want both, in id order", all, err)
	}
	if late, err := s.ReactionEvents(ctx, state.TickFilter{Since: at(6)}); err != nil || len(late) != 1 || late[0].ID != got[1].ID {
		t.Errorf("ReactionEvents(since 6) = %+v, %v; want the second only", late, err)
	}
	if other, err := s.ReactionEvents(ctx, state.TickFilter{ChannelID: "c2"}); err != nil || len(other) != 0 {
		t.Errorf("ReactionEvents(c2) = %+v, %v; want none", other, err)
	}
	testReactionCounts(t, s)
}

// testReactionCounts: a sender's latest reaction with an emoji decides
// whether it counts; a removal takes theirs off.
func testReactionCounts(t *testing.T, s state.Store) {
	ctx := context.Background()
	for i, id := range []string{"900", "901"} {
		own := msg("c9", id, 20+i)
		own.Self, own.SenderName = true, "airi"
		ingest(t, s, own)
	}
	for i, r := range []state.Reaction{
		{MessageID: "900", SenderID: "u1", Emoji: "🔥"},
		{MessageID: "900", SenderID: "u2", Emoji: "🔥"},
		{MessageID: "900", SenderID: "u3", Emoji: "👍"},
		{MessageID: "900", SenderID: "u3", Emoji: "👍", Removed: true},
		{MessageID: "900", SenderID: "u4", Emoji: "👍", Removed: true},
		{MessageID: "900", SenderID: "u4", Emoji: "👍"},
		{MessageID: "901", SenderID: "u1", Emoji: "❤"},
	} {
		r.ChannelID, r.SenderName, r.Time = "c9", r.SenderID, at(30+i)
		if ok, err := s.AddReaction(ctx, r); err != nil || !ok {
			t.Fatalf("AddReaction(%+v) = %v, %v", r, ok, err)
		}
	}
	got, err := s.ReactionCounts(ctx, "c9", []string{"900", "901", "999"})
	if err != nil {
		t.Fatalf("ReactionCounts: %v", err)
	}
	want := []state.ReactionCount{{MessageID: "900", Emoji: "🔥", Count: 2}, {MessageID: "900", Emoji: "👍", Count: 1}, {MessageID: "901", Emoji: "❤", Count: 1}}
	equal(t, "reaction counts", got, want)
	if none, err := s.ReactionCounts(ctx, "c9", nil); err != nil || len(none) != 0 {
		t.Errorf("ReactionCounts(no messages) = %+v, %v; want none", none, err)
	}
	if other, err := s.ReactionCounts(ctx, "c1", []string{"900"}); err != nil || len(other) != 0 {
		t.Errorf("ReactionCounts(c1, 900) = %+v, %v; want none", other, err)
	}
}
