package sqlite

import (
	"context"
	"fmt"
)

// UserIDs returns the sender ids and user-note subjects that are id or
// qualify it with a platform; see state.Operations.
func (s *Store) UserIDs(ctx context.Context, id string) ([]string, error) {
	rows, err := s.reader.QueryContext(ctx, `
SELECT sender_id FROM messages WHERE sender_id = ?1 OR substr(sender_id, -length(?1) - 1) = ':' || ?1
UNION
SELECT subject FROM notes WHERE scope = 'user' AND (subject = ?1 OR substr(subject, -length(?1) - 1) = ':' || ?1)
ORDER BY 1`, id)
	if err != nil {
		return nil, fmt.Errorf("find user ids of %q: %w", id, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("find user ids of %q: %w", id, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find user ids of %q: %w", id, err)
	}
	return out, nil
}
