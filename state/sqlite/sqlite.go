// Package sqlite is the default state engine: one SQLite file (pure Go,
// modernc.org/sqlite) in WAL mode, with versioned migrations applied at
// Open. Writes go through a single connection, so they are serialized in
// the process; reads use a small pool of read-only connections and never
// wait for a writer.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/airi-go/airi/state"
)

var _ state.Store = (*Store)(nil)

// BusyTimeout is how long a connection waits for a lock held by another
// process (an export run against a live database) before failing.
const BusyTimeout = 5 * time.Second

// maxReaders bounds the read-only connections; reads are short, so a few
// cover every channel loop and adapter of one process.
const maxReaders = 4

// Store is a state.Store backed by one SQLite file. It is safe for
// concurrent use by many goroutines.
type Store struct {
	// Now is the clock used to stamp outbox entries. Open sets it to
	// time.Now; tests may replace it before first use.
	Now func() time.Time

	path   string
	logger *zap.Logger
	writer *sql.DB // one connection: writes are serialized here
	reader *sql.DB // read-only connections

	// stmts caches prepared statements by query text, per pool: parsing
	// is a large share of a small statement's cost.
	mu    sync.Mutex
	stmts map[stmtKey]*sql.Stmt

	health *writeHealth
	stats  counters

	batcher batcher      // group commit (commit.go)
	chans   channelCache // channels read (channel.go)
	memo    memo         // what ticks read (memo.go)
	bases   bases        // the system messages of tick requests (base.go)
	// wmu orders the commits that change what the memo keeps with their
	// application to it: a batch of writes, or an operation's transaction.
	wmu sync.Mutex

	// lock is the database's process lock, held from Open to Close; nil
	// for a store opened read-only or with OpenShared.
	lock *fileLock

	closeOnce sync.Once
	closeErr  error
}

// Work counts what a store asked of SQLite since it was opened: the
// statements it ran and the transactions they ran in. A statement run
// outside a transaction is a transaction of its own.
type Work struct {
	Statements int64 `json:"statements"`
	Writes     int64 `json:"write_transactions"`
	Reads      int64 `json:"read_transactions"`
}

type counters struct{ stmts, writes, reads atomic.Int64 }

// Work returns the counts of statements and transactions so far.
func (s *Store) Work() Work {
	return Work{Statements: s.stats.stmts.Load(), Writes: s.stats.writes.Load(), Reads: s.stats.reads.Load()}
}

type stmtKey struct {
	db    *sql.DB
	query string
}

// Open opens (creating it and its parent directory if needed) the database
// file at path and applies any pending migrations, each in its own
// transaction. A new file is made readable by its owner only. A database
// that cannot be written gives an error wrapping ErrNotWritable.
//
// The store holds the exclusive lock of the file beside the database
// (LockPath) until Close: one process writes a database, so that no
// message is answered twice. When another process holds it, the error is
// an *InUseError, which wraps ErrInUse.
func Open(ctx context.Context, path string, logger *zap.Logger) (*Store, error) {
	return open(ctx, path, logger, true)
}

// OpenShared opens the database at path for writing like Open, without
// its lock: for the short transactions of an operator's command beside
// the process that holds it (WAL mode lets them in).
func OpenShared(ctx context.Context, path string, logger *zap.Logger) (*Store, error) {
	return open(ctx, path, logger, false)
}

