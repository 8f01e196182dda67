package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"

	"github.com/airi-go/airi/state"
)

var _ state.Operations = (*Store)(nil)

// pruneBatch bounds the rows one retention statement deletes.
const pruneBatch = 1000

// ChannelControls returns every stored channel control by channel id.
func (s *Store) ChannelControls(ctx context.Context) (map[string]state.ChannelControl, error) {
	rows, err := s.pool.Query(ctx, `SELECT channel_id, paused, paused_until, mode FROM channel_controls`)
	if err != nil {
		return nil, fmt.Errorf("list channel controls: %w", err)
	}
	defer rows.Close()
	out := map[string]state.ChannelControl{}
	for rows.Next() {
		var (
			c     state.ChannelControl
			until *time.Time
		)
		if err := rows.Scan(&c.ChannelID, &c.Paused, &until, &c.Mode); err != nil {
			return nil, fmt.Errorf("list channel controls: %w", err)
		}
		c.PausedUntil = decTS(until)
		out[c.ChannelID] = c
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list channel controls: %w", err)
	}
	return out, nil
}

// ChannelControl returns one channel's control; a channel without one
// gets the zero control.
func (s *Store) ChannelControl(ctx context.Context, channelID string) (state.ChannelControl, error) {
	c := state.ChannelControl{ChannelID: channelID}
	var until *time.Time
	err := s.pool.QueryRow(ctx, `SELECT paused, paused_until, mode FROM channel_controls WHERE channel_id = $1`, channelID).Scan(&c.Paused, &until, &c.Mode)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, nil
	}
	if err != nil {
		return state.ChannelControl{}, fmt.Errorf("get control of %q: %w", channelID, err)
	}
	c.PausedUntil = decTS(until)
	return c, nil
}

// SetChannelControl stores a channel's control.
func (s *Store) SetChannelControl(ctx context.Context, c state.ChannelControl) error {
	if err := c.Validate(); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, `
INSERT INTO channel_controls (channel_id, paused, paused_until, mode) VALUES ($1, $2, $3, $4)
ON CONFLICT (channel_id) DO UPDATE SET paused = $2, paused_until = $3, mode = $4`,
		c.ChannelID, c.Paused, tsArg(c.PausedUntil), c.Mode)
	if err != nil {
		return fmt.Errorf("set control of %q: %w", c.ChannelID, err)
	}
	return nil
}

// Activity returns the newest tick, the newest error and the tokens spent
// since since, per channel.
func (s *Store) Activity(ctx context.Context, since time.Time) (map[string]state.TickActivity, error) {
	out := map[string]state.TickActivity{}
	rows, err := s.pool.Query(ctx, `
SELECT DISTINCT ON (channel_id) channel_id, id, now, trigger, coalesce(action::jsonb->>'action', ''), parse_error <> '', model_error <> ''
FROM ticks ORDER BY channel_id, id DESC`)
	if err != nil {
		return nil, fmt.Errorf("read channel activity: %w", err)
	}
	for rows.Next() {
		var (
			a          state.TickActivity
			t          state.TickSummary
			now        *time.Time
			pErr, mErr bool
		)
		if err := rows.Scan(&a.ChannelID, &t.ID, &now, &t.Trigger, &t.Outcome, &pErr, &mErr); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read channel activity: %w", err)
		}
		t.Now = decTS(now)
		t.Outcome = state.SummaryOutcome(t.Outcome, pErr, mErr)
		a.LastTick = &t
		out[a.ChannelID] = a
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read channel activity: %w", err)
	}
	rows, err = s.pool.Query(ctx, `
SELECT DISTINCT ON (channel_id) channel_id, now, CASE WHEN model_error <> '' THEN model_error ELSE parse_error END
FROM ticks WHERE parse_error <> '' OR (model_error <> '' AND model_error NOT LIKE 'interrupted:%')
ORDER BY channel_id, id DESC`)
	if err != nil {
		return nil, fmt.Errorf("read channel errors: %w", err)
	}
	for rows.Next() {
		var (
			id, text string
			now      *time.Time
		)
		if err := rows.Scan(&id, &now, &text); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read channel errors: %w", err)
		}
		a := out[id]
		a.ChannelID, a.LastError, a.LastErrorAt = id, text, decTS(now)
		out[id] = a
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read channel errors: %w", err)
	}
	rows, err = s.pool.Query(ctx, `SELECT channel_id, sum(prompt_tokens + completion_tokens) FROM ticks WHERE now >= $1 GROUP BY channel_id`, since)
	if err != nil {
		return nil, fmt.Errorf("read token use: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id string
			n  int64
		)
		if err := rows.Scan(&id, &n); err != nil {
			return nil, fmt.Errorf("read token use: %w", err)
		}
		a := out[id]
		a.ChannelID, a.Tokens = id, int(n)
		out[id] = a
	}
	return out, rows.Err()
}

// ResetChannel clears a channel's action history and marks its unread
// messages read.
func (s *Store) ResetChannel(ctx context.Context, channelID string) (int64, error) {
	var n int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM actions WHERE channel_id = $1`, channelID); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE messages SET read = true WHERE channel_id = $1 AND NOT read`, channelID)
		n = tag.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("reset channel %q: %w", channelID, err)
	}
	return n, nil
}

