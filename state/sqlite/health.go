package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"go.uber.org/zap"
	msqlite "modernc.org/sqlite"
)

// ErrNotWritable is returned by Open when the database cannot be written:
// a read-only file, a directory where SQLite cannot create its journal, a
// read-only file system.
var ErrNotWritable = errors.New("database is not writable")

// SQLite's primary result codes of a failing storage (as opposed to a
// statement that is wrong).
const (
	codePerm     = 3
	codeBusy     = 5
	codeLocked   = 6
	codeReadOnly = 8
	codeIOErr    = 10
	codeCorrupt  = 11
	codeFull     = 13
	codeCantOpen = 14
	codeAuth     = 23
	codeNotADB   = 26
)

// sqliteCode returns the primary result code of an SQLite error, or 0.
func sqliteCode(err error) int {
	var e *msqlite.Error
	if !errors.As(err, &e) {
		return 0
	}
	return e.Code() & 0xff
}

// storageFailure reports whether err says the database cannot be written
// at the moment, whatever the statement.
func storageFailure(err error) bool {
	switch sqliteCode(err) {
	case codePerm, codeBusy, codeLocked, codeReadOnly, codeIOErr, codeCorrupt, codeFull, codeCantOpen, codeAuth, codeNotADB:
		return true
	}
	return false
}

// notWritable reports whether err, met while opening, means the database
// cannot be written (rather than being busy).
func notWritable(err error) bool {
	switch sqliteCode(err) {
	case codePerm, codeReadOnly, codeCantOpen, codeAuth, codeIOErr:
		return true
	}
	return errors.Is(err, os.ErrPermission)
}

// createFile makes the database file, when it does not exist yet, readable
// and writable by its owner only: it holds private conversations. SQLite
// gives its journal files the mode of the database file.
// It reports whether it made the file.
func createFile(path string) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case errors.Is(err, os.ErrExist):
		return false, nil
	case err != nil:
		return false, err
	}
	return true, f.Close()
}

// probeWrite checks that the database takes a write: a schema change in a
// transaction that is rolled back, so nothing is left behind.
func probeWrite(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE airi_write_probe (x INTEGER)`); err != nil {
		return err
	}
	return nil
}

// writeHealth follows whether writes succeed and logs only when that
// changes: once when writes start failing, once when they recover, so
// that a database that fails for an hour does not log every message.
type writeHealth struct {
	log *zap.Logger
	now func() time.Time

	mu       sync.Mutex
	failing  bool
	since    time.Time
	failures int
	lastErr  error
}

// observe records the outcome of one write.
func (h *writeHealth) observe(err error) {
	if err != nil && !storageFailure(err) {
		// A cancelled call or a statement refused for its content says
		// nothing about the database.
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if err != nil {
		h.failures++
		h.lastErr = err
		if !h.failing {
			h.failing, h.since = true, h.now()
			h.log.Error("database writes are failing; nothing new is stored until they recover (this is logged once)", zap.Error(err))
		}
		return
	}
	if h.failing {
		h.log.Info("database writes recovered", zap.Int("failed_writes", h.failures), zap.Duration("failing_for", h.now().Sub(h.since)))
		h.failing, h.failures, h.lastErr = false, 0, nil
	}
}

// err returns why writes are failing, or nil.
func (h *writeHealth) err() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.failing {
		return nil
	}
	return fmt.Errorf("database writes failing since %s (%d failed): %w", h.since.UTC().Format(time.RFC3339), h.failures, h.lastErr)
}

// WriteErr returns why the store's writes are failing now, or nil when
// the last write succeeded. Health checks report it.
func (s *Store) WriteErr() error { return s.health.err() }

// Writable returns why the store's writes fail, or nil. While they fail
// it tries a write that leaves nothing behind, whose outcome counts like
// any write's, so that it says they succeed again as soon as they do
// (the scheduler pauses wakes meanwhile).
func (s *Store) Writable(ctx context.Context) error {
	if s.health.err() == nil {
		return nil
	}
	s.health.observe(s.commitProbe(ctx))
	return s.health.err()
}

// commitProbe commits a write that changes nothing: the schema version
// set to itself. A write that is rolled back never reaches the disk, so
// only a commit tells whether the disk takes writes again.
func (s *Store) commitProbe(ctx context.Context) error {
	var v int
	if err := s.writer.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	// PRAGMA takes no parameters; v is the database's own integer.
	_, err := s.writer.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v))
	return err
}
