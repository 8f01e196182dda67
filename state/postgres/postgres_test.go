package postgres_test

import (
	"context"
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