func open(ctx context.Context, path string, logger *zap.Logger, exclusive bool) (_ *Store, err error) {
	if logger == nil {
		logger = zap.NewNop()
	}
	if strings.TrimSpace(path) == "" {
		return nil, errors.New("open sqlite store: empty path")
	}
	if path == ":memory:" || strings.ContainsAny(path, "?#") || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("open sqlite store %q: need a plain file path", path)
	}
	// The file holds private conversations: a directory made here is
	// the owner's only.
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("open sqlite store %q: %w", path, err)
		}
	}

	var lock *fileLock
	if exclusive {
		lock, err = lockDatabase(path)
		switch {
		case errors.Is(err, ErrInUse):
			return nil, err
		case err != nil && deniedWrite(err):
			return nil, fmt.Errorf("open sqlite store %q: %w: %w", path, ErrNotWritable, err)
		case err != nil:
			return nil, err
		}
	}
	created, err := createFile(path)
	if err != nil {
		lock.release()
		if errors.Is(err, os.ErrPermission) {
			return nil, fmt.Errorf("open sqlite store %q: %w: %w", path, ErrNotWritable, err)
		}
		return nil, fmt.Errorf("open sqlite store %q: %w", path, err)
	}

	s := &Store{Now: time.Now, path: path, logger: logger.Named("sqlite"), stmts: map[stmtKey]*sql.Stmt{}, lock: lock}
	s.health = &writeHealth{log: s.logger, now: time.Now}
	defer func() {
		if err != nil {
			_ = s.Close()
		}
	}()

	if created {
		// Pages freed by retention go back to the file system with
		// incremental vacuum, which must be chosen before the file is
		// switched to WAL and before the first table. Older files are
		// converted once by Reclaim.
		if err := initVacuum(ctx, path); err != nil {
			return nil, fmt.Errorf("open sqlite store %q: %w", path, err)
		}
	}

	pragmas := connPragmas()

	// Immediate transactions take the write lock at BEGIN, so a writer in
	// another process makes us wait (busy timeout) instead of failing
	// halfway through a transaction.
	s.writer, err = sql.Open("sqlite", path+"?"+pragmas+"&_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("open sqlite store %q: %w", path, err)
	}
	s.writer.SetMaxOpenConns(1)
	s.writer.SetMaxIdleConns(1)
	s.writer.SetConnMaxLifetime(0)
	s.writer.SetConnMaxIdleTime(0)

	if err := s.migrate(ctx, migrations); err != nil {
		if notWritable(err) {
			return nil, fmt.Errorf("open sqlite store %q: %w: %w", path, ErrNotWritable, err)
		}
		return nil, fmt.Errorf("open sqlite store %q: %w", path, err)
	}
	// Nothing may be received that cannot be stored: find out now, not at
	// the first message.
	if err := probeWrite(ctx, s.writer); err != nil {
		if notWritable(err) {
			return nil, fmt.Errorf("open sqlite store %q: %w: %w", path, ErrNotWritable, err)
		}
		return nil, fmt.Errorf("open sqlite store %q: check writes: %w", path, err)
	}

	if err := s.openReader(ctx, pragmas); err != nil {
		return nil, err
	}
	if err := s.loadMemo(ctx); err != nil {
		return nil, fmt.Errorf("open sqlite store %q: %w", path, err)
	}
	chans, err := s.Channels(ctx)
	if err != nil {
		return nil, fmt.Errorf("open sqlite store %q: %w", path, err)
	}
	s.chans.load(chans)
	s.batcher.on = true
	return s, nil
}

// connPragmas are the settings of every connection.
func connPragmas() string {
	return fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)",
		BusyTimeout.Milliseconds())
}

// openReader opens the pool of read-only connections and prepares the
// statements run inside transactions.
func (s *Store) openReader(ctx context.Context, pragmas string) (err error) {
	path := s.path
	s.reader, err = sql.Open("sqlite", path+"?"+pragmas+"&_pragma=query_only(1)")
	if err != nil {
		return fmt.Errorf("open sqlite store %q: %w", path, err)
	}
	s.reader.SetMaxOpenConns(maxReaders)
	s.reader.SetMaxIdleConns(maxReaders)
	s.reader.SetConnMaxLifetime(0)
	s.reader.SetConnMaxIdleTime(0)
	if s.writer == nil {
		// A read-only store: its writes fail on a query-only connection.
		s.writer = s.reader
	}
	if err := s.reader.PingContext(ctx); err != nil {
		return fmt.Errorf("open sqlite store %q: %w", path, err)
	}
	for _, q := range txQueries {
		if _, err := s.prepare(ctx, s.writer, q); err != nil {
			return fmt.Errorf("open sqlite store %q: prepare: %w", path, err)
		}
	}
	return nil
}

// Path returns the database file the store was opened on.
func (s *Store) Path() string { return s.path }