// ForgetChannel deletes a channel's messages, ticks, actions and outbox.
func (s *Store) ForgetChannel(ctx context.Context, channelID string) (state.ChannelForgotten, error) {
	var f state.ChannelForgotten
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		for _, q := range []struct {
			sql string
			n   *int64
		}{
			{`DELETE FROM messages WHERE channel_id = $1`, &f.Messages},
			{`DELETE FROM ticks WHERE channel_id = $1`, &f.Ticks},
			{`DELETE FROM actions WHERE channel_id = $1`, &f.Actions},
			{`DELETE FROM outbox WHERE channel_id = $1`, nil},
			{`DELETE FROM reactions WHERE channel_id = $1`, nil},
			{`DELETE FROM reminders WHERE channel_id = $1`, nil},
		} {
			tag, err := tx.Exec(ctx, q.sql, channelID)
			if err != nil {
				return err
			}
			if q.n != nil {
				*q.n = tag.RowsAffected()
			}
		}
		return nil
	})
	if err != nil {
		return state.ChannelForgotten{}, fmt.Errorf("forget channel %q: %w", channelID, err)
	}
	s.vacuumForgotten(ctx)
	return f, nil
}

// vacuumForgotten vacuums the tables a forget deletes from. A deleted
// row stays in its table's pages, readable by anyone with the data
// files, until VACUUM removes it: VACUUM prunes the dead rows from the
// pages and their index entries, so that no query, dump or replica
// built afterwards holds them. It does not rewrite the files (VACUUM
// FULL would, under an exclusive lock): the bytes of a pruned row can
// remain in a page's free space until the page is written again. The
// forget is done whether or not the vacuum succeeds; a failure is
// logged.
func (s *Store) vacuumForgotten(ctx context.Context) {
	if _, err := s.pool.Exec(ctx, `VACUUM messages, ticks, actions, outbox, notes`); err != nil {
		s.logger.Warn("vacuum the tables a forget deleted from; run VACUUM on them by hand", zap.Error(err))
	}
}

// PruneTicks deletes tick records older than before, and reminders that
// ended before it, in batches.
func (s *Store) PruneTicks(ctx context.Context, before time.Time) (int64, error) {
	n, err := s.prune(ctx, "ticks", `DELETE FROM ticks WHERE id IN (SELECT id FROM ticks WHERE now < $1 LIMIT $2)`, before)
	if err != nil {
		return n, err
	}
	if _, err := s.prune(ctx, "reminders", `DELETE FROM reminders WHERE id IN (SELECT id FROM reminders WHERE state <> 'pending' AND updated < $1 LIMIT $2)`, before); err != nil {
		return n, err
	}
	return n, nil
}

// PruneMessages deletes read messages older than before, and outbox
// entries of finished sends as old, in batches.
func (s *Store) PruneMessages(ctx context.Context, before time.Time) (int64, error) {
	n, err := s.prune(ctx, "messages", `DELETE FROM messages WHERE id IN (SELECT id FROM messages WHERE read AND time < $1 LIMIT $2)`, before)
	if err != nil {
		return n, err
	}
	if _, err := s.prune(ctx, "outbox", `DELETE FROM outbox WHERE id IN (SELECT id FROM outbox WHERE state <> 'pending' AND created < $1 LIMIT $2)`, before); err != nil {
		return n, err
	}
	return n, nil
}

func (s *Store) prune(ctx context.Context, table, query string, before time.Time) (int64, error) {
	var total int64
	for {
		var n int64
		err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx, query, before, pruneBatch)
			if err != nil {
				return err
			}
			n = tag.RowsAffected()
			if _, err := tx.Exec(ctx, `INSERT INTO counters (name, n) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET n = counters.n + $2`, "pruned_"+table, n); err != nil {
				return err
			}
			_, err = tx.Exec(ctx, `INSERT INTO counters (name, n) VALUES ('last_prune', $1) ON CONFLICT (name) DO UPDATE SET n = $1`, time.Now().UnixNano())
			return err
		})
		if err != nil {
			return total, fmt.Errorf("prune %s: %w", table, err)
		}
		total += n
		if n < pruneBatch {
			return total, nil
		}
	}
}

// Reclaim does nothing: PostgreSQL's autovacuum reuses the space of
// deleted rows.
func (s *Store) Reclaim(context.Context) error { return nil }

// statTables are the tables Stats reports, in order.
var statTables = []string{"channels", "messages", "actions", "outbox", "ticks", "cursors", "history_counts", "updates", "channel_controls", "counters", "replicas", "leases", "roles"}

// Stats returns rows and bytes per table (indexes and TOAST included) and
// what retention deleted.
func (s *Store) Stats(ctx context.Context) (state.Stats, error) {
	st := state.Stats{Engine: "postgres", Pruned: map[string]int64{}}
	for _, t := range statTables {
		ts := state.TableStats{Name: t}
		// The names are our own constants.
		err := s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM `+t+`), pg_total_relation_size(to_regclass($1))`, t).Scan(&ts.Rows, &ts.Bytes)
		if err != nil {
			return state.Stats{}, fmt.Errorf("database stats of %s: %w", t, err)
		}
		st.FileBytes += ts.Bytes
		st.Tables = append(st.Tables, ts)
	}
	rows, err := s.pool.Query(ctx, `SELECT name, n FROM counters`)
	if err != nil {
		return state.Stats{}, fmt.Errorf("database stats: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			name string
			n    int64
		)
		if err := rows.Scan(&name, &n); err != nil {
			return state.Stats{}, fmt.Errorf("database stats: %w", err)
		}
		switch {
		case name == "last_prune":
			st.LastPrune = time.Unix(0, n).UTC()
		case len(name) > len("pruned_") && name[:len("pruned_")] == "pruned_":
			st.Pruned[name[len("pruned_"):]] = n
		}
	}
	return st, rows.Err()
}
