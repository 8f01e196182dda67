package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/state"
)

// TestMemoFillSpoiled: a view read from the database before a commit
// that changed the channel, and kept after it, would miss that commit;
// the commit spoils the fill and the view is not kept. The order is made
// by hand here, as it happens when a reader and the writer overlap.
func TestMemoFillSpoiled(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "airi.db"), zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ch := state.Channel{ID: "c", Platform: "telegram", NativeID: "c"}
	msg := func(id string) state.Message {
		return state.Message{ChannelID: "c", PlatformID: id, SenderName: "U", Content: "m" + id, Time: time.Unix(1, 0)}
	}
	if _, _, err := s.IngestIn(ctx, ch, msg("1")); err != nil {
		t.Fatal(err)
	}
	f, ok := s.memo.startFill("c")
	if !ok {
		t.Fatal("no fill started")
	}
	v, whole, err := s.readView(ctx, "c", viewHistory)
	if err != nil || !whole || len(v.unread) != 1 {
		t.Fatalf("view = %+v, %v, %v; want one unread message", v, whole, err)
	}
	// Committed between the fill's read and its end.
	if _, _, err := s.IngestIn(ctx, ch, msg("2")); err != nil {
		t.Fatal(err)
	}
	s.memo.endFill("c", f, v, whole)
	u, err := s.Unread(ctx, "c", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(u) != 2 {
		t.Errorf("unread = %d messages after a fill overlapped a commit, want 2", len(u))
	}
}

// TestViewPlan: the read of a channel's view takes its unread and its
// newest history messages from the index messages_channel, sorting
// nothing and scanning no table.
func TestViewPlan(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "airi.db"), zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	plan := explain(t, s, viewSQL, []any{"c", maxViewUnread + 1, viewHistory})
	if n := strings.Count(plan, "USING INDEX messages_channel (channel_id=? AND read=?)"); n != 2 {
		t.Errorf("%d of the two parts read the index messages_channel:\n%s", n, plan)
	}
	for _, bad := range []string{"SCAN messages", "TEMP B-TREE"} {
		if strings.Contains(plan, bad) {
			t.Errorf("the plan has %q:\n%s", bad, plan)
		}
	}
}

// TestMemoSeesOtherWriters: `airi channel pause|reset` and `airi forget`
// write the database beside the running bot. The bot's store sees such a
// write at its next commit, and within maxUnchecked when it commits
// nothing.
func TestMemoSeesOtherWriters(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "airi.db")
	bot, err := Open(ctx, path, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer bot.Close()
	op, err := Open(ctx, path, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	ch := state.Channel{ID: "c", Platform: "telegram", NativeID: "c"}
	msg := func(id string) state.Message {
		return state.Message{ChannelID: "c", PlatformID: id, SenderName: "U", Content: "m" + id, Time: time.Unix(1, 0)}
	}
	if _, _, err := bot.IngestIn(ctx, ch, msg("1")); err != nil {
		t.Fatal(err)
	}
	if u, err := bot.Unread(ctx, "c", 0); err != nil || len(u) != 1 {
		t.Fatalf("unread = %v, %v", u, err)
	}
	if c, err := bot.ChannelControl(ctx, "c"); err != nil || c.Paused {
		t.Fatalf("control = %+v, %v", c, err)
	}

	// The operator pauses and resets the channel; the bot commits nothing.
	if err := op.SetChannelControl(ctx, state.ChannelControl{ChannelID: "c", Paused: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := op.ResetChannel(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * maxUnchecked)
	if c, err := bot.ChannelControl(ctx, "c"); err != nil || !c.Paused {
		t.Errorf("control = %+v, %v after the operator paused the channel", c, err)
	}
	if u, err := bot.Unread(ctx, "c", 0); err != nil || len(u) != 0 {
		t.Errorf("unread = %v, %v after the operator reset the channel", u, err)
	}
	if n, err := bot.CountUnreadAfter(ctx, "c", 0); err != nil || n != 0 {
		t.Errorf("unread count = %d, %v after the reset", n, err)
	}

	// The operator resumes it; the bot's next commit sees it at once.
	if err := op.SetChannelControl(ctx, state.ChannelControl{ChannelID: "c"}); err != nil {
		t.Fatal(err)
	}
	m2, _, err := bot.IngestIn(ctx, ch, msg("2"))
	if err != nil {
		t.Fatal(err)
	}
	if c, err := bot.ChannelControl(ctx, "c"); err != nil || c.Paused {
		t.Errorf("control = %+v, %v after the operator resumed the channel", c, err)
	}
	if u, err := bot.Unread(ctx, "c", 0); err != nil || len(u) != 1 || u[0].ID != m2.ID {
		t.Errorf("unread = %v, %v; want message %d alone", u, err, m2.ID)
	}
}
