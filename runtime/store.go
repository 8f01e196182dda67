package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"go.uber.org/zap"

	"github.com/airi-go/airi/scheduler/budget"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/postgres"
	"github.com/airi-go/airi/state/sqlite"
)

// Both engines keep the token use of the daily budgets, so a budget runs
// on either.
var (
	_ budget.Store = (*sqlite.Store)(nil)
	_ budget.Store = (*postgres.Store)(nil)
)

// StoreConfig says where the bot keeps its state.
type StoreConfig struct {
	// DatabaseURL selects PostgreSQL, which several replicas share; empty
	// keeps the state in the SQLite file at DBPath.
	DatabaseURL string
	DBPath      string
}

// StoreProblemError is a database that cannot be used as configured: in
// use by another process, or not writable. It is the operator's to fix,
// and its text is one line that says how.
type StoreProblemError struct {
	msg string
	err error
}

func (e *StoreProblemError) Error() string { return e.msg }
func (e *StoreProblemError) Unwrap() error { return e.err }

// OpenStore opens the configured store for writing: PostgreSQL when
// DatabaseURL is set, otherwise the SQLite file at DBPath (which always
// migrates), whose store holds the exclusive lock beside it until it is
// closed, so that one process at a time answers its messages. On
// PostgreSQL migrate applies pending migrations; without it a schema that
// is behind is an error asking for `airi migrate`. Several replicas share
// PostgreSQL through leases, so there is no lock. A SQLite file in use or
// not writable is a *StoreProblemError.
func OpenStore(ctx context.Context, sc StoreConfig, log *zap.Logger, migrate bool) (state.Store, error) {
	if sc.DatabaseURL != "" {
		return openPostgres(ctx, sc, log, migrate)
	}
	s, err := OpenSQLite(ctx, sc.DBPath, log)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// OpenSQLite opens the SQLite file at path for writing, holding its lock
// until the store is closed.
func OpenSQLite(ctx context.Context, path string, log *zap.Logger) (*sqlite.Store, error) {
	store, err := sqlite.Open(ctx, path, log)
	if err != nil {
		var inUse *sqlite.InUseError
		if errors.As(err, &inUse) {
			return nil, &StoreProblemError{msg: inUse.Error(), err: err}
		}
		if errors.Is(err, sqlite.ErrNotWritable) || deniedWrite(err) {
			return nil, &StoreProblemError{
				msg: fmt.Sprintf("database %s is not writable (%v): make the file and its directory writable for this user, or set DB_PATH to another file", path, RootCause(err)),
				err: err,
			}
		}
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	return store, nil
}

// OpenStoreReadOnly opens the configured store for commands that only
// read: a SQLite file without the lock and without writing, so that they
// work beside a running bot.
func OpenStoreReadOnly(ctx context.Context, sc StoreConfig, log *zap.Logger) (state.Store, error) {
	if sc.DatabaseURL != "" {
		return openPostgres(ctx, sc, log, false)
	}
	s, err := sqlite.OpenReadOnly(ctx, sc.DBPath, log)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", sc.DBPath, err)
	}
	return s, nil
}

// OpenStoreBeside opens the configured store, which must exist, for an
// operator's command beside a bot that may be running. On SQLite the bot
// holds the process lock: the command's reads and short writes are
// SQLite transactions (WAL mode lets them in), and the bot reads what they
// change at its next wake. write opens for writing.
func OpenStoreBeside(ctx context.Context, sc StoreConfig, log *zap.Logger, write bool) (state.Store, error) {
	if err := sc.Exists(); err != nil {
		return nil, err
	}
	if sc.DatabaseURL != "" {
		return openPostgres(ctx, sc, log, false)
	}
	var (
		s   *sqlite.Store
		err error
	)
	if write {
		s, err = sqlite.OpenShared(ctx, sc.DBPath, log)
	} else {
		s, err = sqlite.OpenReadOnly(ctx, sc.DBPath, log)
	}
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", sc.DBPath, err)
	}
	return s, nil
}

// Exists reports, for commands that only read, whether the configured
// database is there to read. A PostgreSQL database is taken to be.
func (sc StoreConfig) Exists() error {
	if sc.DatabaseURL != "" {
		return nil
	}
	if _, err := os.Stat(sc.DBPath); err != nil {
		return fmt.Errorf("no database at DB_PATH=%s: %w", sc.DBPath, err)
	}
	return nil
}

func openPostgres(ctx context.Context, sc StoreConfig, log *zap.Logger, migrate bool) (state.Store, error) {
	s, err := postgres.Open(ctx, sc.DatabaseURL, log, postgres.Options{Migrate: migrate})
	if err != nil {
		return nil, fmt.Errorf("open database at DATABASE_URL: %w", err)
	}
	return s, nil
}

// deniedWrite reports whether err is the file system refusing a write.
func deniedWrite(err error) bool {
	return errors.Is(err, os.ErrPermission) || errors.Is(err, syscall.EROFS)
}

// RootCause is the innermost error of err's chain (the last one where an
// error wraps several), the one that names what the system refused.
func RootCause(err error) error {
	for {
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			next := u.Unwrap()
			if next == nil {
				return err
			}
			err = next
		case interface{ Unwrap() []error }:
			errs := u.Unwrap()
			if len(errs) == 0 {
				return err
			}
			err = errs[len(errs)-1]
		default:
			return err
		}
	}
}
