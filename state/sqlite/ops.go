package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/state"
)

var _ state.Operations = (*Store)(nil)

// pruneBatch bounds the rows one retention transaction deletes, so that
// the bot's own writes never wait long behind it.
const pruneBatch = 500

// ChannelControls returns every stored channel control by channel id.
func (s *Store) ChannelControls(ctx context.Context) (map[string]state.ChannelControl, error) {
	list, err := collect(scanControl)(s.query(ctx, `SELECT channel_id, paused, paused_until, mode FROM channel_controls`))
	if err != nil {
		return nil, fmt.Errorf("list channel controls: %w", err)
	}
	out := make(map[string]state.ChannelControl, len(list))
	for _, c := range list {
		out[c.ChannelID] = c
	}
	return out, nil
}

func scanControl(sc scanner) (state.ChannelControl, error) {
	var (
		c     state.ChannelControl
		until int64
	)
	err := sc.Scan(&c.ChannelID, &c.Paused, &until, &c.Mode)
	c.PausedUntil = decTime(until)
	return c, err
}

// ChannelControl returns one channel's control; a channel without one
// gets the zero control.
func (s *Store) ChannelControl(ctx context.Context, channelID string) (state.ChannelControl, error) {
	s.fresh(ctx)
	if c, ok := s.memo.control(channelID); ok {
		return c, nil
	}
	c, err := scanControl(s.row(ctx, `SELECT channel_id, paused, paused_until, mode FROM channel_controls WHERE channel_id = ?`, channelID))
	if errors.Is(err, sql.ErrNoRows) {
		return state.ChannelControl{ChannelID: channelID}, nil
	}
	if err != nil {
		return state.ChannelControl{}, fmt.Errorf("get control of %q: %w", channelID, err)
	}
	return c, nil
}

// SetChannelControl stores a channel's control.
func (s *Store) SetChannelControl(ctx context.Context, c state.ChannelControl) error {
	if err := c.Validate(); err != nil {
		return err
	}
	c.PausedUntil = normTime(c.PausedUntil)
	_, err := s.execApply(ctx, func(m *memo) { m.setControl(c) }, `
INSERT INTO channel_controls (channel_id, paused, paused_until, mode) VALUES (?1, ?2, ?3, ?4)
ON CONFLICT (channel_id) DO UPDATE SET paused = ?2, paused_until = ?3, mode = ?4`,
		c.ChannelID, boolInt(c.Paused), encTime(c.PausedUntil), c.Mode)
	if err != nil {
		return fmt.Errorf("set control of %q: %w", c.ChannelID, err)
	}
	return nil
}

// Activity returns the newest tick, the newest error and the tokens spent
// since since, per channel.
func (s *Store) Activity(ctx context.Context, since time.Time) (map[string]state.TickActivity, error) {
	out := map[string]state.TickActivity{}
	err := s.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `
SELECT channel_id, id, now, trigger, coalesce(json_extract(action, '$.action'), ''), parse_error <> '', model_error <> ''
FROM ticks WHERE id IN (SELECT max(id) FROM ticks GROUP BY channel_id)`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				a          state.TickActivity
				t          state.TickSummary
				now        int64
				pErr, mErr bool
			)
			if err := rows.Scan(&a.ChannelID, &t.ID, &now, &t.Trigger, &t.Outcome, &pErr, &mErr); err != nil {
				return err
			}
			t.Now = decTime(now)
			t.Outcome = state.SummaryOutcome(t.Outcome, pErr, mErr)
			a.LastTick = &t
			out[a.ChannelID] = a
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows, err = tx.QueryContext(ctx, `
SELECT channel_id, now, CASE WHEN model_error <> '' THEN model_error ELSE parse_error END FROM ticks
WHERE id IN (SELECT max(id) FROM ticks WHERE parse_error <> '' OR (model_error <> '' AND model_error NOT LIKE 'interrupted:%') GROUP BY channel_id)`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				id, text string
				now      int64
			)
			if err := rows.Scan(&id, &now, &text); err != nil {
				return err
			}
			a := out[id]
			a.ChannelID, a.LastError, a.LastErrorAt = id, text, decTime(now)
			out[id] = a
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows, err = tx.QueryContext(ctx, `SELECT channel_id, sum(prompt_tokens + completion_tokens) FROM ticks WHERE now >= ? GROUP BY channel_id`, encTime(since))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				id string
				n  int
			)
			if err := rows.Scan(&id, &n); err != nil {
				return err
			}
			a := out[id]
			a.ChannelID, a.Tokens = id, n
			out[id] = a
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("read channel activity: %w", err)
	}
	return out, nil
}

// ResetChannel clears a channel's action history and marks its unread
// messages read.
func (s *Store) ResetChannel(ctx context.Context, channelID string) (int64, error) {
	var n int64
	err := s.bulk(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM actions WHERE channel_id = ?`, channelID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE messages SET read = 1 WHERE channel_id = ? AND read = 0`, channelID)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	}, func(m *memo) { m.cleared(channelID) })
	if err != nil {
		return 0, fmt.Errorf("reset channel %q: %w", channelID, err)
	}
	return n, nil
}

