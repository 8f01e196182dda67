package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/airi-go/airi/state"
)

const editFindSQL = `SELECT ` + messageCols + ` FROM messages
WHERE channel_id = $1 AND platform_id = $2 AND platform_id <> '' FOR UPDATE`

// EditMessage gives a stored message its new text; see state.Edits.
func (s *Store) EditMessage(ctx context.Context, e state.Edit) (before, after state.Message, changed bool, err error) {
	if err := e.Validate(); err != nil {
		return before, after, false, err
	}
	e = e.Clean()
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		changed = false
		m, err := scanMessage(tx.QueryRow(ctx, editFindSQL, e.ChannelID, e.PlatformID))
		if err != nil {
			return err
		}
		before, after = m, m
		if m.Deleted || m.Content == e.Content {
			return nil
		}
		after.Previous, after.Content, after.Edited = m.Content, e.Content, true
		after.Mentioned, after.ReplyToSelf, after.Changed = e.Mentioned, e.ReplyToSelf, changedTime(e.Time)
		if _, err := tx.Exec(ctx, `UPDATE messages SET content = $1, previous = $2, edited = true, mentioned = $3, reply_to_self = $4, changed = $5
WHERE id = $6`, after.Content, after.Previous, after.Mentioned, after.ReplyToSelf, after.Changed, m.ID); err != nil {
			return err
		}
		changed = true
		return nil
	})
	if errors.Is(err, pgx.ErrNoRows) {
		err = state.ErrNotFound
	}
	if err != nil {
		return state.Message{}, state.Message{}, false, fmt.Errorf("edit message %q in %q: %w", e.PlatformID, e.ChannelID, err)
	}
	return before, after, changed, nil
}

// DeleteMessage marks a stored message deleted; see state.Edits.
func (s *Store) DeleteMessage(ctx context.Context, channelID, platformID string, at time.Time) (before state.Message, changed bool, err error) {
	if channelID == "" || platformID == "" {
		return before, false, errors.New("delete message: empty channel or platform message id")
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		changed = false
		m, err := scanMessage(tx.QueryRow(ctx, editFindSQL, channelID, platformID))
		if err != nil {
			return err
		}
		before = m
		if m.Deleted {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE messages SET deleted = true, read = true, changed = $1 WHERE id = $2`, changedTime(at), m.ID); err != nil {
			return err
		}
		changed = true
		return nil
	})
	if errors.Is(err, pgx.ErrNoRows) {
		err = state.ErrNotFound
	}
	if err != nil {
		return state.Message{}, false, fmt.Errorf("delete message %q in %q: %w", platformID, channelID, err)
	}
	return before, changed, nil
}

// changedTime is the time a change is stored with: as given, to the
// store's precision, or now when none was given.
func changedTime(t time.Time) time.Time {
	if t.IsZero() {
		t = time.Now()
	}
	return normTime(t)
}
