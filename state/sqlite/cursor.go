package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Cursor returns a stored adapter cursor, or "" when unset.
func (s *Store) Cursor(ctx context.Context, key string) (string, error) {
	var v string
	err := s.row(ctx, `SELECT value FROM cursors WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("get cursor %q: %w", key, err)
	}
	return v, nil
}

// SetCursor stores an adapter cursor, replacing the previous value.
func (s *Store) SetCursor(ctx context.Context, key, value string) error {
	if key == "" {
		return errors.New("set cursor: empty key")
	}
	_, err := s.exec(ctx, `INSERT INTO cursors (key, value) VALUES (?, ?)
ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
	if err != nil {
		return fmt.Errorf("set cursor %q: %w", key, err)
	}
	return nil
}
