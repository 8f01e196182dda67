package postgres

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/airi-go/airi/internal/backoff"
	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"
)

// DefaultLeaseTTL is how long a replica keeps its leases and roles after
// its last heartbeat when ReplicaOptions.TTL is zero.
const DefaultLeaseTTL = 15 * time.Second

// ReplicaOptions configure a replica.
type ReplicaOptions struct {
	// ID names the replica; the default is the host name, the process id
	// and a random suffix. Two live processes must never share one.
	ID string
	// TTL is how long a replica stays alive, and keeps its leases and
	// roles, after its last heartbeat [DefaultLeaseTTL]. A replica that cannot
	// reach the database stops driving its channels before the TTL ends.
	TTL time.Duration
	// Interval is the heartbeat period, which also bounds how soon a free
	// channel or role is taken (default TTL/5, at most one second).
	Interval time.Duration
	Logger   *zap.Logger
	// Now is the local clock (default time.Now).
	Now func() time.Time
}

// Follower is told what a replica learns about its channels; the
// scheduler implements it. It is handed to Start, once it is complete.
type Follower interface {
	// Resume is called for every channel whose lease the replica gains:
	// its loop should resume (unread messages, sends of unknown outcome).
	Resume(ctx context.Context, channelID string)
	// MessageStored is called when a message from someone else was
	// stored, by any replica, for a channel this replica holds.
	MessageStored(channelID string)
}

