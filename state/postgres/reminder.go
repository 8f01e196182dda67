package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/airi-go/airi/state"
)

const reminderColumns = `id, channel_id, created_by, content, first, due, every, zone, compose, state, count, outbox, created, updated`

// AddReminder stores a new pending reminder unless a cap of lim is
// reached. The channel's reminders are locked for the count, so replicas
// adding at once cannot pass a cap together.
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
	r.Content = state.CleanText(r.Content)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// One lock per channel and one per person serialise the counts.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('airi-reminders:' || $1))`, r.ChannelID); err != nil {
			return err
		}
		if r.CreatedBy != "" {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('airi-reminders-by:' || $1))`, r.CreatedBy); err != nil {
				return err
			}
		}
		count := func(q, arg string) (int, error) {
			var n int
			err := tx.QueryRow(ctx, q, arg).Scan(&n)
			return n, err
		}
		if lim.PerChannel > 0 {
			n, err := count(`SELECT count(*) FROM reminders WHERE channel_id = $1 AND state = 'pending'`, r.ChannelID)
			if err != nil {
				return err
			}
			if n >= lim.PerChannel {
				return &state.ReminderLimitError{Scope: "channel", Limit: lim.PerChannel}
			}
		}
		if lim.PerPerson > 0 && r.CreatedBy != "" {
			n, err := count(`SELECT count(*) FROM reminders WHERE created_by = $1 AND state = 'pending'`, r.CreatedBy)
			if err != nil {
				return err
			}
			if n >= lim.PerPerson {
				return &state.ReminderLimitError{Scope: "person", Limit: lim.PerPerson}
			}
		}
		return tx.QueryRow(ctx, `
INSERT INTO reminders (channel_id, created_by, content, first, due, every, zone, compose, state, count, outbox, created, updated)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0, 0, $10, $11) RETURNING id`,
			r.ChannelID, r.CreatedBy, r.Content, r.First, r.Due, r.Every, r.Zone, r.Compose, string(r.State), r.Created, r.Updated).Scan(&r.ID)
	})
	if err != nil {
		return r, fmt.Errorf("add reminder for %q: %w", r.ChannelID, err)
	}
	return r, nil
}

// Reminder returns one reminder, or state.ErrNotFound.
func (s *Store) Reminder(ctx context.Context, id int64) (state.Reminder, error) {
	r, err := scanReminder(s.pool.QueryRow(ctx, `SELECT `+reminderColumns+` FROM reminders WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return r, fmt.Errorf("reminder %d: %w", id, state.ErrNotFound)
	}
	if err != nil {
		return r, fmt.Errorf("reminder %d: %w", id, err)
	}
	return r, nil
}

// ListReminders returns the reminders f selects, by due time then id.
func (s *Store) ListReminders(ctx context.Context, f state.ReminderFilter) ([]state.Reminder, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+reminderColumns+` FROM reminders
WHERE ($1 = '' OR channel_id = $1) AND (NOT $2 OR state = 'pending') ORDER BY due, id`, f.ChannelID, f.Pending)
	out, err := collect(rows, err, scanReminder)
	if err != nil {
		return nil, fmt.Errorf("list reminders: %w", err)
	}
	return out, nil
}

// CancelReminder cancels a pending reminder, of channelID when it is set.
func (s *Store) CancelReminder(ctx context.Context, id int64, channelID string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE reminders SET state = 'cancelled', updated = $1
WHERE id = $2 AND state = 'pending' AND ($3 = '' OR channel_id = $3)`, s.Now(), id, channelID)
	if err != nil {
		return fmt.Errorf("cancel reminder %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("cancel reminder %d: %w", id, state.ErrNotFound)
	}
	return nil
}

// DueReminders returns up to limit pending reminders due at or before t.
func (s *Store) DueReminders(ctx context.Context, t time.Time, limit int) ([]state.Reminder, error) {
	var lim any
	if limit > 0 {
		lim = limit
	}
	rows, err := s.pool.Query(ctx, `SELECT `+reminderColumns+` FROM reminders
WHERE state = 'pending' AND due <= $1 ORDER BY due, id LIMIT $2`, t, lim)
	out, err := collect(rows, err, scanReminder)
	if err != nil {
		return nil, fmt.Errorf("due reminders: %w", err)
	}
	return out, nil
}

// ClaimReminder moves a reminder past one occurrence and adds its outbox
// entry in one transaction. On a replica the outbox entry is inserted only
// while this replica holds the channel's lease with the generation it
// pinned, as AddOutbox does; otherwise ErrLeaseLost and nothing changes.
func (s *Store) ClaimReminder(ctx context.Context, c state.ReminderClaim) (int64, error) {
	now := s.Now()
	next, st := c.Next, state.ReminderPending
	if next.IsZero() {
		st = c.End
		if st == "" || st == state.ReminderPending {
			st = state.ReminderDone
		}
		next = c.Due
	}
	var outboxID int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if c.Outbox != nil {
			id, err := s.claimOutbox(ctx, tx, *c.Outbox, now)
			if err != nil {
				return err
			}
			outboxID = id
		}
		tag, err := tx.Exec(ctx, `UPDATE reminders SET due = $1, state = $2, count = count + 1 + $3,
	outbox = CASE WHEN $4::bigint > 0 THEN $4::bigint ELSE outbox END, updated = $5
WHERE id = $6 AND state = 'pending' AND count = $7`,
			next, string(st), c.Skipped, outboxID, now, c.ID, c.Count)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return state.ErrReminderClaimed
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("claim reminder %d occurrence %d: %w", c.ID, c.Count, err)
	}
	return outboxID, nil
}

func (s *Store) claimOutbox(ctx context.Context, tx pgx.Tx, e state.OutboxEntry, now time.Time) (int64, error) {
	if e.ChannelID == "" {
		return 0, errors.New("outbox entry without a channel id")
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
	args := []any{e.ChannelID, state.CleanText(e.Content), e.ReplyTo, string(e.State), e.PlatformID, e.Error, tsArg(e.Created), tsArg(e.Updated)}
	q := `INSERT INTO outbox (channel_id, content, reply_to, state, platform_id, error, created, updated, replica)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, '') RETURNING id`
	r := s.currentReplica()
	if r != nil {
		gen, ok := r.fence(e.ChannelID)
		if !ok {
			return 0, ErrLeaseLost
		}
		q = `INSERT INTO outbox (channel_id, content, reply_to, state, platform_id, error, created, updated, replica)
SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9
WHERE EXISTS (SELECT 1 FROM leases l JOIN replicas r ON r.id = l.holder
	WHERE l.channel_id = $1 AND l.holder = $9 AND l.generation = $10 AND r.expires > now())
RETURNING id`
		args = append(args, r.id, gen)
	}
	var id int64
	err := tx.QueryRow(ctx, q, args...).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		r.lost(e.ChannelID)
		return 0, ErrLeaseLost
	}
	return id, err
}

func scanReminder(row pgx.Row) (state.Reminder, error) {
	var (
		r  state.Reminder
		st string
	)
	err := row.Scan(&r.ID, &r.ChannelID, &r.CreatedBy, &r.Content, &r.First, &r.Due, &r.Every, &r.Zone, &r.Compose,
		&st, &r.Count, &r.Outbox, &r.Created, &r.Updated)
	r.State = state.ReminderState(st)
	r.First, r.Due, r.Created, r.Updated = r.First.UTC(), r.Due.UTC(), r.Created.UTC(), r.Updated.UTC()
	return r, err
}
