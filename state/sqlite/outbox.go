package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/airi-go/airi/state"
)

// AddOutbox records a send before the platform is called. An empty State
// is stored as pending; zero Created and Updated are stamped with s.Now.
func (s *Store) AddOutbox(ctx context.Context, e state.OutboxEntry) (int64, error) {
	if e.ChannelID == "" {
		return 0, errors.New("add outbox entry: empty channel id")
	}
	if e.State == "" {
		e.State = state.OutboxPending
	}
	now := s.Now()
	if e.Created.IsZero() {
		e.Created = now
	}
	if e.Updated.IsZero() {
		e.Updated = e.Created
	}
	id, err := s.insert(ctx, `
INSERT INTO outbox (channel_id, content, reply_to, state, platform_id, error, created, updated, kind)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.ChannelID, state.CleanText(e.Content), e.ReplyTo, string(e.State), e.PlatformID, e.Error, encTime(e.Created), encTime(e.Updated), e.Kind)
	if err != nil {
		return 0, fmt.Errorf("add outbox entry for %q: %w", e.ChannelID, err)
	}
	return id, nil
}

// SetOutboxState records the outcome of a send and stamps Updated with
// s.Now; an unknown id gives state.ErrNotFound.
func (s *Store) SetOutboxState(ctx context.Context, id int64, st state.OutboxState, platformID, errText string) error {
	if st == "" {
		return fmt.Errorf("set outbox entry %d state: empty state", id)
	}
	res, err := s.exec(ctx, setOutboxSQL, string(st), platformID, errText, encTime(s.Now()), id)
	if err != nil {
		return fmt.Errorf("set outbox entry %d state: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("set outbox entry %d state: %w", id, err)
	}
	if n == 0 {
		return fmt.Errorf("set outbox entry %d state: %w", id, state.ErrNotFound)
	}
	return nil
}

const setOutboxSQL = `UPDATE outbox SET state = ?, platform_id = ?, error = ?, updated = ? WHERE id = ?`

// RecordSent records a send that went out in one transaction: its outbox
// entry marked done (as SetOutboxState(id, state.OutboxDone, platformID,
// errText) does) and the message stored in the history (as Ingest does).
// On an error, an unknown id among them, nothing is stored. One commit
// instead of two (BenchmarkRuntimeTick).
func (s *Store) RecordSent(ctx context.Context, id int64, platformID, errText string, msg state.Message) error {
	if err := msg.Validate(); err != nil {
		return fmt.Errorf("record sent message: %w", err)
	}
	msg = ingestReady(msg)
	_, _, err := s.ingestAfter(ctx, msg, func(ctx context.Context, tx *sql.Tx) (bool, error) {
		st, err := s.txStmt(ctx, tx, setOutboxSQL)
		if err != nil {
			return false, err
		}
		res, err := st.ExecContext(ctx, string(state.OutboxDone), platformID, errText, encTime(s.Now()), id)
		if err != nil {
			return false, err
		}
		if n, err := res.RowsAffected(); err != nil {
			return false, err
		} else if n == 0 {
			return false, state.ErrNotFound
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("record sent message of outbox entry %d: %w", id, err)
	}
	return nil
}

// PendingOutbox returns the entries still pending, in id order, across
// every channel.
func (s *Store) PendingOutbox(ctx context.Context) ([]state.OutboxEntry, error) {
	out, err := collect(scanOutbox)(s.query(ctx, `
SELECT id, channel_id, content, reply_to, state, platform_id, error, created, updated, kind
FROM outbox WHERE state = 'pending' ORDER BY id`))
	if err != nil {
		return nil, fmt.Errorf("pending outbox: %w", err)
	}
	return out, nil
}

func scanOutbox(rows scanner) (state.OutboxEntry, error) {
	var (
		e                state.OutboxEntry
		st               string
		created, updated int64
	)
	err := rows.Scan(&e.ID, &e.ChannelID, &e.Content, &e.ReplyTo, &st, &e.PlatformID, &e.Error, &created, &updated, &e.Kind)
	e.State = state.OutboxState(st)
	e.Created = decTime(created)
	e.Updated = decTime(updated)
	return e, err
}
