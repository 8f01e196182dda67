package schedule_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/schedule"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/postgres"
	"github.com/airi-go/airi/state/postgres/pgtest"
)

func openPG(t *testing.T, dsn string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), dsn, zaptest.NewLogger(t), postgres.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func replica(t *testing.T, dsn string) (*postgres.Store, *postgres.Replica) {
	t.Helper()
	s := openPG(t, dsn)
	r, err := s.NewReplica(postgres.ReplicaOptions{TTL: 2 * time.Second, Interval: 200 * time.Millisecond, Logger: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background(), nopFollower{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	return s, r
}

type nopFollower struct{}

func (nopFollower) Resume(context.Context, string) {}
func (nopFollower) MessageStored(string)           {}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	poll := time.NewTicker(20 * time.Millisecond)
	defer poll.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			t.Fatalf("timed out waiting until %s", what)
		case <-poll.C:
		}
	}
}

// Two replicas share the chats: each delivers only the reminders of the
// chats it holds, a claim for another's chat is refused by the lease
// fence, every reminder arrives once, and when a replica goes its chats'
// reminders are delivered by the other.
func TestReplicasDeliverOnce(t *testing.T) {
	dsn := pgtest.DSN(t)
	setup := openPG(t, dsn)
	ctx := context.Background()
	// Chats go to replicas by rendezvous hashing of random replica ids:
	// with 8 of them one replica got them all in 1 run of 128, and the
	// test found no chat of the other; with 32, 1 in 2 billion.
	var ids []string
	for i := range 32 {
		id := fmt.Sprintf("telegram:%d", i)
		if err := setup.UpsertChannel(ctx, state.Channel{ID: id, Platform: "telegram"}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	addAll := func(content string) {
		for _, id := range ids {
			if _, err := setup.AddReminder(ctx, state.Reminder{ChannelID: id, Content: content, Due: now, Zone: "UTC"}, state.ReminderLimits{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	addAll("first")
	sa, a := replica(t, dsn)
	sb, b := replica(t, dsn)
	waitUntil(t, "both replicas hold chats and every chat is held", func() bool {
		na, nb := 0, 0
		for _, id := range ids {
			if a.Holds(id) {
				na++
			}
			if b.Holds(id) {
				nb++
			}
		}
		return na > 0 && nb > 0 && na+nb == len(ids)
	})
	clockNow := func() time.Time { return now.Add(time.Second) }
	sendA, sendB := &sender{}, &sender{}
	// Without the lease check of Pin, a's claims of b's chats are refused
	// by the store's fence.
	unpinned := &schedule.Due{Store: sa, Sender: sendA, Now: clockNow, Logger: zaptest.NewLogger(t)}
	_, err := unpinned.Step(ctx)
	if !errors.Is(err, postgres.ErrLeaseLost) {
		t.Fatalf("Step of a replica over chats it does not hold: error %v, want ErrLeaseLost", err)
	}
	dueB := &schedule.Due{Store: sb, Sender: sendB, Now: clockNow, Pin: b.Pin, Logger: zaptest.NewLogger(t)}
	if _, err := dueB.Step(ctx); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, s := range append(append([]sent(nil), sendA.sent...), sendB.sent...) {
		got[s.out.ChannelID]++
	}
	for _, id := range ids {
		if got[id] != 1 {
			t.Errorf("chat %s got %d reminders, want 1 (a sent %d, b %d)", id, got[id], len(sendA.sent), len(sendB.sent))
		}
	}
	for _, s := range sendA.sent {
		if !a.Holds(s.out.ChannelID) {
			t.Errorf("a delivered in %s, which it does not hold", s.out.ChannelID)
		}
	}

	// a goes; b takes every chat and delivers what falls due.
	addAll("second")
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "b holds every chat", func() bool {
		for _, id := range ids {
			if !b.Holds(id) {
				return false
			}
		}
		return true
	})
	before := len(sendB.sent)
	if _, err := dueB.Step(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(sendB.sent) - before; n != len(ids) {
		t.Fatalf("b delivered %d reminders after a left, want %d", n, len(ids))
	}
	if pend, _ := setup.ListReminders(ctx, state.ReminderFilter{Pending: true}); len(pend) != 0 {
		t.Fatalf("pending after both rounds: %+v", pend)
	}
}
