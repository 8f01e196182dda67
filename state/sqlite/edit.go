package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/airi-go/airi/state"
)

const (
	editFindSQL = `SELECT ` + messageCols + ` FROM messages
WHERE channel_id = ? AND platform_id = ? AND platform_id <> ''`
	editSQL = `UPDATE messages SET content = ?, previous = ?, edited = 1, mentioned = ?, reply_to_self = ?, changed = ?
WHERE id = ?`
	deleteSQL = `UPDATE messages SET deleted = 1, read = 1, changed = ? WHERE id = ?`
)

// EditMessage gives a stored message its new text; see state.Edits.
func (s *Store) EditMessage(ctx context.Context, e state.Edit) (before, after state.Message, changed bool, err error) {
	if err := e.Validate(); err != nil {
		return before, after, false, err
	}
	e = e.Clean()
	err = s.batchApply(ctx, func(ctx context.Context, tx *sql.Tx) error {
		changed = false
		m, err := scanMessage(s.txRow(ctx, tx, editFindSQL, e.ChannelID, e.PlatformID))
		if err != nil {
			return err
		}
		before, after = m, m
		if m.Deleted || m.Content == e.Content {
			return nil
		}
		after.Previous, after.Content, after.Edited = m.Content, e.Content, true
		after.Mentioned, after.ReplyToSelf, after.Changed = e.Mentioned, e.ReplyToSelf, changedTime(e.Time)
		if _, err := tx.ExecContext(ctx, editSQL, after.Content, after.Previous,
			boolInt(after.Mentioned), boolInt(after.ReplyToSelf), encTime(after.Changed), m.ID); err != nil {
			return err
		}
		changed = true
		return nil
	}, func(m *memo) {
		if changed && m.on {
			m.forget(e.ChannelID)
		}
	})
	if errors.Is(err, sql.ErrNoRows) {
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
	err = s.batchApply(ctx, func(ctx context.Context, tx *sql.Tx) error {
		changed = false
		m, err := scanMessage(s.txRow(ctx, tx, editFindSQL, channelID, platformID))
		if err != nil {
			return err
		}
		before = m
		if m.Deleted {
			return nil
		}
		if _, err := tx.ExecContext(ctx, deleteSQL, encTime(changedTime(at)), m.ID); err != nil {
			return err
		}
		changed = true
		return nil
	}, func(m *memo) {
		if !changed || !m.on {
			return
		}
		if !before.Read {
			if n := m.unread[channelID] - 1; n > 0 {
				m.unread[channelID] = n
			} else {
				delete(m.unread, channelID)
			}
		}
		m.forget(channelID)
	})
	if errors.Is(err, sql.ErrNoRows) {
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
