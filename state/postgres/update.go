package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/airi-go/airi/state"
)

// UpdateSeen reports whether MarkUpdate recorded the update key within
// state.UpdateRetention.
func (s *Store) UpdateSeen(ctx context.Context, key string) (bool, error) {
	var one int
	err := s.pool.QueryRow(ctx, `SELECT 1 FROM updates WHERE key = $1 AND seen >= $2`,
		key, s.Now().Add(-state.UpdateRetention)).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("look up update %q: %w", key, err)
	}
	return true, nil
}

// MarkUpdate records the update key as handled and drops records older
// than state.UpdateRetention, in one round trip.
func (s *Store) MarkUpdate(ctx context.Context, key string) error {
	if key == "" {
		return errors.New("mark update: empty key")
	}
	now := s.Now()
	_, err := s.pool.Exec(ctx, `WITH gone AS (DELETE FROM updates WHERE seen < $3)
INSERT INTO updates (key, seen) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`,
		key, now, now.Add(-state.UpdateRetention))
	if err != nil {
		return fmt.Errorf("mark update %q: %w", key, err)
	}
	return nil
}
