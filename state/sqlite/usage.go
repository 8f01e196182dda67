package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// AddTokens adds n tokens to the count of scope on day (a budget day such
// as 2025-03-01) and returns the new count.
func (s *Store) AddTokens(ctx context.Context, day, scope string, n int64) (int64, error) {
	var total int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `INSERT INTO token_usage (day, scope, tokens) VALUES (?, ?, ?)
ON CONFLICT (day, scope) DO UPDATE SET tokens = tokens + excluded.tokens
RETURNING tokens`, day, scope, n).Scan(&total)
	})
	if err != nil {
		return 0, fmt.Errorf("add %d tokens to %q on %s: %w", n, scope, day, err)
	}
	return total, nil
}

// Tokens returns the count of scope on day, 0 when none was added.
func (s *Store) Tokens(ctx context.Context, day, scope string) (int64, error) {
	var n int64
	err := s.row(ctx, `SELECT tokens FROM token_usage WHERE day = ? AND scope = ?`, day, scope).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read tokens of %q on %s: %w", scope, day, err)
	}
	return n, nil
}
