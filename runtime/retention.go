package runtime

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/state"
)

// RetentionInterval is how often the running bot applies retention: a
// quarter of the shorter retention, at most an hour, at least a second.
func RetentionInterval(ticks, messages time.Duration) time.Duration {
	d := time.Hour
	for _, r := range []time.Duration{ticks, messages} {
		if r > 0 && r/4 < d {
			d = r / 4
		}
	}
	return max(d, time.Second)
}

// retain applies the tick and message retention: one pass at start, then
// one per interval, until ctx ends.
func retain(ctx context.Context, st state.Store, ticks, messages time.Duration, log *zap.Logger) error {
	if ticks <= 0 && messages <= 0 {
		return nil
	}
	t := time.NewTicker(RetentionInterval(ticks, messages))
	defer t.Stop()
	for {
		if err := RetentionPass(ctx, st, ticks, messages, time.Now(), log); err != nil && ctx.Err() == nil {
			log.Warn("retention pass failed; trying again at the next one", zap.Error(err))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// RetentionPass deletes the ticks and messages older than their retention
// (zero keeps them) as of now, and gives the space back.
func RetentionPass(ctx context.Context, st state.Store, ticks, messages time.Duration, now time.Time, log *zap.Logger) error {
	var nt, nm int64
	var errs []error
	if ticks > 0 {
		n, err := st.PruneTicks(ctx, now.Add(-ticks))
		nt = n
		errs = append(errs, err)
	}
	if messages > 0 {
		n, err := st.PruneMessages(ctx, now.Add(-messages))
		nm = n
		errs = append(errs, err)
	}
	if nt > 0 || nm > 0 {
		errs = append(errs, st.Reclaim(ctx))
		log.Info("retention deleted old records", zap.Int64("ticks", nt), zap.Int64("messages", nm))
	}
	return errors.Join(errs...)
}
