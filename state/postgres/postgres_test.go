package postgres_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/postgres"
	"github.com/airi-go/airi/state/postgres/pgtest"
	"github.com/airi-go/airi/state/storetest"
)

func open(t testing.TB, dsn string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), dsn, zaptest.NewLogger(t), postgres.Options{Migrate: true})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return s
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) state.Store { return open(t, pgtest.DSN(t)) })
}

func TestUpdateRetention(t *testing.T) {
	s := open(t, pgtest.DSN(t))
	defer s.Close()
	storetest.RunUpdateRetention(t, s, func(now time.Time) { s.Now = func() time.Time { return now } })
}

// TestRestart closes the store and opens the same schema again:
// everything written before is there, and no migration runs twice.
func TestRestart(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := open(t, dsn)
	seeded := storetest.Seed(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	s = open(t, dsn)
	defer s.Close()
	seeded.Check(t, s)
	n, err := s.Migrate(context.Background())
	if err != nil || n != 0 {
		t.Errorf("Migrate on a current schema = %d, %v; want 0, nil", n, err)
	}
	v, err := s.Version(context.Background())
	if err != nil || v != postgres.SchemaVersion() {
		t.Errorf("Version = %d, %v; want %d", v, err, postgres.SchemaVersion())
	}
}

// TestMigrateConcurrently starts several processes' worth of stores on one
// empty schema at once: they wait for each other and all end up on the
// current version (a step applied twice would fail on its version row).
func TestMigrateConcurrently(t *testing.T) {
	dsn := pgtest.DSN(t)
	if s, err := postgres.Open(context.Background(), dsn, zaptest.NewLogger(t), postgres.Options{}); err == nil {
		s.Close()
		t.Fatal("Open without Migrate on an empty schema: no error")
	}
	const n = 4
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := postgres.Open(context.Background(), dsn, zaptest.NewLogger(t), postgres.Options{Migrate: true})
			if err != nil {
				t.Error(err)
				return
			}
			s.Close()
		}()
	}
	wg.Wait()
	s := open(t, dsn)
	defer s.Close()
	if v, err := s.Version(context.Background()); err != nil || v != postgres.SchemaVersion() {
		t.Errorf("Version = %d, %v; want %d", v, err, postgres.SchemaVersion())
	}
}

func TestOpenRejects(t *testing.T) {
	for _, dsn := range []string{"", " ", "postgres://x:secret@[::1", "mysql://nope"} {
		s, err := postgres.Open(context.Background(), dsn, zaptest.NewLogger(t), postgres.Options{})
		if err == nil {
			s.Close()
			t.Errorf("Open(%q): no error", dsn)
			continue
		}
		if got := err.Error(); len(dsn) > 0 && containsSecret(got) {
			t.Errorf("Open(%q) error shows the password: %s", dsn, got)
		}
	}
}

func containsSecret(s string) bool {
	for i := 0; i+6 <= len(s); i++ {
		if s[i:i+6] == "secret" {
			return true
		}
	}
	return false
}

// TestNewerSchema: during a rolling deploy the old build opens a schema a
// newer build migrated, and leaves it as it is.
func TestNewerSchema(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := open(t, dsn)
	ctx := context.Background()
	if _, err := s.Pool().Exec(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, postgres.SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2 := open(t, dsn) // migrates: nothing to do, no error
	defer s2.Close()
	if v, err := s2.Version(ctx); err != nil || v != postgres.SchemaVersion()+1 {
		t.Errorf("Version = %d, %v; want %d", v, err, postgres.SchemaVersion()+1)
	}
}

// TestMigrateQualifiesSenders stores messages and notes as a database
// before migration 10 kept them, where a Telegram user and a QQ user
// (through Satori) share the id 501, and applies migration 10 to them: their
// messages and the notes about them are qualified with their platforms,
// and a note it cannot place matches no one.
func TestMigrateQualifiesSenders(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := open(t, dsn)
	defer s.Close()
	ctx := context.Background()
	for _, q := range []string{
		`INSERT INTO channels (id, platform, native_id, grp) VALUES ('telegram:501', 'telegram', '501', false), ('qq:9', 'satori', '9', true), ('qq:8', 'satori', '8', true)`,
		`INSERT INTO messages (channel_id, platform_id, sender_id, content, time, read) VALUES
			('telegram:501', '1', '501', 'my pin is 4711', now(), true), ('qq:9', '2', '501', 'hello', now(), true), ('qq:8', '3', '777', 'hi', now(), false), ('qq:8', '4', '', 'bot', now(), true)`,
		`INSERT INTO ticks (id, channel_id, trigger, now) OVERRIDING SYSTEM VALUE VALUES (40, 'telegram:501', 'direct', now())`,
		`INSERT INTO notes (scope, subject, text, created, updated, tick) VALUES
			('user', '501', 'pin 4711', now(), now(), 40), ('user', '777', 'likes tea', now(), now(), 0), ('user', '501', 'unplaced', now(), now(), 0), ('channel', 'qq:9', 'a group', now(), now(), 0)`,
	} {
		if _, err := s.Pool().Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// The step as it runs in Migrate, on data as it was before it.
	step, err := os.ReadFile("migrations/0010_qualified_senders.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Pool().Exec(ctx, string(step)); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	rows, err := s.Pool().Query(ctx, `SELECT 'm' || platform_id, sender_id FROM messages UNION ALL SELECT text, subject FROM notes`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		got[k] = v
	}
	rows.Close()
	want := map[string]string{"m1": "telegram:501", "m2": "qq:501", "m3": "qq:777", "m4": "",
		"pin 4711": "telegram:501", "likes tea": "qq:777", "unplaced": "501", "a group": "qq:9"}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %q, want %q", k, got[k], w)
		}
	}
}
