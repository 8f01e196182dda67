package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"go.uber.org/zap"

	"github.com/airi-go/airi/state/sqlite"
)

// dbProblem is a database that a command cannot use as configured: in use
// by another process, or not writable. It is a configuration error (exit
// 2) and its text is one line that says what to do.
type dbProblem struct {
	msg string
	err error
}

func (e *dbProblem) Error() string { return e.msg }
func (e *dbProblem) Unwrap() error { return e.err }

// openDatabase opens the database at path for writing, holding its
// lock until the store is closed; one process at a time writes a
// database, so that no message is answered twice.
func openDatabase(ctx context.Context, path string, log *zap.Logger) (*sqlite.Store, error) {
	store, err := sqlite.Open(ctx, path, log)
	if err != nil {
		var inUse *sqlite.InUseError
		if errors.As(err, &inUse) {
			return nil, &dbProblem{msg: inUse.Error(), err: err}
		}
		if errors.Is(err, sqlite.ErrNotWritable) || deniedWrite(err) {
			return nil, notWritableProblem(path, err)
		}
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	return store, nil
}

// deniedWrite reports whether err is the file system refusing a write.
func deniedWrite(err error) bool {
	return errors.Is(err, os.ErrPermission) || errors.Is(err, syscall.EROFS)
}

func notWritableProblem(path string, err error) *dbProblem {
	return &dbProblem{
		msg: fmt.Sprintf("database %s is not writable (%v): make the file and its directory writable for this user, or set DB_PATH to another file", path, rootCause(err)),
		err: err,
	}
}

// openFailureCode is the exit code of a command whose runtime did not open.
func openFailureCode(err error) int {
	var p *dbProblem
	if errors.As(err, &p) {
		return exitUsage
	}
	return exitFailure
}

// rootCause is the innermost error of err's chain (the last one where an
// error wraps several), the one that names what the system refused.
func rootCause(err error) error {
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
