package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/airi-go/airi/state"
)

// UpdateSeen reports whether MarkUpdate recorded the update key within
// state.UpdateRetention.
func (s *Store) UpdateSeen(ctx context.Context, key string) (bool, error) {
	cutoff := s.Now().Add(-state.UpdateRetention).UnixNano()
	var one int
	err := s.row(ctx, `SELECT 1 FROM updates WHERE key = ? AND seen >= ?`, key, cutoff).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("look up update %q: %w", key, err)
	}
	return true, nil
}

// MarkUpdate records the update key as handled and drops records older
// than state.UpdateRetention.
func (s *Store) MarkUpdate(ctx context.Context, key string) error {
	if key == "" {
		return errors.New("mark update: empty key")
	}
	now := s.Now()
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO updates (key, seen) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`,
			key, now.UnixNano()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM updates WHERE seen < ?`, now.Add(-state.UpdateRetention).UnixNano())
		return err
	})
	if err != nil {
		return fmt.Errorf("mark update %q: %w", key, err)
	}
	return nil
}
