package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/airi-go/airi/state"
)

// ErrLeaseLost is returned by AddOutbox when this process runs as a
// replica and no longer holds the channel's lease: another replica drives
// the channel now, and this one must not send.
var ErrLeaseLost = errors.New("the channel's lease is held by another replica")

// AddOutbox records a send before the platform is called. An empty State
// is stored as pending; zero Created and Updated are stamped with s.Now.
//
// On a replica the insert is the claim of the send: it happens only if
// this replica holds the channel's lease with the generation the tick
// started under (see Replica.Pin), and is alive, checked in the same
// statement; otherwise it fails with ErrLeaseLost and nothing is
// recorded.
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
	args := []any{e.ChannelID, state.CleanText(e.Content), e.ReplyTo, string(e.State), e.PlatformID, e.Error, tsArg(e.Created), tsArg(e.Updated), e.Kind}
	q := `INSERT INTO outbox (channel_id, content, reply_to, state, platform_id, error, created, updated, kind, replica)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, '') RETURNING id`
	if r := s.currentReplica(); r != nil {
		gen, ok := r.fence(e.ChannelID)
		if !ok {
			return 0, fmt.Errorf("add outbox entry for %q: %w", e.ChannelID, ErrLeaseLost)
		}
		q = `INSERT INTO outbox (channel_id, content, reply_to, state, platform_id, error, created, updated, kind, replica)
SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10
WHERE EXISTS (SELECT 1 FROM leases l JOIN replicas r ON r.id = l.holder
	WHERE l.channel_id = $1 AND l.holder = $10 AND l.generation = $11 AND r.expires > now())
RETURNING id`
		args = append(args, r.id, gen)
	}
	var id int64
	err := s.pool.QueryRow(ctx, q, args...).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		if r := s.currentReplica(); r != nil {
			r.lost(e.ChannelID)
		}
		return 0, fmt.Errorf("add outbox entry for %q: %w", e.ChannelID, ErrLeaseLost)
	}
	if err != nil {
		return 0, fmt.Errorf("add outbox entry for %q: %w", e.ChannelID, err)
	}
	return id, nil
}

// SetOutboxState records the outcome of a send and stamps Updated with
// s.Now; an unknown id gives state.ErrNotFound.
func (s *Store) SetOutboxState(ctx context.Context, id int64, st state.OutboxState, platformID, errText string) error {
	if err := s.setOutboxState(ctx, s.pool, id, st, platformID, errText); err != nil {
		return fmt.Errorf("set outbox entry %d state: %w", id, err)
	}
	return nil
}

// execer runs a statement: the pool, or a transaction.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

func (s *Store) setOutboxState(ctx context.Context, db execer, id int64, st state.OutboxState, platformID, errText string) error {
	if st == "" {
		return errors.New("empty state")
	}
	tag, err := db.Exec(ctx, `UPDATE outbox SET state = $1, platform_id = $2, error = $3, updated = $4 WHERE id = $5`,
		string(st), platformID, errText, s.Now(), id)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return state.ErrNotFound
	}
	return nil
}

// PendingOutbox returns the entries still pending whose outcome is
// unknown, in id order, across every channel: those recorded outside
// replica mode and those of replicas that are no longer alive. A pending
// entry of a live replica is a send in flight, not a crash's leftover.
func (s *Store) PendingOutbox(ctx context.Context) ([]state.OutboxEntry, error) {
	rows, err := s.pool.Query(ctx, `
SELECT o.id, o.channel_id, o.content, o.reply_to, o.state, o.platform_id, o.error, o.created, o.updated, o.kind
FROM outbox o WHERE o.state = 'pending'
	AND NOT EXISTS (SELECT 1 FROM replicas r WHERE r.id = o.replica AND o.replica <> '' AND r.expires > now())
ORDER BY o.id`)
	out, err := collect(rows, err, scanOutbox)
	if err != nil {
		return nil, fmt.Errorf("pending outbox: %w", err)
	}
	return out, nil
}

func scanOutbox(row pgx.Row) (state.OutboxEntry, error) {
	var (
		e                state.OutboxEntry
		st               string
		created, updated *time.Time
	)
	err := row.Scan(&e.ID, &e.ChannelID, &e.Content, &e.ReplyTo, &st, &e.PlatformID, &e.Error, &created, &updated, &e.Kind)
	e.State = state.OutboxState(st)
	e.Created = decTS(created)
	e.Updated = decTS(updated)
	return e, err
}
