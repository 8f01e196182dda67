package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"
)

func userVersion(t *testing.T, s *Store) int {
	t.Helper()
	var v int
	if err := s.writer.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatalf("read user_version: %v", err)
	}
	return v
}

func tableExists(t *testing.T, s *Store, name string) bool {
	t.Helper()
	var n int
	if err := s.writer.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, name).Scan(&n); err != nil {
		t.Fatalf("look up table %s: %v", name, err)
	}
	return n == 1
}

func TestMigrate(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "airi.db")
	s, err := Open(ctx, path, zaptest.NewLogger(t))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	if got := userVersion(t, s); got != SchemaVersion() {
		t.Fatalf("user_version after Open = %d, want %d", got, SchemaVersion())
	}

	// A failing step leaves the database at the previous whole version:
	// the statements before the error in the same step are rolled back.
	broken := append(append([]string(nil), migrations...), "CREATE TABLE extra (a); CREATE TABLE broken (")
	if err := s.migrate(ctx, broken); err == nil {
		t.Fatal("broken migration: no error")
	}
	if got := userVersion(t, s); got != SchemaVersion() {
		t.Errorf("user_version after a failed step = %d, want %d", got, SchemaVersion())
	}
	if tableExists(t, s, "extra") {
		t.Error("a failed step left part of its work behind")
	}

	// Applying the same list again is a no-op; a new step is applied once.
	next := append(append([]string(nil), migrations...), "CREATE TABLE extra (a)")
	for range 2 {
		if err := s.migrate(ctx, next); err != nil {
			t.Fatalf("migrate: %v", err)
		}
	}
	if got := userVersion(t, s); got != len(next) {
		t.Errorf("user_version = %d, want %d", got, len(next))
	}
	if !tableExists(t, s, "extra") {
		t.Error("new step not applied")
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	// This build does not know version len(next): it refuses the file
	// rather than guess.
	_, err = Open(ctx, path, zaptest.NewLogger(t))
	if err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("Open of a newer schema = %v, want an error naming it newer", err)
	}
}

// TestMigrateHistoryCounts opens a database left at version 1 with
// messages in it: migration 2 counts the existing history.
func TestMigrateHistoryCounts(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "airi.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	stmts := []string{migrations[0], "PRAGMA user_version = 1",
		`INSERT INTO messages (channel_id, content, time, read) VALUES ('a', 'x', 1, 1), ('a', 'y', 2, 1), ('a', 'z', 3, 0), ('b', 'w', 4, 1)`}
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	s, err := Open(ctx, path, zaptest.NewLogger(t))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	for ch, want := range map[string]int{"a": 2, "b": 1, "c": 0} {
		if _, total, err := s.History(ctx, ch, 1); err != nil || total != want {
			t.Errorf("History(%s) total = %d, %v; want %d", ch, total, err, want)
		}
	}
	// The triggers keep counting from there.
	u, err := s.Unread(ctx, "a", 0)
	if err != nil || len(u) != 1 {
		t.Fatalf("Unread = %v, %v", u, err)
	}
	if err := s.MarkRead(ctx, []int64{u[0].ID}); err != nil {
		t.Fatal(err)
	}
	if _, total, _ := s.History(ctx, "a", 1); total != 3 {
		t.Errorf("History(a) total after MarkRead = %d, want 3", total)
	}
}

// TestMigrateQualifiesSenders opens a database left at version 12, where
// a Telegram user and a QQ user (through Satori) share the id 501:
// migration 13 qualifies their messages and the notes about them with
// their platforms, and leaves a note it cannot place matching no one.
func TestMigrateQualifiesSenders(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "airi.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	stmts := append([]string(nil), migrations[:12]...)
	stmts = append(stmts, "PRAGMA user_version = 12",
		`INSERT INTO channels (id, platform, native_id, grp) VALUES ('telegram:501', 'telegram', '501', 0), ('qq:9', 'satori', '9', 1), ('qq:8', 'satori', '8', 1)`,
		`INSERT INTO messages (channel_id, platform_id, sender_id, content, time, read) VALUES
			('telegram:501', '1', '501', 'my pin is 4711', 1, 1), ('qq:9', '2', '501', 'hello', 2, 1), ('qq:8', '3', '777', 'hi', 3, 0), ('qq:8', '4', '', 'bot', 4, 1)`,
		`INSERT INTO ticks (id, channel_id, trigger, now) VALUES (40, 'telegram:501', 'direct', 1)`,
		`INSERT INTO notes (scope, subject, text, created, updated, tick) VALUES
			('user', '501', 'pin 4711', 1, 1, 40), ('user', '777', 'likes tea', 1, 1, 0), ('user', '501', 'unplaced', 1, 1, 0), ('channel', 'qq:9', 'a group', 1, 1, 0)`)
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	s, err := Open(ctx, path, zaptest.NewLogger(t))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	senders := map[string]string{}
	rows, err := s.writer.Query(`SELECT platform_id, sender_id FROM messages`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, sender string
		if err := rows.Scan(&id, &sender); err != nil {
			t.Fatal(err)
		}
		senders[id] = sender
	}
	rows.Close()
	want := map[string]string{"1": "telegram:501", "2": "qq:501", "3": "qq:777", "4": ""}
	for id, w := range want {
		if senders[id] != w {
			t.Errorf("message %s: sender %q, want %q", id, senders[id], w)
		}
	}
	subjects := map[string]string{}
	rows, err = s.writer.Query(`SELECT text, subject FROM notes`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var text, subject string
		if err := rows.Scan(&text, &subject); err != nil {
			t.Fatal(err)
		}
		subjects[text] = subject
	}
	rows.Close()
	for text, w := range map[string]string{"pin 4711": "telegram:501", "likes tea": "qq:777", "unplaced": "501", "a group": "qq:9"} {
		if subjects[text] != w {
			t.Errorf("note %q: subject %q, want %q", text, subjects[text], w)
		}
	}
}
