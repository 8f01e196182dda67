package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"go.uber.org/zap/zaptest"
)

func autoVacuum(t *testing.T, s *Store) int {
	t.Helper()
	var mode int
	if err := s.writer.QueryRow("PRAGMA auto_vacuum").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	return mode
}

// TestReclaimConvertsOlderFiles: a new file uses incremental vacuum from
// the start; a file made without it is converted by the first Reclaim.
func TestReclaimConvertsOlderFiles(t *testing.T) {
	ctx := context.Background()
	fresh, err := Open(ctx, filepath.Join(t.TempDir(), "new.db"), zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if mode := autoVacuum(t, fresh); mode != 2 {
		t.Errorf("new file: auto_vacuum %d, want 2 (incremental)", mode)
	}

	path := filepath.Join(t.TempDir(), "old.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec("CREATE TABLE older (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	_ = raw.Close()
	old, err := Open(ctx, path, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if mode := autoVacuum(t, old); mode != 0 {
		t.Fatalf("older file: auto_vacuum %d before Reclaim, want 0", mode)
	}
	for range 2 { // converts, then vacuums incrementally
		if err := old.Reclaim(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if mode := autoVacuum(t, old); mode != 2 {
		t.Errorf("older file after Reclaim: auto_vacuum %d, want 2", mode)
	}
}