// Replica is one process among several serving one bot on one database.
// It keeps itself alive with heartbeats, holds the leases of its share of
// the channels (spread over the live replicas by rendezvous hashing),
// competes for roles such as the platform intake, and listens for
// messages stored by the others. Its sends are fenced: see
// Store.AddOutbox.
type Replica struct {
	s    *Store
	id   string
	opts ReplicaOptions
	log  *zap.Logger

	kick chan struct{} // asks for a step now

	mu       sync.Mutex
	deadline time.Time        // local instant until which leases and roles are valid
	held     map[string]int64 // channel -> lease generation
	pins     map[string]int   // channel -> ticks running
	// fences holds, for each pinned channel, the lease generation held
	// when its first pin was taken: the generation a tick started under,
	// which its sends must still hold however the lease moved since.
	fences map[string]int64
	live   []string // live replica ids as of the last step
	roles  map[string]*role

	follower Follower
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// role is one intake role this replica competes for.
type role struct {
	held bool
	// lost is set when the role ended here while the database may still
	// name this replica (its lease ran out locally: the database was
	// unreachable, or the process was paused, for longer than the TTL).
	// The role is then taken again only through the election, with a
	// new generation, never from what the database remembers.
	lost    bool
	changed chan struct{} // closed and replaced when held changes
}

// NewReplica prepares this process to run as a replica of the store; it
// does nothing until Start. Until then, and after Close, it holds no
// channel.
func (s *Store) NewReplica(opts ReplicaOptions) (*Replica, error) {
	if opts.TTL <= 0 {
		opts.TTL = DefaultLeaseTTL
	}
	if opts.Interval <= 0 {
		opts.Interval = min(opts.TTL/5, time.Second)
	}
	if opts.Interval >= opts.TTL/2 {
		return nil, fmt.Errorf("new replica: heartbeat interval %v must be under half the lease TTL %v", opts.Interval, opts.TTL)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.ID == "" {
		host, _ := os.Hostname()
		var b [4]byte
		_, _ = rand.Read(b[:])
		opts.ID = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
	}
	return &Replica{
		s: s, id: opts.ID, opts: opts, log: opts.Logger.Named("replica").With(zap.String("replica", opts.ID)),
		kick: make(chan struct{}, 1), held: map[string]int64{}, pins: map[string]int{}, fences: map[string]int64{}, roles: map[string]*role{},
	}, nil
}

// Start registers the replica, takes its first share of the channels and
// starts the heartbeat and the listener, which run until Close. Sends
// through the store are fenced from then on. f is told of the first share
// from the heartbeat's goroutine, after Start returns, and of every
// channel gained or message stored by another replica until Close.
func (r *Replica) Start(ctx context.Context, f Follower) error {
	if f == nil {
		return errors.New("start replica: no follower")
	}
	r.follower = f
	s := r.s
	s.mu.Lock()
	if s.replica != nil {
		s.mu.Unlock()
		return errors.New("start replica: the store already runs one")
	}
	s.replica = r
	s.mu.Unlock()

	listener, err := r.listen(ctx)
	if err != nil {
		r.detach()
		return fmt.Errorf("start replica %s: %w", r.id, err)
	}
	gained, err := r.step(ctx)
	if err != nil {
		listener.Release()
		r.detach()
		return fmt.Errorf("start replica %s: %w", r.id, err)
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r.cancel = cancel
	r.wg.Add(2)
	go r.heartbeat(runCtx, gained)
	go r.notifications(runCtx, listener)
	r.log.Info("replica started", zap.Duration("ttl", r.opts.TTL), zap.Int("channels", len(gained)))
	return nil
}

// ID returns the replica's id.
func (r *Replica) ID() string { return r.id }

func (r *Replica) detach() {
	r.s.mu.Lock()
	if r.s.replica == r {
		r.s.replica = nil
	}
	r.s.mu.Unlock()
}

// Close stops the heartbeat and the listener and gives up the replica's
// leases and roles at once, so the others take them over without waiting
// for the TTL. The store stays open.
func (r *Replica) Close(ctx context.Context) error {
	if r.cancel != nil {
		r.cancel()
	}
	r.wg.Wait()
	r.mu.Lock()
	r.held = map[string]int64{}
	r.deadline = time.Time{}
	for _, ro := range r.roles {
		ro.set(false)
	}
	r.mu.Unlock()
	err := pgx.BeginFunc(ctx, r.s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE leases SET holder = '' WHERE holder = $1`, r.id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE roles SET holder = '' WHERE holder = $1`, r.id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM replicas WHERE id = $1`, r.id)
		return err
	})
	r.detach()
	if err != nil {
		return fmt.Errorf("close replica %s: %w", r.id, err)
	}
	return nil
}

// Pin reports whether this replica holds the channel's lease and, if it
// does, keeps it from being handed to another replica until release is
// called. The scheduler pins a channel for each tick.
func (r *Replica) Pin(channelID string) (release func(), ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	gen, held := r.held[channelID]
	if !held || !r.opts.Now().Before(r.deadline) {
		return nil, false
	}
	if r.pins[channelID] == 0 {
		r.fences[channelID] = gen
	}
	r.pins[channelID]++
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			if r.pins[channelID]--; r.pins[channelID] <= 0 {
				delete(r.pins, channelID)
				delete(r.fences, channelID)
			}
			r.mu.Unlock()
		})
	}, true
}

// Holds reports whether this replica holds the channel's lease now.
func (r *Replica) Holds(channelID string) bool {
	_, ok := r.generation(channelID)
	return ok
}

// Held returns the channels whose leases this replica holds.
func (r *Replica) Held() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.held))
	for id := range r.held {
		out = append(out, id)
	}
	return out
}

// generation returns the lease generation this replica holds for a
// channel, while the lease is valid.
// Generation returns the generation of the channel's lease this replica
// holds, and whether it holds it.
func (r *Replica) Generation(channelID string) (int64, bool) { return r.generation(channelID) }

// fence returns the generation a send of the channel must still hold:
// while a tick has the channel pinned, the one it started under, so that
// a lease lost and taken again during a slow model call does not let the
// call's send out; otherwise the one held now.
func (r *Replica) fence(channelID string) (int64, bool) {
	r.mu.Lock()
	gen, pinned := r.fences[channelID]
	r.mu.Unlock()
	if pinned {
		return gen, true
	}
	return r.generation(channelID)
}

func (r *Replica) generation(channelID string) (int64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	gen, ok := r.held[channelID]
	if !ok || !r.opts.Now().Before(r.deadline) {
		return 0, false
	}
	return gen, true
}

// lost forgets a lease the database says is no longer ours.
func (r *Replica) lost(channelID string) {
	r.mu.Lock()
	delete(r.held, channelID)
	r.mu.Unlock()
	r.poke()
}

// poke asks for a step now.
func (r *Replica) poke() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// owner returns the live replica a channel belongs to (rendezvous hashing:
// adding or removing a replica moves only that replica's share).
func owner(live []string, channelID string) string {
	var (
		best      string
		bestScore uint64
	)
	for _, id := range live {
		sum := sha256.Sum256([]byte(id + "\x00" + channelID))
		if sc := binary.BigEndian.Uint64(sum[:8]); best == "" || sc > bestScore {
			best, bestScore = id, sc
		}
	}
	return best
}

func (r *Replica) heartbeat(ctx context.Context, gained []string) {
	defer r.wg.Done()
	r.announce(ctx, gained)
	t := time.NewTicker(r.opts.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-r.kick:
		}
		gained, err := r.step(ctx)
		if err != nil && ctx.Err() == nil {
			r.log.Warn("replica heartbeat", zap.Error(err))
		}
		r.announce(ctx, gained)
	}
}

func (r *Replica) announce(ctx context.Context, gained []string) {
	for _, id := range gained {
		r.follower.Resume(ctx, id)
	}
}

// step is one heartbeat: stay alive, learn which leases are still ours and
// who else is alive, take the free channels that are ours to take, give
// back idle ones that belong to another replica, and compete for roles.
// It returns the channels gained.
func (r *Replica) step(ctx context.Context) ([]string, error) {
	start := r.opts.Now()
	ttl := r.opts.TTL
	if _, err := r.s.pool.Exec(ctx, `INSERT INTO replicas (id, expires) VALUES ($1, now() + $2::interval)
ON CONFLICT (id) DO UPDATE SET expires = excluded.expires`, r.id, ttl.String()); err != nil {
		return nil, fmt.Errorf("heartbeat: %w", err)
	}
	// Leases are valid locally a margin short of the database's expiry, so
	// a replica cut off from the database stops before another takes over.
	deadline := start.Add(ttl - r.opts.Interval)

	var (
		live  []string
		mine  = map[string]int64{}
		free  []string
		roles = map[string]bool{}
	)
	batch := &pgx.Batch{}
	batch.Queue(`SELECT id FROM replicas WHERE expires > now() ORDER BY id`).Query(func(rows pgx.Rows) error {
		var err error
		live, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	batch.Queue(`SELECT channel_id, generation FROM leases WHERE holder = $1`, r.id).Query(func(rows pgx.Rows) error {
		var (
			id  string
			gen int64
		)
		_, err := pgx.ForEachRow(rows, []any{&id, &gen}, func() error { mine[id] = gen; return nil })
		return err
	})
	// Channels with no live holder: never leased, released, or of a dead replica.
	batch.Queue(`SELECT c.id FROM channels c
LEFT JOIN leases l ON l.channel_id = c.id
WHERE l.channel_id IS NULL OR NOT EXISTS (SELECT 1 FROM replicas r WHERE r.id = l.holder AND r.expires > now())`).Query(func(rows pgx.Rows) error {
		var err error
		free, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	batch.Queue(`SELECT name FROM roles WHERE holder = $1`, r.id).Query(func(rows pgx.Rows) error {
		var name string
		_, err := pgx.ForEachRow(rows, []any{&name}, func() error { roles[name] = true; return nil })
		return err
	})
	if err := r.s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return nil, fmt.Errorf("read leases: %w", err)
	}

	var want []string
	for _, id := range free {
		if owner(live, id) == r.id {
			want = append(want, id)
		}
	}
	var gained []string
	if len(want) > 0 {
		rows, err := r.s.pool.Query(ctx, `INSERT INTO leases (channel_id, holder, generation)
SELECT unnest($1::text[]), $2, 1
ON CONFLICT (channel_id) DO UPDATE SET holder = excluded.holder, generation = leases.generation + 1
WHERE NOT EXISTS (SELECT 1 FROM replicas r WHERE r.id = leases.holder AND r.expires > now())
RETURNING channel_id, generation`, want, r.id)
		if err != nil {
			return nil, fmt.Errorf("take leases: %w", err)
		}
		var (
			id  string
			gen int64
		)
		if _, err := pgx.ForEachRow(rows, []any{&id, &gen}, func() error {
			mine[id] = gen
			gained = append(gained, id)
			return nil
		}); err != nil {
			return nil, fmt.Errorf("take leases: %w", err)
		}
	}

	// Idle channels that belong to another live replica go back to it.
	r.mu.Lock()
	var give []string
	for id := range mine {
		if o := owner(live, id); o != r.id && o != "" && r.pins[id] == 0 {
			give = append(give, id)
			delete(mine, id)
		}
	}
	for id := range r.held {
		if _, ok := mine[id]; !ok {
			r.log.Debug("lease lost", zap.String("channel", id))
		}
	}
	r.held, r.live, r.deadline = mine, live, deadline
	r.mu.Unlock()
	if len(give) > 0 {
		if _, err := r.s.pool.Exec(ctx, `UPDATE leases SET holder = '' WHERE holder = $1 AND channel_id = ANY($2)`, r.id, give); err != nil {
			return gained, fmt.Errorf("give back leases: %w", err)
		}
		r.log.Info("gave leases back to their replicas", zap.Int("channels", len(give)))
	}
	if err := r.stepRoles(ctx, roles); err != nil {
		return gained, err
	}
	return gained, nil
}

// notifyChannel is the LISTEN/NOTIFY channel of the store's schema.
func (s *Store) notifyChannel() string { return "airi_wake_" + s.schema }

// listen takes a connection of its own and listens on it.
func (r *Replica) listen(ctx context.Context) (*pgxConn, error) {
	conn, err := r.s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	if _, err := conn.Exec(ctx, `LISTEN `+pgx.Identifier{r.s.notifyChannel()}.Sanitize()); err != nil {
		conn.Release()
		return nil, fmt.Errorf("listen: %w", err)
	}
	return conn, nil
}

// notifications wakes held channels on messages stored by any replica,
// and takes a new channel that is ours at once instead of at the next
// heartbeat. A broken connection is replaced.
func (r *Replica) notifications(ctx context.Context, conn *pgxConn) {
	defer r.wg.Done()
	defer func() {
		if conn != nil {
			conn.Release()
		}
	}()
	for {
		if conn == nil {
			var err error
			if conn, err = r.listen(ctx); err != nil {
				if ctx.Err() != nil {
					return
				}
				r.log.Warn("listen for messages", zap.Error(err))
				if backoff.Sleep(ctx, r.opts.Interval) != nil {
					return
				}
				continue
			}
			r.poke() // what was missed meanwhile is found by a step
		}
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			r.log.Warn("wait for messages", zap.Error(err))
			conn.Hijack().Close(context.WithoutCancel(ctx)) //nolint:errcheck // the connection is broken
			conn = nil
			continue
		}
		ch := n.Payload
		r.mu.Lock()
		_, held := r.held[ch]
		ours := owner(r.live, ch) == r.id
		r.mu.Unlock()
		switch {
		case held:
			r.follower.MessageStored(ch)
		case ours || len(r.live) == 0:
			r.poke()
		}
	}
}
