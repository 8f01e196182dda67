package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/airi-go/airi/state"
)

// UpsertChannel records a channel or updates it. An empty Title or a nil
// Members keeps what was stored.
func (s *Store) UpsertChannel(ctx context.Context, ch state.Channel) error {
	query, args, err := channelUpsert(ch)
	if err != nil {
		return err
	}
	if _, err := s.pool.Exec(ctx, query, args...); err != nil {
		return fmt.Errorf("upsert channel %q: %w", ch.ID, err)
	}
	return nil
}

// channelUpsert returns the statement that records ch.
func channelUpsert(ch state.Channel) (string, []any, error) {
	if err := ch.Validate(); err != nil {
		return "", nil, fmt.Errorf("upsert channel: %w", err)
	}
	ch = ch.Clean()
	var members any // NULL keeps the stored members
	if ch.Members != nil {
		b, err := json.Marshal(ch.Members)
		if err != nil {
			return "", nil, fmt.Errorf("upsert channel %q: %w", ch.ID, err)
		}
		members = string(b)
	}
	return `
INSERT INTO channels (id, platform, native_id, grp, title, members)
VALUES ($1, $2, $3, $4, $5, coalesce($6::text, '[]'))
ON CONFLICT (id) DO UPDATE SET
	platform  = excluded.platform,
	native_id = excluded.native_id,
	grp       = excluded.grp,
	title     = CASE WHEN excluded.title = '' THEN channels.title ELSE excluded.title END,
	members   = coalesce($6::text, channels.members)`,
		[]any{ch.ID, ch.Platform, ch.NativeID, ch.Group, ch.Title, members}, nil
}

const channelCols = `id, platform, native_id, grp, title, members`

func scanChannel(sc pgx.Row) (state.Channel, error) {
	var (
		ch      state.Channel
		members string
	)
	if err := sc.Scan(&ch.ID, &ch.Platform, &ch.NativeID, &ch.Group, &ch.Title, &members); err != nil {
		return ch, err
	}
	if members != "" && members != "[]" {
		if err := json.Unmarshal([]byte(members), &ch.Members); err != nil {
			return ch, fmt.Errorf("decode members: %w", err)
		}
	}
	return ch, nil
}

// Channel returns one channel, or state.ErrNotFound.
func (s *Store) Channel(ctx context.Context, id string) (state.Channel, error) {
	ch, err := scanChannel(s.pool.QueryRow(ctx, `SELECT `+channelCols+` FROM channels WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return state.Channel{}, fmt.Errorf("get channel %q: %w", id, state.ErrNotFound)
	}
	if err != nil {
		return state.Channel{}, fmt.Errorf("get channel %q: %w", id, err)
	}
	return ch, nil
}

// Channels returns every known channel ordered by id.
func (s *Store) Channels(ctx context.Context) ([]state.Channel, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+channelCols+` FROM channels ORDER BY id`)
	out, err := collect(rows, err, scanChannel)
	if err != nil {
		return nil, fmt.Errorf("list channels: %w", err)
	}
	return out, nil
}