// Close releases the store. It is safe to call more than once.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		var errs []error
		s.mu.Lock()
		for _, st := range s.stmts {
			errs = append(errs, st.Close())
		}
		s.stmts = nil
		s.mu.Unlock()
		if s.reader != nil {
			errs = append(errs, s.reader.Close())
		}
		if s.writer != nil && s.writer != s.reader {
			// Let SQLite refresh its planner statistics; cheap, and it
			// keeps long-lived databases fast.
			_, _ = s.writer.Exec("PRAGMA optimize")
			errs = append(errs, s.writer.Close())
		}
		if err := errors.Join(errs...); err != nil {
			s.closeErr = fmt.Errorf("close sqlite store %q: %w", s.path, err)
		}
		// Given up last: the next process may write once the file is closed.
		s.lock.release()
	})
	return s.closeErr
}

// prepare returns the cached prepared statement for query on db. The
// lock is not held while preparing, which waits for a connection of db.
func (s *Store) prepare(ctx context.Context, db *sql.DB, query string) (*sql.Stmt, error) {
	k := stmtKey{db, query}
	s.mu.Lock()
	st, ok := s.stmts[k]
	closed := s.stmts == nil
	s.mu.Unlock()
	if ok {
		return st, nil
	}
	if closed {
		return nil, errors.New("store closed")
	}
	st, err := db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev, ok := s.stmts[k]; ok { // prepared meanwhile by another caller
		_ = st.Close()
		return prev, nil
	}
	if s.stmts == nil {
		_ = st.Close()
		return nil, errors.New("store closed")
	}
	s.stmts[k] = st
	return st, nil
}

// writeStmt prepares query on the writer connection and runs it with
// run, batched with the writes arriving at the same time.
func (s *Store) writeStmt(ctx context.Context, query string, run func(ctx context.Context, st *sql.Stmt) error) error {
	return s.writeStmtApply(ctx, query, run, nil)
}

// writeStmtApply is writeStmt for a write that changes what the memo
// keeps: apply applies it once committed (see writeReq.apply).
func (s *Store) writeStmtApply(ctx context.Context, query string, run func(ctx context.Context, st *sql.Stmt) error, apply func(m *memo)) error {
	st, err := s.prepare(ctx, s.writer, query)
	if err != nil {
		s.health.observe(err)
		return err
	}
	return s.batchStmt(ctx, st, run, apply)
}

// exec runs a write statement on the writer connection, batched with
// others arriving at the same time.
func (s *Store) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return s.execApply(ctx, nil, query, args...)
}

// execApply is exec for a write that changes what the memo keeps: apply
// applies it once committed (see writeReq.apply).
func (s *Store) execApply(ctx context.Context, apply func(m *memo), query string, args ...any) (res sql.Result, err error) {
	err = s.writeStmtApply(ctx, query, func(ctx context.Context, st *sql.Stmt) error {
		res, err = st.ExecContext(ctx, args...)
		return err
	}, apply)
	return res, err
}

// insert runs an INSERT of one row on the writer connection, batched
// with others arriving at the same time, and returns the row's id.
//
// Inserts take the new row's id from the statement's result rather than
// with RETURNING: in a transaction, database/sql starts a goroutine for
// every statement that returns rows.
func (s *Store) insert(ctx context.Context, query string, args ...any) (int64, error) {
	return s.insertApply(ctx, nil, query, args...)
}

// insertApply is insert for a write that changes what the memo keeps:
// apply applies it once committed (see writeReq.apply).
func (s *Store) insertApply(ctx context.Context, apply func(m *memo), query string, args ...any) (id int64, err error) {
	res, err := s.execApply(ctx, apply, query, args...)
	if err == nil {
		id, _, err = insertedID(res)
	}
	return id, err
}

// txInsert runs an INSERT of one row in tx, a write transaction, and
// returns the row's id; inserted is false when it inserted nothing (ON
// CONFLICT DO NOTHING).
func (s *Store) txInsert(ctx context.Context, tx *sql.Tx, query string, args ...any) (id int64, inserted bool, err error) {
	st, err := s.txStmt(ctx, tx, query)
	if err != nil {
		return 0, false, err
	}
	res, err := st.ExecContext(ctx, args...)
	if err != nil {
		return 0, false, err
	}
	return insertedID(res)
}

