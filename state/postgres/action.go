package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/airi-go/airi/state"
)

// AppendAction adds an action record to a channel's history and returns
// its id. Its commit does not wait for the disk (see lazyCommit).
func (s *Store) AppendAction(ctx context.Context, rec state.ActionRecord) (int64, error) {
	if rec.ChannelID == "" {
		return 0, errors.New("append action: empty channel id")
	}
	var id int64
	query, args := actionInsert(rec)
	err := s.lazyCommit(ctx, func(row pgx.Row) error { return row.Scan(&id) }, query, args...)
	if err != nil {
		return 0, fmt.Errorf("append action to %q: %w", rec.ChannelID, err)
	}
	return id, nil
}

// actionInsert returns the statement that stores rec and returns its id.
func actionInsert(rec state.ActionRecord) (string, []any) {
	return `
INSERT INTO actions (channel_id, wake, action, name, reasoning, ok, result, time)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
		[]any{rec.ChannelID, rec.Wake, rawArg(rec.Action), rec.Name, state.CleanText(rec.Reasoning), rec.OK, state.CleanText(rec.Result), tsArg(rec.Time)}
}

// Actions returns the newest limit action records of a channel, oldest
// first (limit <= 0 means all).
func (s *Store) Actions(ctx context.Context, channelID string, limit int) ([]state.ActionRecord, error) {
	rows, err := s.pool.Query(ctx, `
SELECT id, channel_id, wake, action, name, reasoning, ok, result, time FROM actions
WHERE channel_id = $1 ORDER BY id DESC LIMIT $2`, channelID, limitArg(limit))
	out, err := collect(rows, err, scanAction)
	if err != nil {
		return nil, fmt.Errorf("actions of %q: %w", channelID, err)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

func scanAction(sc pgx.Row) (state.ActionRecord, error) {
	var (
		r      state.ActionRecord
		action *string
		t      *time.Time
	)
	err := sc.Scan(&r.ID, &r.ChannelID, &r.Wake, &action, &r.Name, &r.Reasoning, &r.OK, &r.Result, &t)
	r.Action = decRaw(action)
	r.Time = decTS(t)
	return r, err
}

// ClearActions forgets a channel's action history.
func (s *Store) ClearActions(ctx context.Context, channelID string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM actions WHERE channel_id = $1`, channelID); err != nil {
		return fmt.Errorf("clear actions of %q: %w", channelID, err)
	}
	return nil
}

// TrimActions keeps the newest keep records once a channel has more than
// over, never starting the kept part at a continue record; see
// state.Store.
func (s *Store) TrimActions(ctx context.Context, channelID string, keep, over int) error {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM actions WHERE channel_id = $1`, channelID).Scan(&n); err != nil {
		return fmt.Errorf("trim actions of %q: %w", channelID, err)
	}
	if n <= over || n <= keep {
		return nil
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return trimIn(ctx, tx, channelID, keep, over) })
	if err != nil {
		return fmt.Errorf("trim actions of %q: %w", channelID, err)
	}
	return nil
}

// trimIn trims a channel's action history as TrimActions does, in tx.
func trimIn(ctx context.Context, tx pgx.Tx, channelID string, keep, over int) error {
	// Two trims of one channel wait for each other.
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('actions'), hashtext($1))`, channelID); err != nil {
		return err
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM actions WHERE channel_id = $1`, channelID).Scan(&n); err != nil {
		return err
	}
	if n <= over || n <= keep {
		return nil
	}
	if keep <= 0 {
		_, err := tx.Exec(ctx, `DELETE FROM actions WHERE channel_id = $1`, channelID)
		return err
	}
	rows, err := tx.Query(ctx, `SELECT id, name FROM
(SELECT id, name FROM actions WHERE channel_id = $1 ORDER BY id DESC LIMIT $2) k
ORDER BY id`, channelID, keep)
	if err != nil {
		return err
	}
	kept, err := collect(rows, nil, func(r pgx.Row) (state.ActionHead, error) {
		var a state.ActionHead
		err := r.Scan(&a.ID, &a.Name)
		return a, err
	})
	if err != nil {
		return err
	}
	cut := state.TrimStart(kept)
	_, err = tx.Exec(ctx, `DELETE FROM actions WHERE channel_id = $1 AND id < $2`, channelID, cut)
	return err
}
