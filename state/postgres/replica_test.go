package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/postgres"
	"github.com/airi-go/airi/state/postgres/pgtest"
)

// events collects what a replica reports, for tests to wait on.
type events struct {
	mu      sync.Mutex
	gained  map[string]int
	msgs    map[string]int
	changed chan struct{}
}

func newEvents() *events {
	return &events{gained: map[string]int{}, msgs: map[string]int{}, changed: make(chan struct{}, 1)}
}

// Resume implements postgres.Follower.
func (e *events) Resume(_ context.Context, id string) { e.add(e.gained, id) }

// MessageStored implements postgres.Follower.
func (e *events) MessageStored(id string) { e.add(e.msgs, id) }

func (e *events) add(m map[string]int, id string) {
	e.mu.Lock()
	m[id]++
	e.mu.Unlock()
	select {
	case e.changed <- struct{}{}:
	default:
	}
}

// waitFor waits until cond holds, re-checking on every reported event and
// on a short poll of the database's view.
func waitFor(t *testing.T, what string, cond func() bool, evs ...*events) {
	t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	poll := time.NewTicker(20 * time.Millisecond)
	defer poll.Stop()
	for !cond() {
		var ch chan struct{}
		if len(evs) > 0 {
			ch = evs[0].changed
		}
		select {
		case <-deadline.C:
			t.Fatalf("timed out waiting until %s", what)
		case <-ch:
		case <-poll.C:
		}
	}
}

