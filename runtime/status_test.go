package runtime

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

func TestStatuses(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "airi.db"), zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	for _, ch := range []state.Channel{
		{ID: "a", Platform: "telegram", Title: "Ada"},
		{ID: "g", Platform: "satori", Title: "Harbour", Group: true},
	} {
		if err := st.UpsertChannel(ctx, ch); err != nil {
			t.Fatal(err)
		}
	}
	for i, id := range []string{"x1", "x2"} {
		if _, _, err := st.Ingest(ctx, state.Message{ChannelID: "g", PlatformID: id, SenderName: "Bo", Content: "hi", Time: now.Add(time.Duration(i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	ctl := &Controller{Store: st, Now: func() time.Time { return now }}
	if _, err := ctl.Pause(ctx, "a", time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := ctl.SetMode(ctx, "g", state.ModeAddressed); err != nil {
		t.Fatal(err)
	}

	got, err := Statuses(ctx, st, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "a" || got[1].ID != "g" {
		t.Fatalf("statuses = %+v, want a then g", got)
	}
	if a := got[0]; !a.Paused || !a.PausedUntil.Equal(now.Add(time.Hour)) || a.Unread != 0 || a.Title != "Ada" || a.LastTick != nil {
		t.Errorf("a = %+v, want paused for an hour, nothing unread, no tick", a)
	}
	if g := got[1]; g.Paused || !g.PausedUntil.IsZero() || g.Unread != 2 || !g.Group || g.Mode != state.ModeAddressed || g.Platform != "satori" {
		t.Errorf("g = %+v, want running, 2 unread, a group in addressed mode", g)
	}
	later, err := Statuses(ctx, st, now.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if later[0].Paused || !later[0].PausedUntil.IsZero() {
		t.Errorf("a two hours later = %+v, want the pause over", later[0])
	}
}
