package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/airi-go/airi/state"
)

const reminderColumns = `id, channel_id, created_by, content, first, due, every, zone, compose, state, count, outbox, created, updated`

// AddReminder stores a new pending reminder unless a cap of lim is
// reached; the count and the insert are one transaction.
func (s *Store) AddReminder(ctx context.Context, r state.Reminder, lim state.ReminderLimits) (state.Reminder, error) {
	if err := r.Validate(); err != nil {
		return r, fmt.Errorf("add reminder: %w", err)
	}
	now := s.Now()
	if r.First.IsZero() {
		r.First = r.Due
	}
	r.State, r.Count, r.Outbox = state.ReminderPending, 0, 0
	r.Created, r.Updated = normTime(now), normTime(now)
	r.First, r.Due = normTime(r.First), normTime(r.Due)
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := overLimit(ctx, tx, r, lim); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `
INSERT INTO reminders (channel_id, created_by, content, first, due, every, zone, compose, state, count, outbox, created, updated)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?)`,
			r.ChannelID, r.CreatedBy, state.CleanText(r.Content), encTime(r.First), encTime(r.Due), r.Every, r.Zone,
			r.Compose, string(r.State), encTime(r.Created), encTime(r.Updated))
		if err != nil {
			return err
		}
		r.ID, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return r, fmt.Errorf("add reminder for %q: %w", r.ChannelID, err)
	}
	r.Content = state.CleanText(r.Content)
	return r, nil
}

func overLimit(ctx context.Context, tx *sql.Tx, r state.Reminder, lim state.ReminderLimits) error {
	count := func(q string, arg string) (int, error) {
		var n int
		err := tx.QueryRowContext(ctx, q, arg).Scan(&n)
		return n, err
	}
	if lim.PerChannel > 0 {
		n, err := count(`SELECT count(*) FROM reminders WHERE channel_id = ? AND state = 'pending'`, r.ChannelID)
		if err != nil {
			return err
		}
		if n >= lim.PerChannel {
			return &state.ReminderLimitError{Scope: "channel", Limit: lim.PerChannel}
		}
	}
	if lim.PerPerson > 0 && r.CreatedBy != "" {
		n, err := count(`SELECT count(*) FROM reminders WHERE created_by = ? AND state = 'pending'`, r.CreatedBy)
		if err != nil {
			return err
		}
		if n >= lim.PerPerson {
			return &state.ReminderLimitError{Scope: "person", Limit: lim.PerPerson}
		}
	}
	return nil
}

// Reminder returns one reminder, or state.ErrNotFound.
func (s *Store) Reminder(ctx context.Context, id int64) (state.Reminder, error) {
	r, err := scanReminder(s.row(ctx, `SELECT `+reminderColumns+` FROM reminders WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("reminder %d: %w", id, state.ErrNotFound)
	}
	if err != nil {
		return r, fmt.Errorf("reminder %d: %w", id, err)
	}
	return r, nil
}

// ListReminders returns the reminders f selects, by due time then id.
func (s *Store) ListReminders(ctx context.Context, f state.ReminderFilter) ([]state.Reminder, error) {
	q := `SELECT ` + reminderColumns + ` FROM reminders WHERE (? = '' OR channel_id = ?) AND (? = 0 OR state = 'pending') ORDER BY due, id`
	out, err := collect(scanReminder)(s.query(ctx, q, f.ChannelID, f.ChannelID, f.Pending))
	if err != nil {
		return nil, fmt.Errorf("list reminders: %w", err)
	}
	return out, nil
}

// CancelReminder cancels a pending reminder, of channelID when it is set.
func (s *Store) CancelReminder(ctx context.Context, id int64, channelID string) error {
	res, err := s.exec(ctx, `UPDATE reminders SET state = 'cancelled', updated = ?
WHERE id = ? AND state = 'pending' AND (? = '' OR channel_id = ?)`, encTime(s.Now()), id, channelID, channelID)
	if err != nil {
		return fmt.Errorf("cancel reminder %d: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("cancel reminder %d: %w", id, err)
	} else if n == 0 {
		return fmt.Errorf("cancel reminder %d: %w", id, state.ErrNotFound)
	}
	return nil
}

// DueReminders returns up to limit pending reminders due at or before t.
func (s *Store) DueReminders(ctx context.Context, t time.Time, limit int) ([]state.Reminder, error) {
	if limit <= 0 {
		limit = -1
	}
	out, err := collect(scanReminder)(s.query(ctx, `SELECT `+reminderColumns+`
FROM reminders WHERE state = 'pending' AND due <= ? ORDER BY due, id LIMIT ?`, encTime(t), limit))
	if err != nil {
		return nil, fmt.Errorf("due reminders: %w", err)
	}
	return out, nil
}

// ClaimReminder moves a reminder past one occurrence and adds its outbox
// entry in one transaction.
func (s *Store) ClaimReminder(ctx context.Context, c state.ReminderClaim) (int64, error) {
	now := s.Now()
	next, st := c.Next, state.ReminderPending
	if next.IsZero() {
		st = c.End
		if st == "" || st == state.ReminderPending {
			st = state.ReminderDone
		}
	}
	var outboxID int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		if c.Outbox != nil {
			e := *c.Outbox
			if e.ChannelID == "" {
				return errors.New("outbox entry without a channel id")
			}
			if e.State == "" {
				e.State = state.OutboxPending
			}
			if e.Created.IsZero() {
				e.Created = now
			}
			if e.Updated.IsZero() {
				e.Updated = e.Created
			}
			res, err := tx.ExecContext(ctx, `
INSERT INTO outbox (channel_id, content, reply_to, state, platform_id, error, created, updated)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
				e.ChannelID, state.CleanText(e.Content), e.ReplyTo, string(e.State), e.PlatformID, e.Error, encTime(e.Created), encTime(e.Updated))
			if err != nil {
				return err
			}
			if outboxID, err = res.LastInsertId(); err != nil {
				return err
			}
		}
		dueArg := encTime(next)
		if next.IsZero() {
			dueArg = encTime(c.Due)
		}
		res, err := tx.ExecContext(ctx, `UPDATE reminders SET due = ?, state = ?, count = count + 1 + ?,
	outbox = CASE WHEN ? > 0 THEN ? ELSE outbox END, updated = ?
WHERE id = ? AND state = 'pending' AND count = ?`,
			dueArg, string(st), c.Skipped, outboxID, outboxID, encTime(now), c.ID, c.Count)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return state.ErrReminderClaimed
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("claim reminder %d occurrence %d: %w", c.ID, c.Count, err)
	}
	return outboxID, nil
}

func scanReminder(row scanner) (state.Reminder, error) {
	var (
		r                            state.Reminder
		st                           string
		first, due, created, updated int64
	)
	err := row.Scan(&r.ID, &r.ChannelID, &r.CreatedBy, &r.Content, &first, &due, &r.Every, &r.Zone, &r.Compose,
		&st, &r.Count, &r.Outbox, &created, &updated)
	r.State = state.ReminderState(st)
	r.First, r.Due, r.Created, r.Updated = decTime(first), decTime(due), decTime(created), decTime(updated)
	return r, err
}