func startReplica(t *testing.T, dsn string, ttl time.Duration, ev *events) (*postgres.Store, *postgres.Replica) {
	t.Helper()
	s := open(t, dsn)
	t.Cleanup(func() { s.Close() })
	r, err := s.NewReplica(postgres.ReplicaOptions{
		TTL: ttl, Interval: ttl / 10, Logger: zaptest.NewLogger(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	return s, r
}

func addChannels(t *testing.T, s state.Store, n int) []string {
	t.Helper()
	var ids []string
	for i := range n {
		id := fmt.Sprintf("telegram:%d", i)
		if err := s.UpsertChannel(context.Background(), state.Channel{ID: id, Platform: "telegram"}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

// TestLeasesSpreadAndFailOver: two replicas share the channels, each held
// by exactly one; when one leaves, the other takes all of them.
func TestLeasesSpreadAndFailOver(t *testing.T) {
	dsn := pgtest.DSN(t)
	setup := open(t, dsn)
	defer setup.Close()
	ids := addChannels(t, setup, 20)

	eva, evb := newEvents(), newEvents()
	_, a := startReplica(t, dsn, 2*time.Second, eva)
	_, b := startReplica(t, dsn, 2*time.Second, evb)
	split := func() bool {
		na, nb := 0, 0
		for _, id := range ids {
			ha, hb := a.Holds(id), b.Holds(id)
			if ha && hb {
				t.Fatalf("%s held by both replicas", id)
			}
			if ha {
				na++
			}
			if hb {
				nb++
			}
		}
		return na+nb == len(ids) && na > 0 && nb > 0
	}
	waitFor(t, "the channels are spread over both replicas", split)

	// A pinned channel is not given away; Pin fails where the lease is not held.
	for _, id := range ids {
		rel, ok := a.Pin(id)
		if ok != a.Holds(id) {
			t.Errorf("Pin(%s) = %v, Holds = %v", id, ok, a.Holds(id))
		}
		if ok {
			rel()
		}
	}

	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the remaining replica holds every channel", func() bool {
		for _, id := range ids {
			if !b.Holds(id) {
				return false
			}
		}
		return true
	}, evb)
	for _, id := range ids {
		if a.Holds(id) {
			t.Errorf("closed replica still holds %s", id)
		}
	}
}

// TestSendFenced: a replica whose lease was taken over cannot record a
// send for the channel, even before its own heartbeat notices.
func TestSendFenced(t *testing.T) {
	dsn := pgtest.DSN(t)
	s, r := startReplica(t, dsn, 20*time.Second, newEvents())
	ctx := context.Background()
	if err := s.UpsertChannel(ctx, state.Channel{ID: "c1", Platform: "telegram"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the replica holds c1", func() bool { return r.Holds("c1") })
	if _, err := s.AddOutbox(ctx, state.OutboxEntry{ChannelID: "c1", Content: "mine"}); err != nil {
		t.Fatalf("AddOutbox while holding the lease: %v", err)
	}
	// Another replica takes the lease over (as after a stall past the TTL).
	other := open(t, dsn)
	defer other.Close()
	if _, err := other.Pool().Exec(ctx, `INSERT INTO replicas (id, expires) VALUES ('other', now() + interval '1 hour')`); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Pool().Exec(ctx, `UPDATE leases SET holder = 'other', generation = generation + 1 WHERE channel_id = 'c1'`); err != nil {
		t.Fatal(err)
	}
	_, err := s.AddOutbox(ctx, state.OutboxEntry{ChannelID: "c1", Content: "stale"})
	if !errors.Is(err, postgres.ErrLeaseLost) {
		t.Fatalf("AddOutbox after losing the lease = %v, want ErrLeaseLost", err)
	}
	if r.Holds("c1") {
		t.Error("the replica still believes it holds c1 after a fenced send")
	}
	var n int
	if err := other.Pool().QueryRow(ctx, `SELECT count(*) FROM outbox WHERE content = 'stale'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("fenced send recorded %d rows (%v), want 0", n, err)
	}
	// The pending entry of a live replica is in flight, not a leftover.
	pending, err := other.PendingOutbox(ctx)
	if err != nil || len(pending) != 0 {
		t.Errorf("PendingOutbox while its replica lives = %v, %v; want none", pending, err)
	}
}

// TestSendFencedByTheTicksGeneration: a tick that started under one
// generation of a channel's lease cannot send once the lease was lost
// and taken again during it (paused past the TTL while another replica
// answered), although this replica holds the lease again; the next tick,
// under the new generation, sends.
func TestSendFencedByTheTicksGeneration(t *testing.T) {
	dsn := pgtest.DSN(t)
	s, r := startReplica(t, dsn, 2*time.Second, newEvents())
	ctx := context.Background()
	if err := s.UpsertChannel(ctx, state.Channel{ID: "c1", Platform: "telegram"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the replica holds c1", func() bool { return r.Holds("c1") })
	gen, _ := r.Generation("c1")
	release, ok := r.Pin("c1") // the tick starts
	if !ok {
		t.Fatal("Pin of a held channel failed")
	}
	// During the model call the lease went to another replica and back.
	if _, err := s.Pool().Exec(ctx, `UPDATE leases SET generation = generation + 1 WHERE channel_id = 'c1'`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the replica holds c1 under the new generation", func() bool {
		g, ok := r.Generation("c1")
		return ok && g == gen+1
	})
	if _, err := s.AddOutbox(ctx, state.OutboxEntry{ChannelID: "c1", Content: "stale"}); !errors.Is(err, postgres.ErrLeaseLost) {
		t.Fatalf("the old tick's send = %v; want ErrLeaseLost", err)
	}
	release()
	waitFor(t, "the replica holds c1 again", func() bool { return r.Holds("c1") })
	release, ok = r.Pin("c1") // the next tick
	if !ok {
		t.Fatal("Pin after the fenced send failed")
	}
	defer release()
	if _, err := s.AddOutbox(ctx, state.OutboxEntry{ChannelID: "c1", Content: "fresh"}); err != nil {
		t.Fatalf("the new tick's send: %v", err)
	}
	var stale int
	if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM outbox WHERE content = 'stale'`).Scan(&stale); err != nil || stale != 0 {
		t.Errorf("the fenced send recorded %d rows (%v), want 0", stale, err)
	}
}

// TestNotifyWakesHolder: a message stored through any connection wakes
// the replica holding its channel.
func TestNotifyWakesHolder(t *testing.T) {
	dsn := pgtest.DSN(t)
	ev := newEvents()
	_, r := startReplica(t, dsn, 5*time.Second, ev)
	other := open(t, dsn)
	defer other.Close()
	ctx := context.Background()
	if err := other.UpsertChannel(ctx, state.Channel{ID: "c1", Platform: "telegram"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the replica holds c1", func() bool { return r.Holds("c1") }, ev)
	if _, _, err := other.Ingest(ctx, state.Message{ChannelID: "c1", PlatformID: "1", SenderName: "Ann", Content: "hi", Time: time.Now()}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the holder is told of the message", func() bool {
		ev.mu.Lock()
		defer ev.mu.Unlock()
		return ev.msgs["c1"] > 0
	}, ev)
}

// TestRoleElection: of two replicas running one role, exactly one runs it
// at a time, and the other takes over when the holder leaves.
func TestRoleElection(t *testing.T) {
	dsn := pgtest.DSN(t)
	_, a := startReplica(t, dsn, 2*time.Second, newEvents())
	_, b := startReplica(t, dsn, 2*time.Second, newEvents())
	var (
		mu      sync.Mutex
		running = map[string]bool{}
		both    bool
	)
	started := make(chan string, 4)
	role := func(name string) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			mu.Lock()
			running[name] = true
			both = both || len(running) > 1
			mu.Unlock()
			started <- name
			<-ctx.Done()
			mu.Lock()
			delete(running, name)
			mu.Unlock()
			return nil
		}
	}
	ctxA, cancelA := context.WithCancel(context.Background())
	ctxB, cancelB := context.WithCancel(context.Background())
	defer cancelB()
	doneA, doneB := make(chan error, 1), make(chan error, 1)
	go func() { doneA <- a.RunRole(ctxA, "intake:telegram", role("a")) }()
	go func() { doneB <- b.RunRole(ctxB, "intake:telegram", role("b")) }()
	first := <-started
	holder, cancel, done := a, cancelA, doneA
	if first == "b" {
		holder, cancel, done = b, cancelB, doneB
	}
	if !holder.HoldsRole("intake:telegram") {
		t.Errorf("replica %s runs the role without holding it", first)
	}
	cancel() // the holder stops (a deploy); the other takes over
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if second := <-started; second == first {
		t.Fatalf("the role started on %s again", second)
	}
	mu.Lock()
	defer mu.Unlock()
	if both {
		t.Error("both replicas ran the role at once")
	}
	cancelA()
	cancelB()
}

// TestRoleComesBackAfterAnOutage cuts a replica off from the database
// for longer than its TTL while it runs a role nobody else competes for
// (its heartbeat waits on a lock another session holds): the role ends
// when its lease runs out locally, and once the heartbeat gets through
// it is taken again through the election, with a new generation, and
// runs again, although the database named this replica all along.
func TestRoleComesBackAfterAnOutage(t *testing.T) {
	dsn := pgtest.DSN(t)
	s, r := startReplica(t, dsn, 2*time.Second, newEvents())
	started, stopped := make(chan struct{}, 4), make(chan struct{}, 4)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- r.RunRole(ctx, "intake:telegram", func(ctx context.Context) error {
			started <- struct{}{}
			<-ctx.Done()
			stopped <- struct{}{}
			return nil
		})
	}()
	wait := func(ch chan struct{}, what string) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(30 * time.Second):
			t.Fatalf("timed out waiting until the role %s", what)
		}
	}
	generation := func() int64 {
		t.Helper()
		var gen int64
		if err := s.Pool().QueryRow(ctx, `SELECT generation FROM roles WHERE name = 'intake:telegram'`).Scan(&gen); err != nil {
			t.Fatal(err)
		}
		return gen
	}
	wait(started, "first ran")
	gen1 := generation()
	outage, err := s.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := outage.Exec(ctx, `LOCK TABLE replicas IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	wait(stopped, "stopped during the outage")
	if err := outage.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	wait(started, "ran again after the outage")
	if !r.HoldsRole("intake:telegram") {
		t.Error("the role runs again without being held")
	}
	if gen2 := generation(); gen2 <= gen1 {
		t.Errorf("generation %d after the outage, %d before; want the role taken again through the election", gen2, gen1)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestRoleHolder names the live replica running a role, and nobody once
// it gave the role up.
func TestRoleHolder(t *testing.T) {
	dsn := pgtest.DSN(t)
	_, a := startReplica(t, dsn, 2*time.Second, newEvents())
	_, b := startReplica(t, dsn, 2*time.Second, newEvents())
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		done <- a.RunRole(ctx, "intake:telegram", func(ctx context.Context) error {
			started <- struct{}{}
			<-ctx.Done()
			return nil
		})
	}()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the role never ran")
	}
	if h, err := b.RoleHolder(context.Background(), "intake:telegram"); err != nil || h != a.ID() {
		t.Errorf("RoleHolder = %q, %v; want %q", h, err, a.ID())
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if h, err := b.RoleHolder(context.Background(), "intake:telegram"); err != nil || h != "" {
		t.Errorf("RoleHolder after the role ended = %q, %v; want nobody", h, err)
	}
}
