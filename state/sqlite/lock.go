package sqlite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ErrInUse is returned by Open when another process holds the database's
// lock: one process at a time writes a database, so that no message is
// answered twice.
var ErrInUse = errors.New("database is in use")

// InUseError names the process that holds a database's lock. It wraps
// ErrInUse.
type InUseError struct {
	// Path is the database file.
	Path string
	// PID is the holder's process id; 0 when it could not be read.
	PID int
}

func (e *InUseError) Error() string {
	holder := "another airi process"
	if e.PID > 0 {
		holder = fmt.Sprintf("another airi process (pid %d)", e.PID)
	}
	return fmt.Sprintf("database %s is in use by %s; stop it or set DB_PATH to another file", e.Path, holder)
}

func (e *InUseError) Unwrap() error { return ErrInUse }

// LockPath is the lock file of the database at dbPath.
func LockPath(dbPath string) string { return dbPath + ".lock" }

// fileLock is the exclusive lock a process that writes a database holds on
// the file beside it (LockPath). The operating system releases it when the
// process ends, however it ends, so a crash never leaves a stale lock; the
// file itself stays and holds the pid of the last holder.
type fileLock struct {
	f *os.File
}

// lockDatabase takes the exclusive lock of the database at dbPath without
// waiting. If another process holds it, the error is an *InUseError
// naming that process.
func lockDatabase(dbPath string) (*fileLock, error) {
	path := LockPath(dbPath)
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
		return nil, &InUseError{Path: dbPath, PID: pid}
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &fileLock{f: f}, nil
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
func (l *fileLock) release() {
	if l == nil || l.f == nil {
		return
	}
	_ = unlock(l.f)
	_ = l.f.Close()
	l.f = nil
}

// deniedWrite reports whether err is the file system refusing a write.
func deniedWrite(err error) bool {
	return errors.Is(err, os.ErrPermission) || errors.Is(err, syscall.EROFS)
}
