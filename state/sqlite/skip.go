package sqlite

import (
	"context"
	"fmt"

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
	id, err := s.insert(ctx, `INSERT INTO skipped_wakes (channel_id, trigger, reason, time) VALUES (?, ?, ?, ?)`,
		w.ChannelID, w.Trigger, w.Reason, encTime(w.Time))
	if err != nil {
		return 0, fmt.Errorf("add skipped wake of %q: %w", w.ChannelID, err)
	}
	return id, nil
}

// SkippedWakes returns the recorded skipped wakes in id order: of one
// channel when f.ChannelID is set, at or after f.Since when it is set.
func (s *Store) SkippedWakes(ctx context.Context, f state.TickFilter) ([]state.SkippedWake, error) {
	out, err := collect(func(sc scanner) (state.SkippedWake, error) {
		var (
			w state.SkippedWake
			t int64
		)
		err := sc.Scan(&w.ID, &w.ChannelID, &w.Trigger, &w.Reason, &t)
		w.Time = decTime(t)
		return w, err
	})(s.query(ctx, `SELECT id, channel_id, trigger, reason, time FROM skipped_wakes
WHERE (?1 = '' OR channel_id = ?1) AND (?2 = 0 OR time >= ?2) ORDER BY id`, f.ChannelID, encTime(f.Since)))
	if err != nil {
		return nil, fmt.Errorf("list skipped wakes: %w", err)
	}
	return out, nil
}
