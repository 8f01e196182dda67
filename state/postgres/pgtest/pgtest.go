// Package pgtest gives tests a PostgreSQL schema of their own on the
// server named by AIRI_TEST_DATABASE_URL, so that tests of several
// packages running at once never see each other's rows. Without the
// variable the tests that need it are skipped.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvVar names the variable that enables the PostgreSQL tests, e.g.
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable.
const EnvVar = "AIRI_TEST_DATABASE_URL"

// SkipMessage is the one line a test skipped for want of a server prints.
const SkipMessage = EnvVar + " is not set: skipping the PostgreSQL tests"

// DSN creates a fresh, empty schema and returns a database url whose
// search path selects it; the schema is dropped when the test ends. It
// skips the test when EnvVar is unset.
func DSN(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvVar)
	if base == "" {
		t.Skip(SkipMessage)
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	schema := "airi_test_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to %s: %v", EnvVar, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatalf("create test schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("drop test schema: %v", err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `DROP SCHEMA `+pgx.Identifier{schema}.Sanitize()+` CASCADE`); err != nil {
			t.Errorf("drop test schema: %v", err)
		}
	})
	return WithSchema(t, base, schema)
}

// WithSchema returns dsn with its search path set to schema.
func WithSchema(t testing.TB, dsn, schema string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("%s is not a url: %v", EnvVar, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
