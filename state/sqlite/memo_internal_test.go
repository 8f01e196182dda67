package sqlite

import (
	"context"
	"fmt"
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
	s := openAt(t, filepath.Join(t.TempDir(), "airi.db"))
	ch := state.Channel{ID: "c", Platform: "telegram", NativeID: "c"}
	msg := func(id string) state.Message {
		return state.Message{ChannelID: "c", PlatformID: id, SenderName: "U", Content: "m" + id, Time: time.Unix(1, 0)}
	}
	// Stored first, so that its first message leaves the memo without a
	// view of it, which the fill below reads.
	if err := s.UpsertChannel(ctx, ch); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.IngestIn(ctx, ch, msg("1")); err != nil {
		t.Fatal(err)
	}
	if s.memo.withView("c", func(*view) {}) {
		t.Fatal("a view of a stored channel exists before any read")
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
	s := openAt(t, filepath.Join(t.TempDir(), "airi.db"))
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
	bot := openAt(t, path)
	op, err := OpenShared(ctx, path, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = op.Close() })
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

// TestViewBudget: the views hold at most maxViewMessages messages in all;
// keeping one more drops views of other channels, never the one kept,
// and the count of messages held stays the sum of the views' sizes.
func TestViewBudget(t *testing.T) {
	var m memo
	m.install(&memoLoad{unread: map[string]int{}, actions: map[string]int{}, controls: map[string]state.ChannelControl{}})
	msgs := func(ch string, n int, read bool) []state.Message {
		out := make([]state.Message, n)
		for i := range out {
			out[i] = state.Message{ID: int64(i + 1), ChannelID: ch, Read: read}
		}
		return out
	}
	held := func() int {
		n := 0
		for _, v := range m.views {
			n += v.size()
		}
		return n
	}
	for i := range maxViewMessages / 100 {
		ch := fmt.Sprint("c", i)
		m.keep(ch, &view{hist: msgs(ch, 100, true), total: 100, last: 100})
	}
	if m.held != held() || m.held != maxViewMessages/100*100 {
		t.Fatalf("held %d, views hold %d; want %d", m.held, held(), maxViewMessages/100*100)
	}
	m.keep("big", &view{hist: msgs("big", maxViewHistory, true), total: maxViewHistory, last: maxViewHistory})
	if m.held != held() || m.held > maxViewMessages {
		t.Errorf("held %d, views hold %d; want them equal and at most %d", m.held, held(), maxViewMessages)
	}
	if m.views["big"] == nil {
		t.Error("the view just kept was dropped")
	}
	// A first message adds to the view it creates; a message read moves
	// within it.
	m.stored(state.Message{ID: 500, ChannelID: "new"}, true)
	m.markedRead(map[string][]int64{"new": {500}})
	if v := m.views["new"]; v == nil || len(v.hist) != 1 || v.total != 1 || v.last != 500 {
		t.Fatalf("view of the new channel = %+v", m.views["new"])
	}
	if m.held != held() || m.held > maxViewMessages {
		t.Errorf("held %d, views hold %d; want them equal and at most %d", m.held, held(), maxViewMessages)
	}
	m.drop("big")
	if m.views["big"] != nil || m.held != held() {
		t.Errorf("after a view was dropped: held %d, views hold %d", m.held, held())
	}
}

// TestFirstMessageNeedsNoRead: the view of a channel created by the
// message just stored is known without reading it.
func TestFirstMessageNeedsNoRead(t *testing.T) {
	ctx := context.Background()
	s := openAt(t, filepath.Join(t.TempDir(), "airi.db"))
	m, _, err := s.IngestIn(ctx, state.Channel{ID: "c", Platform: "telegram", NativeID: "c"},
		state.Message{ChannelID: "c", PlatformID: "1", SenderName: "U", Content: "hi", Time: time.Unix(1, 0)})
	if err != nil {
		t.Fatal(err)
	}
	before := s.Work()
	u, err := s.Unread(ctx, "c", 20)
	if err != nil || len(u) != 1 || u[0].ID != m.ID {
		t.Fatalf("unread = %v, %v; want message %d", u, err, m.ID)
	}
	h, total, err := s.History(ctx, "c", 20)
	if err != nil || len(h) != 0 || total != 0 {
		t.Fatalf("history = %v (%d), %v; want none", h, total, err)
	}
	if d := s.Work().Reads - before.Reads; d != 0 {
		t.Errorf("the reads of a channel's first message made %d read transactions, want 0", d)
	}

	// Ingest stores messages of a channel that is not stored; the
	// channel's first IngestIn is then not its first message.
	if _, _, err := s.Ingest(ctx, state.Message{ChannelID: "d", PlatformID: "1", SenderName: "U", Content: "one", Time: time.Unix(1, 0)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.IngestIn(ctx, state.Channel{ID: "d", Platform: "telegram", NativeID: "d"},
		state.Message{ChannelID: "d", PlatformID: "2", SenderName: "U", Content: "two", Time: time.Unix(2, 0)}); err != nil {
		t.Fatal(err)
	}
	if u, err := s.Unread(ctx, "d", 0); err != nil || len(u) != 2 {
		t.Errorf("unread = %v, %v; want both messages", u, err)
	}
}

// TestUnreadCountsPlan: the unread counts are read by seeking from
// channel to channel in messages_channel, not by scanning the messages.
func TestUnreadCountsPlan(t *testing.T) {
	ctx := context.Background()
	s := openAt(t, filepath.Join(t.TempDir(), "airi.db"))
	plan := explain(t, s, unreadCountsSQL, nil)
	if !strings.Contains(plan, "messages_channel") {
		t.Errorf("the plan does not use messages_channel:\n%s", plan)
	}
	for _, bad := range []string{"SCAN messages", "TEMP B-TREE"} {
		if strings.Contains(plan, bad) {
			t.Errorf("the plan has %q:\n%s", bad, plan)
		}
	}
	// Channels without unread messages, and several with, as counted.
	for i, m := range []struct {
		ch   string
		read bool
	}{{"a", true}, {"b", false}, {"b", false}, {"c", true}, {"d", false}} {
		stored, _, err := s.Ingest(ctx, state.Message{ChannelID: m.ch, PlatformID: fmt.Sprint(i), SenderName: "U", Content: "m", Time: time.Unix(1, 0)})
		if err != nil {
			t.Fatal(err)
		}
		if m.read {
			if err := s.MarkRead(ctx, []int64{stored.ID}); err != nil {
				t.Fatal(err)
			}
		}
	}
	l, err := readMemoLoad(ctx, s.reader)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.unread) != 2 || l.unread["b"] != 2 || l.unread["d"] != 1 {
		t.Errorf("unread counts = %v, want b: 2, d: 1", l.unread)
	}
}
