package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"go.uber.org/zap"
)

// OpenReadOnly opens an existing database file for reading only: it
// creates nothing, applies no migration and takes no write lock, so it
// works beside a running bot and on a file the caller may not write.
// Every write through the returned store fails.
func OpenReadOnly(ctx context.Context, path string, logger *zap.Logger) (_ *Store, err error) {
	if logger == nil {
		logger = zap.NewNop()
	}
	if strings.TrimSpace(path) == "" {
		return nil, errors.New("open sqlite store: empty path")
	}
	if path == ":memory:" || strings.ContainsAny(path, "?#") || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("open sqlite store %q: need a plain file path", path)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open sqlite store %q: %w", path, err)
	}
	s := &Store{Now: time.Now, path: path, logger: logger.Named("sqlite"), stmts: map[stmtKey]*sql.Stmt{}}
	s.health = &writeHealth{log: s.logger, now: time.Now}
	defer func() {
		if err != nil {
			_ = s.Close()
		}
	}()
	if err := s.openReader(ctx, connPragmas()); err != nil {
		return nil, err
	}
	var version int
	if err := s.reader.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return nil, fmt.Errorf("open sqlite store %q: read schema version: %w", path, err)
	}
	switch {
	case version > len(migrations):
		return nil, fmt.Errorf("open sqlite store %q: schema version %d is newer than this build knows (%d)", path, version, len(migrations))
	case version < len(migrations):
		return nil, fmt.Errorf("open sqlite store %q: schema version %d is older than this build's (%d); open it once with a command that writes (airi run or airi chat) to upgrade it", path, version, len(migrations))
	}
	return s, nil
}
