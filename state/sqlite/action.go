package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/airi-go/airi/state"
)

const trimCountSQL = `SELECT count(*) FROM actions WHERE channel_id = ?`

const appendActionSQL = `
INSERT INTO actions (channel_id, wake, action, name, reasoning, ok, result, time)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)`

// actionArgs are the arguments of appendActionSQL for rec.
func actionArgs(rec state.ActionRecord) []any {
	return []any{rec.ChannelID, rec.Wake, encRaw(rec.Action), rec.Name, state.CleanText(rec.Reasoning), boolInt(rec.OK), state.CleanText(rec.Result), encTime(rec.Time)}
}

// AppendAction adds an action record to a channel's history and returns its id.
func (s *Store) AppendAction(ctx context.Context, rec state.ActionRecord) (int64, error) {
	if rec.ChannelID == "" {
		return 0, errors.New("append action: empty channel id")
	}
	id, err := s.insertApply(ctx, func(m *memo) { m.setActions(rec.ChannelID, m.actions[rec.ChannelID]+1) },
		appendActionSQL, actionArgs(rec)...)
	if err != nil {
		return 0, fmt.Errorf("append action to %q: %w", rec.ChannelID, err)
	}
	return id, nil
}

// Actions returns the newest limit action records of a channel, oldest
// first (limit <= 0 means all).
func (s *Store) Actions(ctx context.Context, channelID string, limit int) ([]state.ActionRecord, error) {
	s.fresh(ctx)
	if n, ok := s.memo.actionCount(channelID); ok && n == 0 {
		return nil, nil // a new chat's first tick reads nothing
	}
	out, err := collect(scanAction)(s.queryShort(ctx, `
SELECT id, channel_id, wake, action, name, reasoning, ok, result, time FROM actions
WHERE channel_id = ? ORDER BY id DESC LIMIT +?`, channelID, limitArg(limit)))
	if err != nil {
		return nil, fmt.Errorf("actions of %q: %w", channelID, err)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

func scanAction(sc scanner) (state.ActionRecord, error) {
	var (
		r      state.ActionRecord
		action sql.NullString
		t      int64
	)
	err := sc.Scan(&r.ID, &r.ChannelID, &r.Wake, &action, &r.Name, &r.Reasoning, &r.OK, &r.Result, &t)
	r.Action = decRaw(action)
	r.Time = decTime(t)
	return r, err
}

// ClearActions forgets a channel's action history.
func (s *Store) ClearActions(ctx context.Context, channelID string) error {
	_, err := s.execApply(ctx, func(m *memo) { m.setActions(channelID, 0) }, `DELETE FROM actions WHERE channel_id = ?`, channelID)
	if err != nil {
		return fmt.Errorf("clear actions of %q: %w", channelID, err)
	}
	return nil
}

// TrimActions keeps the newest keep records once a channel has more than
// over. When the oldest kept record is a continue (the end of a wake whose
// start is being dropped), it is dropped too, repeatedly, so the kept part
// starts at the beginning of a wake: the channel keeps fewer than keep
// records rather than a chain cut in half. keep <= 0 clears the history
// once it is over the bound.
func (s *Store) TrimActions(ctx context.Context, channelID string, keep, over int) error {
	// Most calls find nothing to do: decide that from the memo, or on a
	// reader without taking the write lock; the count is checked again
	// in the transaction.
	s.fresh(ctx)
	n, ok := s.memo.actionCount(channelID)
	if !ok {
		if err := s.row(ctx, trimCountSQL, channelID).Scan(&n); err != nil {
			return fmt.Errorf("trim actions of %q: %w", channelID, err)
		}
	}
	if n <= over || n <= keep {
		return nil
	}
	var left int
	err := s.batchApply(ctx, func(ctx context.Context, tx *sql.Tx) (err error) {
		left, err = s.trimTx(ctx, tx, channelID, keep, over, -1)
		return err
	}, func(m *memo) { m.setActions(channelID, left) })
	if err != nil {
		return fmt.Errorf("trim actions of %q: %w", channelID, err)
	}
	return nil
}

// trimTx is the trim of TrimActions, in tx; it returns how many records
// the channel has left. known, when not negative, is how many it has
// (the memo's count and what tx appended): under the bound, no count is
// read.
func (s *Store) trimTx(ctx context.Context, tx *sql.Tx, channelID string, keep, over, known int) (int, error) {
	n := known
	if n < 0 || n > over && n > keep {
		// Counted in tx: the records are deleted by what it finds.
		if err := s.txRow(ctx, tx, trimCountSQL, channelID).Scan(&n); err != nil {
			return 0, err
		}
	}
	if n <= over || n <= keep {
		return n, nil
	}
	if keep <= 0 {
		_, err := tx.ExecContext(ctx, `DELETE FROM actions WHERE channel_id = ?`, channelID)
		return 0, err
	}
	kept, err := collect(func(sc scanner) (state.ActionHead, error) {
		var a state.ActionHead
		err := sc.Scan(&a.ID, &a.Name)
		return a, err
	})(tx.QueryContext(ctx, `SELECT id, name FROM
	(SELECT id, name FROM actions WHERE channel_id = ? ORDER BY id DESC LIMIT +?)
ORDER BY id`, channelID, keep))
	if err != nil {
		return 0, err
	}
	cut := state.TrimStart(kept)
	res, err := tx.ExecContext(ctx, `DELETE FROM actions WHERE channel_id = ? AND id < ?`, channelID, cut)
	if err != nil {
		return 0, err
	}
	gone, err := res.RowsAffected()
	return n - int(gone), err
}
