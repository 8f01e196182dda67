package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// UserIDs returns the sender ids and user-note subjects that are id or
// qualify it with a platform; see state.Operations.
func (s *Store) UserIDs(ctx context.Context, id string) ([]string, error) {
	rows, err := s.pool.Query(ctx, `
SELECT sender_id FROM messages WHERE sender_id = $1 OR right(sender_id, length($1) + 1) = ':' || $1
UNION
SELECT subject FROM notes WHERE scope = 'user' AND (subject = $1 OR right(subject, length($1) + 1) = ':' || $1)
ORDER BY 1`, id)
	if err != nil {
		return nil, fmt.Errorf("find user ids of %q: %w", id, err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("find user ids of %q: %w", id, err)
	}
	return out, nil
}