// insertedID returns the id of the row an INSERT of one row inserted.
func insertedID(res sql.Result) (id int64, inserted bool, err error) {
	n, err := res.RowsAffected()
	if err != nil || n == 0 {
		return 0, false, err
	}
	id, err = res.LastInsertId()
	return id, err == nil, err
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// collect scans every row of a query into a slice; err is the query's own
// error, so that a call reads collect(s.query(...)).
func collect[T any](scan func(scanner) (T, error)) func(*sql.Rows, error) ([]T, error) {
	return func(rows *sql.Rows, err error) ([]T, error) {
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
}

// errRow is a scanner that fails with the error that kept the query from running.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// row runs a one-row statement on the read pool (writes returning a row
// use insert).
func (s *Store) row(ctx context.Context, query string, args ...any) scanner {
	s.stats.stmts.Add(1)
	s.stats.reads.Add(1)
	ctx, err := short(ctx)
	if err != nil {
		return errRow{err}
	}
	st, err := s.prepare(ctx, s.reader, query)
	if err != nil {
		return errRow{err}
	}
	return st.QueryRowContext(ctx, args...)
}

// short is ctx for a read of a few rows by index, which runs to its end
// once started: with a context that can be cancelled, the driver and
// database/sql start a goroutine for each statement and transaction to
// watch it, which costs more than such a read (BenchmarkRuntimeTick). A
// context already ended gives its error.
func short(ctx context.Context) (context.Context, error) {
	if err := ctx.Err(); err != nil {
		return ctx, err
	}
	return context.WithoutCancel(ctx), nil
}

// queryShort is query for a read of a few rows by index (see short).
func (s *Store) queryShort(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	ctx, err := short(ctx)
	if err != nil {
		return nil, err
	}
	return s.query(ctx, query, args...)
}

// query runs a read statement on the read pool.
func (s *Store) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	s.stats.stmts.Add(1)
	s.stats.reads.Add(1)
	st, err := s.prepare(ctx, s.reader, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// txStmt returns query prepared for tx, a write transaction, reusing the
// statement Open prepared on the writer. It never prepares on the writer
// itself: that would wait for its only connection, which tx holds.
func (s *Store) txStmt(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, error) {
	s.stats.stmts.Add(1)
	s.mu.Lock()
	st, ok := s.stmts[stmtKey{s.writer, query}]
	s.mu.Unlock()
	if ok {
		return tx.StmtContext(ctx, st), nil
	}
	return tx.PrepareContext(ctx, query)
}

// txQueries are the statements run inside write transactions, prepared on
// the writer at Open for txStmt.
var txQueries = []string{ingestChannelSQL, ingestInsertSQL, ingestExistingSQL, trimCountSQL, setOutboxSQL, appendActionSQL, addTickSQL}

// txRow runs a one-row statement in tx, a write transaction.
func (s *Store) txRow(ctx context.Context, tx *sql.Tx, query string, args ...any) scanner {
	st, err := s.txStmt(ctx, tx, query)
	if err != nil {
		return errRow{err}
	}
	return st.QueryRowContext(ctx, args...)
}

// write runs fn in one write transaction and commits it.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) (err error) {
	defer func() { s.health.observe(err) }()
	s.stats.writes.Add(1)
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// read runs fn in one read transaction, so that several queries see the
// same snapshot.
func (s *Store) read(ctx context.Context, fn func(tx *sql.Tx) error) error {
	s.stats.reads.Add(1)
	tx, err := s.reader.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	return fn(tx)
}

// encTime stores a time as Unix nanoseconds; the zero time is stored as 0.
func encTime(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// decTime is the inverse of encTime; times come back in UTC.
func decTime(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// normTime is what a time looks like after a round trip through the store.
func normTime(t time.Time) time.Time { return decTime(encTime(t)) }

// encRaw stores raw JSON as text, NULL when empty.
func encRaw(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}

// decRaw is the inverse of encRaw.
func decRaw(ns sql.NullString) []byte {
	if !ns.Valid || ns.String == "" {
		return nil
	}
	return []byte(ns.String)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