// ForgetChannel deletes a channel's messages, ticks, actions and outbox.
func (s *Store) ForgetChannel(ctx context.Context, channelID string) (state.ChannelForgotten, error) {
	var f state.ChannelForgotten
	err := s.erase(ctx, func(tx *sql.Tx) error {
		for _, q := range []struct {
			sql string
			n   *int64
		}{
			{`DELETE FROM messages WHERE channel_id = ?`, &f.Messages},
			{`DELETE FROM ticks WHERE channel_id = ?`, &f.Ticks},
			{`DELETE FROM actions WHERE channel_id = ?`, &f.Actions},
			{`DELETE FROM outbox WHERE channel_id = ?`, nil},
			{`DELETE FROM reactions WHERE channel_id = ?`, nil},
			{`DELETE FROM reminders WHERE channel_id = ?`, nil},
			{`DELETE FROM history_counts WHERE channel_id = ?`, nil},
		} {
			res, err := tx.ExecContext(ctx, q.sql, channelID)
			if err != nil {
				return err
			}
			if q.n != nil {
				if *q.n, err = res.RowsAffected(); err != nil {
					return err
				}
			}
		}
		return nil
	}, func(m *memo) { m.cleared(channelID) })
	if err != nil {
		return state.ChannelForgotten{}, fmt.Errorf("forget channel %q: %w", channelID, err)
	}
	return f, nil
}

// PruneTicks deletes tick records older than before, and reminders that
// ended before it, in batches.
func (s *Store) PruneTicks(ctx context.Context, before time.Time) (int64, error) {
	n, err := s.prune(ctx, "ticks", `DELETE FROM ticks WHERE id IN (SELECT id FROM ticks WHERE now < ? LIMIT +?)`, before)
	if err != nil {
		return n, err
	}
	if _, err := s.prune(ctx, "reminders", `DELETE FROM reminders WHERE id IN (SELECT id FROM reminders WHERE state <> 'pending' AND updated < ? LIMIT +?)`, before); err != nil {
		return n, err
	}
	return n, s.pruneBases(ctx)
}

// PruneMessages deletes read messages older than before, and outbox
// entries of finished sends as old, in batches.
func (s *Store) PruneMessages(ctx context.Context, before time.Time) (int64, error) {
	n, err := s.prune(ctx, "messages", `DELETE FROM messages WHERE id IN (SELECT id FROM messages WHERE read = 1 AND time < ? LIMIT +?)`, before)
	if err != nil {
		return n, err
	}
	if _, err := s.prune(ctx, "outbox", `DELETE FROM outbox WHERE id IN (SELECT id FROM outbox WHERE state <> 'pending' AND created < ? LIMIT +?)`, before); err != nil {
		return n, err
	}
	return n, nil
}

