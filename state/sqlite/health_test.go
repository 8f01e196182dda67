package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/airi-go/airi/state"
)

// TestNewFileIsPrivate checks that a database made by Open is the owner's
// only, and so are the journal files SQLite makes beside it.
func TestNewFileIsPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "airi.db")
	s, err := Open(context.Background(), path, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.exec(context.Background(), `INSERT INTO cursors (key, value) VALUES ('k', 'v')`); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if perm := st.Mode().Perm(); perm != 0o600 {
			t.Errorf("%s: mode %o, want 600", filepath.Base(p), perm)
		}
	}
}

// TestWriteFailuresLoggedOncePerChange makes every write fail for a while,
// then succeed again: one line says writes fail, one that they recovered,
// however many writes failed in between.
func TestWriteFailuresLoggedOncePerChange(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "airi.db"), zap.New(core))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	msg := func(i int) state.Message {
		return state.Message{ChannelID: "c1", SenderName: "ann", Content: "hi", Time: time.Unix(int64(1000+i), 0)}
	}
	if _, _, err := s.Ingest(ctx, msg(0)); err != nil {
		t.Fatal(err)
	}
	if s.WriteErr() != nil {
		t.Fatalf("WriteErr after a good write: %v", s.WriteErr())
	}
	// query_only makes SQLite refuse every write on the writer connection,
	// as a read-only file would.
	if _, err := s.writer.ExecContext(ctx, `PRAGMA query_only = 1`); err != nil {
		t.Fatal(err)
	}
	const failed = 10
	for i := range failed {
		var err error
		switch i % 3 {
		case 0:
			_, _, err = s.Ingest(ctx, msg(i+1))
		case 1:
			err = s.SetCursor(ctx, "k", "v")
		default:
			_, err = s.AppendAction(ctx, state.ActionRecord{ChannelID: "c1", Name: "continue", Time: time.Unix(1, 0)})
		}
		if err == nil {
			t.Fatalf("write %d succeeded on a read-only connection", i)
		}
	}
	if s.WriteErr() == nil {
		t.Error("WriteErr is nil while writes fail")
	}
	if _, err := s.writer.ExecContext(ctx, `PRAGMA query_only = 0`); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Ingest(ctx, msg(100)); err != nil {
		t.Fatal(err)
	}
	if s.WriteErr() != nil {
		t.Errorf("WriteErr after recovery: %v", s.WriteErr())
	}
	failing := logs.FilterMessageSnippet("writes are failing").Len()
	recovered := logs.FilterMessageSnippet("writes recovered").All()
	if failing != 1 || len(recovered) != 1 {
		t.Fatalf("%d failing and %d recovered lines, want 1 and 1; all: %v", failing, len(recovered), logs.All())
	}
	if n := recovered[0].ContextMap()["failed_writes"]; n != int64(failed) {
		t.Errorf("recovered line counts %v failed writes, want %d", n, failed)
	}
	if n := logs.FilterLevelExact(zapcore.ErrorLevel).Len() + logs.FilterLevelExact(zapcore.WarnLevel).Len(); n != 1 {
		t.Errorf("%d warnings and errors logged, want 1: %v", n, logs.All())
	}
}

// TestWritableProbes checks that Writable says writes fail while they do,
// and that it finds them working again by itself, with no other write.
func TestWritableProbes(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "airi.db"), zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Writable(ctx); err != nil {
		t.Fatalf("Writable on a new store: %v", err)
	}
	if _, err := s.writer.ExecContext(ctx, `PRAGMA query_only = 1`); err != nil {
		t.Fatal(err)
	}
	if err := s.SetCursor(ctx, "k", "v"); err == nil {
		t.Fatal("a write succeeded on a read-only connection")
	}
	if err := s.Writable(ctx); err == nil {
		t.Error("Writable is nil while writes fail")
	}
	if _, err := s.writer.ExecContext(ctx, `PRAGMA query_only = 0`); err != nil {
		t.Fatal(err)
	}
	if err := s.Writable(ctx); err != nil {
		t.Errorf("Writable once writes work again: %v", err)
	}
	if s.WriteErr() != nil {
		t.Errorf("WriteErr after the probe succeeded: %v", s.WriteErr())
	}
}
