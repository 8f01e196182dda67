package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// AddTokens adds n tokens to the count of scope on day (a budget day such
// as 2025-03-01) and returns the new count. The upsert is one statement,
// so replicas adding at once each see a count that includes their own
// and every earlier addition.
func (s *Store) AddTokens(ctx context.Context, day, scope string, n int64) (int64, error) {
	var total int64
	err := s.pool.QueryRow(ctx, `INSERT INTO token_usage (day, scope, tokens) VALUES ($1, $2, $3)
ON CONFLICT (day, scope) DO UPDATE SET tokens = token_usage.tokens + excluded.tokens
RETURNING tokens`, day, scope, n).Scan(&total)
	if err != nil {
		return 0, fmt.Errorf("add %d tokens to %q on %s: %w", n, scope, day, err)
	}
	return total, nil
}

// Tokens returns the count of scope on day, 0 when none was added.
func (s *Store) Tokens(ctx context.Context, day, scope string) (int64, error) {
	var n int64
	err := s.pool.QueryRow(ctx, `SELECT tokens FROM token_usage WHERE day = $1 AND scope = $2`, day, scope).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read tokens of %q on %s: %w", scope, day, err)
	}
	return n, nil
}
