package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// errDatabaseInUse is returned when another process holds a database's lock.
var errDatabaseInUse = errors.New("database is in use")

// lockedError names the process that holds a database's lock.
type lockedError struct {
	path string
	pid  int // 0 when the holder could not be read
}

func (e *lockedError) Error() string {
	holder := "another airi process"
	if e.pid > 0 {
		holder = fmt.Sprintf("another airi process (pid %d)", e.pid)
	}
	return fmt.Sprintf("database %s is in use by %s; stop it or set DB_PATH to another file", e.path, holder)
}

func (e *lockedError) Unwrap() error { return errDatabaseInUse }

// dbLock is the exclusive lock a process that writes a database holds on
// the file beside it (DB_PATH + ".lock"). The operating system releases it
// when the process ends, however it ends, so a crash never leaves a stale
// lock; the file itself stays and holds the pid of the last holder.
type dbLock struct {
	f *os.File
}

// lockPath is the lock file of the database at path.
func lockPath(dbPath string) string { return dbPath + ".lock" }

// lockDatabase takes the exclusive lock of the database at dbPath without
// waiting. If another process holds it, the error is a *lockedError
// naming that process.
func lockDatabase(dbPath string) (*dbLock, error) {
	path := lockPath(dbPath)
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("lock database %s: %w", dbPath, err)
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock database %s: %w", dbPath, err)
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock database %s: %w", dbPath, err)
	}
	if !held {
		pid := readPID(f)
		f.Close()
		return nil, &lockedError{path: dbPath, pid: pid}
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &dbLock{f: f}, nil
}

// readPID reads the holder's pid from the lock file, or 0.
func readPID(f *os.File) int {
	buf := make([]byte, 32)
	n, _ := f.ReadAt(buf, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// release gives the lock up. It is safe on a nil lock.
func (l *dbLock) release() {
	if l == nil || l.f == nil {
		return
	}
	_ = unlock(l.f)
	_ = l.f.Close()
	l.f = nil
}