func (s *Store) prune(ctx context.Context, table, query string, before time.Time) (int64, error) {
	var total int64
	for {
		var n int64
		err := s.bulk(ctx, func(tx *sql.Tx) error {
			res, err := tx.ExecContext(ctx, query, encTime(before), pruneBatch)
			if err != nil {
				return err
			}
			if n, err = res.RowsAffected(); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO counters (name, n) VALUES (?1, ?2) ON CONFLICT (name) DO UPDATE SET n = n + ?2`, "pruned_"+table, n); err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, `INSERT INTO counters (name, n) VALUES ('last_prune', ?1) ON CONFLICT (name) DO UPDATE SET n = ?1`, time.Now().UnixNano())
			return err
		}, func(m *memo) {
			if table == "messages" && n > 0 {
				// Read messages went: the histories the memo keeps may
				// hold some. Unread counts are unchanged.
				m.forgetAll()
			}
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

// erase runs a transaction that forgets, as bulk does, so that what it
// deletes leaves the file: secure_delete overwrites the deleted rows
// with zeros instead of leaving them in free pages; the prompt bases no
// tick refers to any more (which may quote the forgotten) are deleted;
// and the write-ahead log, whose earlier frames still hold the pages as
// they were, is checkpointed into the file and truncated.
func (s *Store) erase(ctx context.Context, fn func(tx *sql.Tx) error, after func(m *memo)) error {
	if _, err := s.writer.ExecContext(ctx, "PRAGMA secure_delete = ON"); err != nil {
		return fmt.Errorf("secure delete: %w", err)
	}
	defer func() {
		if _, err := s.writer.ExecContext(context.WithoutCancel(ctx), "PRAGMA secure_delete = OFF"); err != nil {
			s.logger.Warn("turn secure delete off again", zap.Error(err))
		}
	}()
	if err := s.bulk(ctx, fn, after); err != nil {
		return err
	}
	if err := s.pruneBases(ctx); err != nil {
		return err
	}
	var busy, frames, done int
	if err := s.writer.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &frames, &done); err != nil {
		return fmt.Errorf("checkpoint the log: %w", err)
	}
	if busy != 0 {
		// A reader of another process holds an older snapshot: its
		// frames stay in the log until the next checkpoint.
		s.logger.Warn("the write-ahead log could not be truncated while another process reads; the next checkpoint clears it",
			zap.Int("frames", frames), zap.Int("checkpointed", done))
	}
	return nil
}

// Reclaim gives pages freed by deletions back to the file system. A file
// made before incremental vacuum was chosen is converted once (a full
// VACUUM, which rewrites the file).
func (s *Store) Reclaim(ctx context.Context) error {
	var mode int
	if err := s.writer.QueryRowContext(ctx, "PRAGMA auto_vacuum").Scan(&mode); err != nil {
		return fmt.Errorf("reclaim space: %w", err)
	}
	if mode != 2 {
		s.logger.Info("converting the database to incremental vacuum (once; the file is rewritten)", zap.String("path", s.path))
		if _, err := s.writer.ExecContext(ctx, "PRAGMA auto_vacuum = INCREMENTAL"); err != nil {
			return fmt.Errorf("reclaim space: %w", err)
		}
		if _, err := s.writer.ExecContext(ctx, "VACUUM"); err != nil {
			return fmt.Errorf("reclaim space: vacuum: %w", err)
		}
		return nil
	}
	rows, err := s.writer.QueryContext(ctx, "PRAGMA incremental_vacuum")
	if err != nil {
		return fmt.Errorf("reclaim space: %w", err)
	}
	for rows.Next() {
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("reclaim space: %w", err)
	}
	return rows.Err()
}

// statTables are the tables Stats reports, in order.
var statTables = []string{"channels", "messages", "actions", "outbox", "ticks", "cursors", "history_counts", "token_usage", "updates", "channel_controls", "counters"}

// Stats returns rows and bytes per table (indexes included), the file's
// size and free space, and what retention deleted.
func (s *Store) Stats(ctx context.Context) (state.Stats, error) {
	st := state.Stats{Engine: "sqlite", Pruned: map[string]int64{}}
	err := s.read(ctx, func(tx *sql.Tx) error {
		bytes := map[string]int64{}
		rows, err := tx.QueryContext(ctx, `SELECT m.tbl_name, sum(d.pgsize) FROM dbstat d JOIN sqlite_master m ON m.name = d.name GROUP BY m.tbl_name`)
		if err != nil {
			return fmt.Errorf("read table sizes: %w", err)
		}
		for rows.Next() {
			var (
				name string
				n    int64
			)
			if err := rows.Scan(&name, &n); err != nil {
				rows.Close()
				return err
			}
			bytes[name] = n
		}
		rows.Close()
		for _, t := range statTables {
			ts := state.TableStats{Name: t, Bytes: bytes[t]}
			// The names are our own constants.
			if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM "+t).Scan(&ts.Rows); err != nil {
				return fmt.Errorf("count %s: %w", t, err)
			}
			st.Tables = append(st.Tables, ts)
		}
		var pageSize, pages, free int64
		if err := tx.QueryRowContext(ctx, "PRAGMA page_size").Scan(&pageSize); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, "PRAGMA freelist_count").Scan(&free); err != nil {
			return err
		}
		st.FileBytes, st.FreeBytes = pages*pageSize, free*pageSize
		rows, err = tx.QueryContext(ctx, `SELECT name, n FROM counters`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				name string
				n    int64
			)
			if err := rows.Scan(&name, &n); err != nil {
				return err
			}
			if name == "last_prune" {
				st.LastPrune = decTime(n)
			} else if table, ok := cutPrefix(name, "pruned_"); ok {
				st.Pruned[table] = n
			}
		}
		return rows.Err()
	})
	if err != nil {
		return state.Stats{}, fmt.Errorf("database stats: %w", err)
	}
	return st, nil
}

func cutPrefix(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):], true
	}
	return "", false
}

// Backup writes a consistent copy of the database to path (VACUUM INTO),
// while other connections and processes go on writing. path must not
// exist.
func (s *Store) Backup(ctx context.Context, path string) error {
	// VACUUM INTO only reads this database, but a query-only connection
	// refuses it: it gets a connection of its own.
	db, err := sql.Open("sqlite", s.path+"?"+connPragmas())
	if err != nil {
		return fmt.Errorf("back up %s: %w", s.path, err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", path); err != nil {
		return fmt.Errorf("back up %s to %s: %w", s.path, path, err)
	}
	return nil
}

// initVacuum chooses incremental vacuum for a new, empty file: the choice
// is written into the file's header by the first schema change.
func initVacuum(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return fmt.Errorf("set incremental vacuum: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{"PRAGMA auto_vacuum = INCREMENTAL", "CREATE TABLE airi_init (x INTEGER)", "DROP TABLE airi_init"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("set incremental vacuum: %w", err)
		}
	}
	return nil
}
