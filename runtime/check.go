package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"go.uber.org/zap"

	"github.com/airi-go/airi/state/postgres"
	"github.com/airi-go/airi/state/sqlite"
)

// CheckDatabase opens the configured database read-only, or checks that
// SQLite can create it, and describes what it found: the PostgreSQL
// schema and its version, or the SQLite file, its schema version and how
// many channels it holds.
func CheckDatabase(ctx context.Context, sc StoreConfig, log *zap.Logger) (string, error) {
	if sc.DatabaseURL != "" {
		s, err := postgres.Open(ctx, sc.DatabaseURL, log, postgres.Options{})
		if err != nil {
			return "", fmt.Errorf("DATABASE_URL: %w", err)
		}
		defer s.Close()
		v, err := s.Version(ctx)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("PostgreSQL schema %s at version %d", s.Schema(), v), nil
	}
	if _, err := os.Stat(sc.DBPath); errors.Is(err, os.ErrNotExist) {
		dir := filepath.Dir(sc.DBPath)
		for {
			st, err := os.Stat(dir)
			if err == nil {
				if !st.IsDir() {
					return "", fmt.Errorf("DB_PATH=%s: %s is not a directory", sc.DBPath, dir)
				}
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
		return fmt.Sprintf("SQLite %s does not exist yet; it is created on the first run", sc.DBPath), nil
	}
	s, err := sqlite.OpenReadOnly(ctx, sc.DBPath, log)
	if err != nil {
		return "", fmt.Errorf("DB_PATH: %w", err)
	}
	defer s.Close()
	n, err := s.Channels(ctx)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("SQLite %s at schema version %d, %d channel(s)", sc.DBPath, sqlite.SchemaVersion(), len(n)), nil
}
