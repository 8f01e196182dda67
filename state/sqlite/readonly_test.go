package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

// TestOpenReadOnly reads a database another store has open for writing,
// and refuses to write through it.
func TestOpenReadOnly(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "airi.db")
	rw := open(t, path)
	defer rw.Close()
	if _, _, err := rw.Ingest(ctx, state.Message{ChannelID: "c1", PlatformID: "1", SenderName: "ann", Content: "hi", Time: time.Unix(100, 0)}); err != nil {
		t.Fatal(err)
	}
	ro, err := sqlite.OpenReadOnly(ctx, path, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	msgs, err := ro.Events(ctx, state.TickFilter{})
	if err != nil || len(msgs) != 1 || msgs[0].Content != "hi" {
		t.Fatalf("Events = %v, %v; want the one message", msgs, err)
	}
	if err := ro.SetCursor(ctx, "k", "v"); err == nil {
		t.Error("a write through a read-only store succeeded")
	}
	if _, _, err := rw.Ingest(ctx, state.Message{ChannelID: "c1", PlatformID: "2", SenderName: "ann", Content: "again", Time: time.Unix(101, 0)}); err != nil {
		t.Fatalf("the writer fails beside a reader: %v", err)
	}
	if msgs, _ := ro.Events(ctx, state.TickFilter{}); len(msgs) != 2 {
		t.Errorf("the reader sees %d messages, want 2", len(msgs))
	}

	if _, err := sqlite.OpenReadOnly(ctx, filepath.Join(t.TempDir(), "missing.db"), zaptest.NewLogger(t)); err == nil {
		t.Error("OpenReadOnly of a missing file succeeded")
	}
}

// TestReadOnlySeesChannelChanges reads a channel through a read-only store
// while the writing store changes it: the reader keeps no copy of its own.
func TestReadOnlySeesChannelChanges(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "airi.db")
	rw := open(t, path)
	defer rw.Close()
	if err := rw.UpsertChannel(ctx, state.Channel{ID: "c1", Platform: "telegram", Title: "Old"}); err != nil {
		t.Fatal(err)
	}
	ro, err := sqlite.OpenReadOnly(ctx, path, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	for _, title := range []string{"Old", "New"} {
		if title == "New" {
			if err := rw.UpsertChannel(ctx, state.Channel{ID: "c1", Platform: "telegram", Title: "New"}); err != nil {
				t.Fatal(err)
			}
		}
		for name, s := range map[string]*sqlite.Store{"writer": rw, "reader": ro} {
			ch, err := s.Channel(ctx, "c1")
			if err != nil || ch.Title != title {
				t.Errorf("%s: Channel = %+v, %v; want title %q", name, ch, err, title)
			}
		}
	}
}
