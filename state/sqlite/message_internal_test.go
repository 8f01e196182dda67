package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airi-go/airi/state"
)

// TestRecentOwnPlan checks that the repeat check's read walks the
// channel's history down the index messages_channel, newest first, cut by
// the scan limit: a busy channel's older history is neither read nor
// sorted, and no temporary list of ids is built.
func TestRecentOwnPlan(t *testing.T) {
	s := openAt(t, filepath.Join(t.TempDir(), "airi.db"))
	plan := explain(t, s, recentOwnSQL, []any{"c", 100})
	if !strings.Contains(plan, "USING INDEX messages_channel (channel_id=? AND read=?)") {
		t.Errorf("the window is not read from the index messages_channel:\n%s", plan)
	}
	for _, bad := range []string{"SCAN messages", "TEMP B-TREE", "SUBQUERY"} {
		if strings.Contains(plan, bad) {
			t.Errorf("plan has %q:\n%s", bad, plan)
		}
	}
}

// TestChannelCacheDropsStaleReads: a channel read before an upsert and
// put in the cache after it (a read racing the write) is not kept; the
// cache keeps what the upsert stored.
func TestChannelCacheDropsStaleReads(t *testing.T) {
	ctx := context.Background()
	s := openAt(t, filepath.Join(t.TempDir(), "airi.db"))
	if err := s.UpsertChannel(ctx, state.Channel{ID: "c", Platform: "telegram", Title: "old"}); err != nil {
		t.Fatal(err)
	}
	gen := s.chans.generation() // a read begins
	if err := s.UpsertChannel(ctx, state.Channel{ID: "c", Platform: "telegram", Title: "new"}); err != nil {
		t.Fatal(err)
	}
	s.chans.put(gen, state.Channel{ID: "c", Platform: "telegram", Title: "old"}) // and ends
	ch, err := s.Channel(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if ch.Title != "new" {
		t.Errorf("channel title %q after a stale read, want %q", ch.Title, "new")
	}
}
