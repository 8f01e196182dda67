package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/airi-go/airi/state"
)

// AddSkippedWake records a wake that made no model call; a zero Time is
// stamped with s.Now.
func (s *Store) AddSkippedWake(ctx context.Context, w state.SkippedWake) (int64, error) {
	if err := w.Validate(); err != nil {
		return 0, fmt.Errorf("add skipped wake: %w", err)
	}
	if w.Time.IsZero() {
		w.Time = s.Now()
	}
	var id int64
	err := s.pool.QueryRow(ctx, `INSERT INTO skipped_wakes (channel_id, trigger, reason, time) VALUES ($1, $2, $3, $4) RETURNING id`,
		w.ChannelID, w.Trigger, w.Reason, normTime(w.Time)).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("add skipped wake of %q: %w", w.ChannelID, err)
	}
	return id, nil
}

// SkippedWakes returns the recorded skipped wakes in id order: of one
// channel when f.ChannelID is set, at or after f.Since when it is set.
func (s *Store) SkippedWakes(ctx context.Context, f state.TickFilter) ([]state.SkippedWake, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, channel_id, trigger, reason, time FROM skipped_wakes
WHERE ($1 = '' OR channel_id = $1) AND ($2::timestamptz IS NULL OR time >= $2) ORDER BY id`,
		f.ChannelID, tsArg(f.Since))
	out, err := collect(rows, err, func(r pgx.Row) (state.SkippedWake, error) {
		var (
			w state.SkippedWake
			t time.Time
		)
		err := r.Scan(&w.ID, &w.ChannelID, &w.Trigger, &w.Reason, &t)
		w.Time = t.UTC()
		return w, err
	})
	if err != nil {
		return nil, fmt.Errorf("list skipped wakes: %w", err)
	}
	return out, nil
}
