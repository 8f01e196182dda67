// Package postgres is the state engine for several processes serving one
// bot: a PostgreSQL database reached through a pgx connection pool, with
// versioned migrations embedded in the binary. Besides state.Store it
// keeps the replica tables: which processes are alive, which one drives
// each channel (leases) and which one holds each platform intake (roles).
package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"

	"github.com/airi-go/airi/state"
)

var _ state.Store = (*Store)(nil)

// Options configure Open.
type Options struct {
	// Migrate applies pending migrations before the store is used. Without
	// it, Open fails when the schema is not the one this build knows.
	Migrate bool
	// MaxConns bounds the connection pool (default 8).
	MaxConns int32
}

// Store is a state.Store backed by PostgreSQL. It is safe for concurrent
// use by many goroutines and by many processes on the same database.
type Store struct {
	// Now is the clock used to stamp outbox entries. Open sets it to
	// time.Now; tests may replace it before first use.
	Now func() time.Time

	pool   *pgxpool.Pool
	logger *zap.Logger
	// schema is the schema the tables live in (the first of the search
	// path), which also names the notification channel.
	schema string

	mu      sync.Mutex
	replica *Replica // set while this process runs as a replica

	closeOnce sync.Once
}

// Open connects to the database at dsn (a postgres:// URL or a key=value
// string; a search_path parameter selects the schema) and, with
// opts.Migrate, applies pending migrations. A schema behind this build
// is an error; a newer one (a rolling deploy under way) is accepted.
func Open(ctx context.Context, dsn string, logger *zap.Logger, opts Options) (_ *Store, err error) {
	if logger == nil {
		logger = zap.NewNop()
	}
	if strings.TrimSpace(dsn) == "" {
		return nil, errors.New("open postgres store: empty database url")
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// The parse error may quote the URL with its password: keep it out.
		return nil, fmt.Errorf("open postgres store: invalid database url: %w", redactErr(err))
	}
	cfg.MaxConns = opts.MaxConns
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = 8
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open postgres store %s: %w", cfg.ConnConfig.Host, err)
	}
	s := &Store{Now: time.Now, pool: pool, logger: logger.Named("postgres")}
	defer func() {
		if err != nil {
			pool.Close()
		}
	}()
	where := fmt.Sprintf("%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
	if err := pool.QueryRow(ctx, `SELECT coalesce(current_schema(), '')`).Scan(&s.schema); err != nil {
		return nil, fmt.Errorf("open postgres store %s: %w", where, err)
	}
	if s.schema == "" {
		return nil, fmt.Errorf("open postgres store %s: no schema on the search path", where)
	}
	if opts.Migrate {
		if _, err := s.Migrate(ctx); err != nil {
			return nil, fmt.Errorf("open postgres store %s: %w", where, err)
		}
	}
	v, err := s.Version(ctx)
	if err != nil {
		return nil, fmt.Errorf("open postgres store %s: %w", where, err)
	}
	switch {
	case v < SchemaVersion():
		return nil, fmt.Errorf("open postgres store %s: schema version %d, this build needs %d: run `airi migrate`", where, v, SchemaVersion())
	case v > SchemaVersion():
		// Migrations only add, so an older build keeps working during a
		// rolling deploy.
		s.logger.Info("the schema is newer than this build", zap.Int("schema", v), zap.Int("build", SchemaVersion()))
	}
	return s, nil
}

// Close releases the store's connections. It is safe to call more than once.
func (s *Store) Close() error {
	s.closeOnce.Do(s.pool.Close)
	return nil
}

// Schema returns the schema the store's tables live in.
func (s *Store) Schema() string { return s.schema }

// redactErr keeps the message of a connection string parse error without
// the string itself.
func redactErr(err error) error {
	msg := err.Error()
	if i := strings.Index(msg, "postgres"); i >= 0 && strings.Contains(msg[i:], "@") {
		return errors.New("cannot parse the url")
	}
	return err
}

// tsArg stores a time as timestamptz; the zero time is stored as NULL.
func tsArg(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

// decTS is the inverse of tsArg; times come back in UTC.
func decTS(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

// normTime is what a time looks like after a round trip through the store:
// PostgreSQL keeps microseconds.
func normTime(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.Truncate(time.Microsecond).UTC()
}

// rawArg stores raw JSON as text, NULL when empty.
func rawArg(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}

// decRaw is the inverse of rawArg.
func decRaw(s *string) []byte {
	if s == nil || *s == "" {
		return nil
	}
	return []byte(*s)
}

// limitArg maps "limit <= 0 means all" onto LIMIT NULL.
func limitArg(limit int) any {
	if limit <= 0 {
		return nil
	}
	return limit
}

// collect scans every row of a query into a slice.
func collect[T any](rows pgx.Rows, err error, scan func(pgx.Row) (T, error)) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// replicaID returns the id of the running replica, or "".
func (s *Store) replicaID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replica == nil {
		return ""
	}
	return s.replica.id
}

// currentReplica returns the running replica, or nil.
func (s *Store) currentReplica() *Replica {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.replica
}

// Pool returns the store's connection pool, for operations and tests that
// read the replica tables directly.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// lazyCommit runs one statement in a transaction whose commit does not
// wait for the WAL to reach disk (synchronous_commit off for that
// transaction alone), in one round trip: the setting and the statement go
// in one pipeline, which PostgreSQL runs as one implicit transaction.
//
// It is for records whose loss in a crash of the database server (not of
// airi: a committed transaction is visible at once and survives the
// process) costs neither a message nor a send: tick records, action
// history, read marks. The next commit that does wait (a stored message, an
// outbox claim) flushes the WAL up to it, and with it every lazy commit
// before it; a read mark lost with the last fraction of a second of
// lazy commits shows its message again, which is the safe direction.
// scan, when set, reads the statement's row.
func (s *Store) lazyCommit(ctx context.Context, scan func(pgx.Row) error, query string, args ...any) error {
	b := &pgx.Batch{}
	b.Queue(`SELECT set_config('synchronous_commit', 'off', true)`)
	q := b.Queue(query, args...)
	if scan != nil {
		q.QueryRow(func(row pgx.Row) error { return scan(row) })
	}
	return s.pool.SendBatch(ctx, b).Close()
}

// Ping checks that the database answers; readiness checks call it.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("ping postgres: %w", err)
	}
	return nil
}
