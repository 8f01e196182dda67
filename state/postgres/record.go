package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/airi-go/airi/state"
)

// IngestIn records ch and stores msg in one transaction; see
// state.Recorder.
func (s *Store) IngestIn(ctx context.Context, ch state.Channel, msg state.Message) (state.Message, bool, error) {
	if err := msg.Validate(); err != nil {
		return state.Message{}, false, fmt.Errorf("ingest message: %w", err)
	}
	query, args, err := channelUpsert(ch)
	if err != nil {
		return state.Message{}, false, err
	}
	msg = ingestable(msg)
	var isNew bool
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) (err error) {
		if _, err := tx.Exec(ctx, query, args...); err != nil {
			return err
		}
		msg, isNew, err = s.ingestIn(ctx, tx, msg)
		return err
	})
	if err != nil {
		return state.Message{}, false, fmt.Errorf("ingest message %q in %q with its channel: %w", msg.PlatformID, ch.ID, err)
	}
	return msg, isNew, nil
}

// RecordTick stores the end of a tick in one transaction whose commit,
// like AddTick's, does not wait for the disk; see state.Recorder.
func (s *Store) RecordTick(ctx context.Context, act *state.ActionRecord, keep, over int, t state.Tick) (actionID, tickID int64, err error) {
	tickQuery, tickArgs, err := s.tickInsert(t)
	if err != nil {
		return 0, 0, err
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('synchronous_commit', 'off', true)`); err != nil {
			return err
		}
		if act != nil {
			query, args := actionInsert(*act)
			if err := tx.QueryRow(ctx, query, args...).Scan(&actionID); err != nil {
				return fmt.Errorf("append action: %w", err)
			}
			if err := trimIn(ctx, tx, act.ChannelID, keep, over); err != nil {
				return fmt.Errorf("trim actions: %w", err)
			}
		}
		return tx.QueryRow(ctx, tickQuery, tickArgs...).Scan(&tickID)
	})
	if err != nil {
		return 0, 0, fmt.Errorf("record tick for %q: %w", t.ChannelID, err)
	}
	return actionID, tickID, nil
}

// RecordSent marks outbox entry id done and stores the sent message in
// one transaction; see state.Recorder.
func (s *Store) RecordSent(ctx context.Context, id int64, platformID, errText string, msg state.Message) error {
	if err := msg.Validate(); err != nil {
		return fmt.Errorf("record sent message: %w", err)
	}
	msg = ingestable(msg)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := s.setOutboxState(ctx, tx, id, state.OutboxDone, platformID, errText); err != nil {
			return fmt.Errorf("set outbox entry %d state: %w", id, err)
		}
		_, _, err := s.ingestIn(ctx, tx, msg)
		return err
	})
	if err != nil {
		return fmt.Errorf("record sent message of outbox entry %d: %w", id, err)
	}
	return nil
}
